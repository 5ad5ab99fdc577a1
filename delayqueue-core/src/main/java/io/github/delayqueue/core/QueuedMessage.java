package io.github.delayqueue.core;

import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A live message as it stands in Redis, as {@link DelayQueueClient#pending}, {@link DelayQueueClient#inFlight}
 * and {@link DelayQueueClient#message} read it. A snapshot: by the time it is read the message may have been
 * claimed, settled or cancelled.
 *
 * @param id            the message id
 * @param state         waiting for its due time or a consumer, or claimed by a consumer
 * @param dueAt         when it is due (Redis clock) while {@link State#PENDING}; {@code null} in flight (a claim
 *                      keeps only the lease deadline)
 * @param leaseDeadline when the lease of the delivery under way runs out (Redis clock) while
 *                      {@link State#IN_FLIGHT}; {@code null} while pending
 * @param attempts      deliveries so far, the one under way included; 0 before the first claim
 * @param lastError     the last handler error ({@code ExceptionClass: message}) of a message being retried, or
 *                      {@code null}
 * @param enqueuedAt    when it was sent (Redis clock), or {@code null} if the stored envelope cannot be read
 * @param headers       headers sent with it
 * @param payload       the payload as stored (JSON), or the raw stored envelope if it cannot be read
 * @param group         its {@link SendOptions#group group}, or {@code null} when it has none (or its envelope cannot
 *                      be read)
 * @param priority      its {@link SendOptions#priority priority} ({@link SendOptions#DEFAULT_PRIORITY} for a message
 *                      sent without one, or whose envelope cannot be read)
 */
public record QueuedMessage(String id, State state, @Nullable Instant dueAt, @Nullable Instant leaseDeadline,
        int attempts, @Nullable String lastError, @Nullable Instant enqueuedAt, Map<String, String> headers,
        String payload, @Nullable String group, int priority) {

    /** A message of the default priority (the constructor of releases before priorities). */
    public QueuedMessage(String id, State state, @Nullable Instant dueAt, @Nullable Instant leaseDeadline, int attempts,
            @Nullable String lastError, @Nullable Instant enqueuedAt, Map<String, String> headers, String payload,
            @Nullable String group) {
        this(id, state, dueAt, leaseDeadline, attempts, lastError, enqueuedAt, headers, payload, group,
                SendOptions.DEFAULT_PRIORITY);
    }

    /** A message without a group (the constructor of releases before groups). */
    public QueuedMessage(String id, State state, @Nullable Instant dueAt, @Nullable Instant leaseDeadline, int attempts,
            @Nullable String lastError, @Nullable Instant enqueuedAt, Map<String, String> headers, String payload) {
        this(id, state, dueAt, leaseDeadline, attempts, lastError, enqueuedAt, headers, payload, null);
    }

    /** Where a live message is. */
    public enum State {
        /** In the delayed set: waiting for its due time, or due and waiting for a consumer. */
        PENDING,
        /** Claimed by a consumer under a lease; its handler may be running. */
        IN_FLIGHT
    }
}
