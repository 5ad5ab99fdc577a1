package io.github.delayqueue.core;

import java.time.Instant;
import java.util.Map;
import java.util.function.BooleanSupplier;

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
 * @param cancellation what {@link #cancelled()} reads: whether the message was cancelled while this delivery runs
 */
public record MessageContext(String queue, String id, int attempt, Instant dueAt, @Nullable Instant enqueuedAt,
        Map<String, String> headers, @Nullable String group, BooleanSupplier cancellation) {

    private static final BooleanSupplier NEVER = () -> false;

    /** A context whose delivery is never cancelled (the constructor of releases before {@link #cancelled()}). */
    public MessageContext(String queue, String id, int attempt, Instant dueAt, @Nullable Instant enqueuedAt,
            Map<String, String> headers, @Nullable String group) {
        this(queue, id, attempt, dueAt, enqueuedAt, headers, group, NEVER);
    }

    /** The context of a message without a group (the constructor of releases before {@link #group()}). */
    public MessageContext(String queue, String id, int attempt, Instant dueAt, @Nullable Instant enqueuedAt,
            Map<String, String> headers) {
        this(queue, id, attempt, dueAt, enqueuedAt, headers, null, NEVER);
    }

    /**
     * Whether the message was cancelled while this delivery runs ({@link DelayQueueClient#cancel} from any instance):
     * the handler's thread is interrupted too, and whatever the handler does from then on is not settled. A handler
     * that works in a loop can check it between steps and return. Reached through the queue's wake-up channel at once,
     * or, should that be lost, at the next extension of the delivery's lease (a third of the visibility timeout).
     */
    public boolean cancelled() {
        return cancellation.getAsBoolean();
    }
}
