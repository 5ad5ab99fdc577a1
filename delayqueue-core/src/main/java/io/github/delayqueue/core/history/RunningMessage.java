package io.github.delayqueue.core.history;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.MessageContext;

/**
 * Where a message in flight runs, as {@link MessageStatus#running} tells it: written by a consumer that keeps the
 * queue's history ({@link ConsumerOptions.Builder#keepHistory}) when the delivery's lease is first extended (within a
 * third of the visibility timeout) or its handler first reports progress, whichever comes first; a delivery done
 * sooner has none. Times are on the Redis clock.
 *
 * @param instance     the JVM whose consumer claimed it, {@code <pid>@<host>}
 * @param claimedAt    when this delivery was claimed
 * @param leaseUntil   when its lease runs out unless the consumer extends it (it does while the handler runs)
 * @param attempt      this delivery's number, starting at 1
 * @param progress     the last progress its handler reported ({@link MessageContext#progress}, JSON), or {@code null}
 */
public record RunningMessage(String instance, Instant claimedAt, Instant leaseUntil, int attempt,
        @Nullable String progress) {
}
