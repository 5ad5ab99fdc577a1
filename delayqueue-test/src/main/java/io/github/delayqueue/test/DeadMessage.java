package io.github.delayqueue.test;

import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A dead letter as {@link DelayQueueTester#deadLetters} reads it, its payload decoded with the queue's declared
 * payload type when it can be.
 *
 * @param key         the dead letter's own key (for {@code DelayQueueAdmin.requeue} and {@code purge})
 * @param id          the message id
 * @param payload     the payload decoded with the payload type of the queue's {@code @DelayHandler}; {@code null}
 *                    when the queue has no handler in this application or the payload does not decode (which may
 *                    be why it died)
 * @param payloadJson the payload as stored
 * @param headers     the headers sent with it
 * @param attempts    deliveries made before it died (0 if it never reached a handler)
 * @param reason      why it died: the last handler error ({@code ExceptionClass: message}), a decoding failure, or
 *                    an expired lease on its last attempt
 * @param deadAt      when it died (Redis clock)
 */
public record DeadMessage(String key, String id, @Nullable Object payload, String payloadJson,
        Map<String, String> headers, int attempts, String reason, Instant deadAt) {

    public DeadMessage {
        headers = Map.copyOf(headers);
    }
}
