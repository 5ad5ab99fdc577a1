package io.github.delayqueue.core;

import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A message that was given up on.
 *
 * @param key        this dead letter's own key, for {@code requeueDeadLetters} and {@code purgeDeadLetters}:
 *                   an id that died twice (sent again under the same id in between) has two dead letters
 * @param id         the message id
 * @param payload    the payload as stored (JSON), or the raw stored envelope if it could not be read
 * @param headers    the headers sent with it
 * @param attempts   deliveries made before it died (0 if it never reached a handler)
 * @param reason     why it died: the last handler error ({@code ExceptionClass: message}), a decoding
 *                   failure, an expired lease on its last attempt, or {@code expired: …} for a message not
 *                   delivered by its expiry
 * @param deadAt     when it died (Redis clock)
 * @param enqueuedAt when it was first sent (Redis clock), or {@code null} if the envelope is unreadable
 * @param group      its {@link SendOptions#group group}, or {@code null} when it had none (or the envelope is
 *                   unreadable)
 */
public record DeadLetter(String key, String id, String payload, Map<String, String> headers, int attempts, String reason,
        Instant deadAt, @Nullable Instant enqueuedAt, @Nullable String group) {

    /** A dead letter without a group (the constructor of releases before groups). */
    public DeadLetter(String key, String id, String payload, Map<String, String> headers, int attempts, String reason,
            Instant deadAt, @Nullable Instant enqueuedAt) {
        this(key, id, payload, headers, attempts, reason, deadAt, enqueuedAt, null);
    }
}
