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
 */
public record MessageContext(String queue, String id, int attempt, Instant dueAt, @Nullable Instant enqueuedAt,
        Map<String, String> headers, @Nullable String group) {

    /** The context of a message without a group (the constructor of releases before {@link #group()}). */
    public MessageContext(String queue, String id, int attempt, Instant dueAt, @Nullable Instant enqueuedAt,
            Map<String, String> headers) {
        this(queue, id, attempt, dueAt, enqueuedAt, headers, null);
    }
}
