package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;

/**
 * One message of a batch send ({@link DelayQueueClient#sendAll}). Exactly one of {@code delay} and
 * {@code dueAt} is set.
 *
 * @param payload the payload, serialized to JSON; not {@code null}
 * @param delay   delay from the Redis server's clock at the time of the send, or {@code null}
 * @param dueAt   absolute due instant, or {@code null}
 * @param options id, mode and headers; not {@code null}
 */
public record SendRequest(Object payload, Duration delay, Instant dueAt, SendOptions options) {

    /** A message due after {@code delay}. */
    public static SendRequest of(Object payload, Duration delay) {
        return new SendRequest(payload, delay, null, SendOptions.none());
    }

    /** A message due after {@code delay}, with options. */
    public static SendRequest of(Object payload, Duration delay, SendOptions options) {
        return new SendRequest(payload, delay, null, options);
    }

    /** A message due at {@code dueAt}, with options. */
    public static SendRequest at(Object payload, Instant dueAt, SendOptions options) {
        return new SendRequest(payload, null, dueAt, options);
    }
}
