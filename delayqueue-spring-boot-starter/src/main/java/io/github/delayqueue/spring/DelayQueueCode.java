package io.github.delayqueue.spring;

/**
 * A queue the application declares. Implement it with an enum; each constant is one queue:
 *
 * <pre>{@code
 * public enum Queues implements DelayQueueCode {
 *     ORDER_PAYMENT_TIMEOUT,
 *     MEETING_REMINDER
 * }
 * }</pre>
 *
 * <p>The starter finds these enums in the application's packages (those of the
 * {@code @SpringBootApplication} class) and in {@code delayqueue.scan-packages}. Only enums count.
 * Startup fails if two enums declare the same code or a code is not a valid queue name.
 */
public interface DelayQueueCode {

    /** The constant's name; every enum implements it. */
    String name();

    /**
     * The queue name: used in Redis keys, in {@code @DelayHandler("…")} and under
     * {@code delayqueue.queues.<code>}. Defaults to {@link #name()}. Must be 1 to 100 characters of
     * {@code A-Z a-z 0-9 _ . -}; changing it moves the queue to new Redis keys.
     */
    default String code() {
        return name();
    }
}
