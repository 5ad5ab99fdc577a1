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
 * @param headers    headers sent with the message
 */
public record MessageContext(String queue, String id, int attempt, Instant dueAt, @Nullable Instant enqueuedAt,
        Map<String, String> headers) {
}
