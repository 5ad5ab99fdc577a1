package io.github.delayqueue.core;

import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * What a handler may want to know about the delivery it is handling.
 *
 * @param queue      the queue name
 * @param id         the message id (generated, or the one given with {@link SendOptions#id(String)})
 * @param attempt    this delivery's number, starting at 1; above 1 after a retry or a redelivery
 * @param dueAt      when the message was due (Redis clock)
 * @param enqueuedAt when the message was sent (Redis clock), or {@code null} in the context an interceptor or
 *                   error handler gets for a delivery that timed out or ended before its envelope was read
 * @param headers    headers sent with the message; never the group (the reserved header
 *                   {@link SendOptions#GROUP_HEADER} it travels in is not among them: read {@link #group()})
 * @param group      the message's {@link SendOptions#group group}, or {@code null} for a message sent without one.
 *                   Read from the claimed member (where the group travels anyway), so it costs no Redis command, and
 *                   set in every context, those of batch items and of deliveries that timed out included
 * @param control    the delivery under way, as the engine runs it: what {@link #cancelled()}, {@link #progress} and
 *                   {@link #result} reach ({@link Control#NONE} outside a delivery)
 */
public record MessageContext(String queue, String id, int attempt, Instant dueAt, @Nullable Instant enqueuedAt,
        Map<String, String> headers, @Nullable String group, Control control) {

    /**
     * What a handler may tell the delivery it runs, and ask of it; implemented by the engine. Tests that build a
     * context by hand pass {@link #NONE} or their own.
     */
    public interface Control {

        /** A delivery that is never cancelled and keeps no progress or result. */
        Control NONE = new Control() {
        };

        /** Whether the message was cancelled while this delivery runs. */
        default boolean cancelled() {
            return false;
        }

        /** Reports progress (see {@link MessageContext#progress}). */
        default void progress(Object progress) {
        }

        /** Sets the delivery's result (see {@link MessageContext#result}). */
        default void result(@Nullable Object result) {
        }
    }

    /** A context whose delivery is never cancelled (the constructor of releases before {@link #cancelled()}). */
    public MessageContext(String queue, String id, int attempt, Instant dueAt, @Nullable Instant enqueuedAt,
            Map<String, String> headers, @Nullable String group) {
        this(queue, id, attempt, dueAt, enqueuedAt, headers, group, Control.NONE);
    }

    /** The context of a message without a group (the constructor of releases before {@link #group()}). */
    public MessageContext(String queue, String id, int attempt, Instant dueAt, @Nullable Instant enqueuedAt,
            Map<String, String> headers) {
        this(queue, id, attempt, dueAt, enqueuedAt, headers, null, Control.NONE);
    }

    /**
     * Whether the message was cancelled while this delivery runs ({@link DelayQueueClient#cancel} from any instance):
     * the handler's thread is interrupted too, and whatever the handler does from then on is not settled. A handler
     * that works in a loop can check it between steps and return. Reached through the queue's wake-up channel at once,
     * or, should that be lost, at the next extension of the delivery's lease (a third of the visibility timeout).
     */
    public boolean cancelled() {
        return control.cancelled();
    }

    /**
     * Reports how far the handler got, as a small value encoded like payloads (a number, a string, a record), at
     * most {@link #MAX_RESULT_BYTES} bytes of JSON. Kept while the queue keeps its history
     * ({@link ConsumerOptions.Builder#keepHistory}): it shows in the message's in-flight status
     * ({@link DelayQueueClient#status}) from another instance, and the last one reported stays in its record once it
     * is settled. Written to Redis at most every {@link #PROGRESS_INTERVAL_MS} ms per delivery (the latest value is
     * kept in between, and written with the record); on a queue that keeps no history it is ignored.
     *
     * @throws IllegalArgumentException if it is null, cannot be encoded or is larger than {@link #MAX_RESULT_BYTES}
     */
    public void progress(Object progress) {
        control.progress(progress);
    }

    /**
     * Sets what the handler produced, as a small value encoded like payloads, at most {@link #MAX_RESULT_BYTES}
     * bytes of JSON: kept in the message's record when the delivery is acknowledged, on a queue that keeps its history
     * ({@link ConsumerOptions.Builder#keepHistory}; ignored otherwise). The last call before the handler returns wins;
     * {@code null} clears it. A handler of the starter may return the value instead.
     *
     * @throws IllegalArgumentException if it cannot be encoded or is larger than {@link #MAX_RESULT_BYTES}
     */
    public void result(@Nullable Object result) {
        control.result(result);
    }

    /** The most bytes of JSON a {@link #progress} or {@link #result} value may take. */
    public static final int MAX_RESULT_BYTES = 4 * 1024;

    /** How often, at most, a delivery's {@link #progress} is written to Redis. */
    public static final long PROGRESS_INTERVAL_MS = 250;
}
