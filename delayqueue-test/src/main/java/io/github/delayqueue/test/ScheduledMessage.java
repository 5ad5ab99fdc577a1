package io.github.delayqueue.test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.SendOptions;

/**
 * A pending message as {@link DelayQueueTester#pending} reads it from Redis, its payload decoded with the
 * queue's declared payload type.
 *
 * @param id         the message id
 * @param payload    the payload, decoded with the payload type of the queue's {@code @DelayHandler}
 * @param headers    the headers sent with it
 * @param dueAt      when it is due, by the Redis server's clock
 * @param dueIn      how long after the read it is due, by the Redis server's clock (zero or negative once due), so
 *                   {@code assertThat(message.dueIn()).isCloseTo(Duration.ofMinutes(15), Duration.ofSeconds(10))}
 *                   does not depend on the test machine's clock
 * @param attempts   deliveries so far: 0 before the first, more for a message waiting for a retry
 * @param lastError  the last handler error of a message waiting for a retry ({@code ExceptionClass: message}), or
 *                   {@code null}
 * @param enqueuedAt when it was sent (Redis clock), or {@code null} if the stored envelope cannot be read
 * @param group      its {@code SendOptions.group group}, or {@code null} for a message sent without one
 * @param priority   its {@code SendOptions.priority priority}, 0 to 9: the one it was sent with, else its queue's
 *                   default ({@code SendOptions.DEFAULT_PRIORITY}, 4, unless the queue names another)
 * @param <T>        the payload type
 */
public record ScheduledMessage<T>(String id, T payload, Map<String, String> headers, Instant dueAt, Duration dueIn,
        int attempts, @Nullable String lastError, @Nullable Instant enqueuedAt, @Nullable String group, int priority) {

    public ScheduledMessage {
        headers = Map.copyOf(headers);
    }

    /** A message of the default priority (the constructor of releases before {@link #priority()}). */
    public ScheduledMessage(String id, T payload, Map<String, String> headers, Instant dueAt, Duration dueIn,
            int attempts, @Nullable String lastError, @Nullable Instant enqueuedAt, @Nullable String group) {
        this(id, payload, headers, dueAt, dueIn, attempts, lastError, enqueuedAt, group,
                SendOptions.DEFAULT_PRIORITY);
    }

    /** A message without a group (the constructor of releases before {@link #group()}). */
    public ScheduledMessage(String id, T payload, Map<String, String> headers, Instant dueAt, Duration dueIn,
            int attempts, @Nullable String lastError, @Nullable Instant enqueuedAt) {
        this(id, payload, headers, dueAt, dueIn, attempts, lastError, enqueuedAt, null);
    }
}
