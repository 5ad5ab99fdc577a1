package io.github.delayqueue.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A queue's flow control as Redis holds it, for every instance together: read with the queue's statistics
 * ({@link QueueStats#flow()}) from the queue's flow hash, never from one application's meters or options. A queue of
 * several partitions sums its partitions (each keeps its share of the limits).
 *
 * @param rateLimit       the rate limit the claims apply, as the last claim with limits recorded it in Redis (a
 *                        partitioned queue: the sum of the partitions' shares, so {@code n * ceil(burst / n)} for
 *                        the burst), or {@code null} for none. A consumer without limits deletes it (and the claim
 *                        counts) when it starts and once every 10 of its {@code maxPollInterval}s: it shows what the
 *                        consumers enforce, up to that long after the last consumer with limits stopped, and stays
 *                        through a restart of every instance
 * @param maxInFlight     the cap on messages in flight the claims apply, recorded the same way (0: none)
 * @param claimsPerSecond messages claimed per second by every instance, over about the last 10 seconds on the Redis
 *                        clock; {@code null} when no claim with limits counted any (queues without limits are not
 *                        counted: that costs their claims nothing)
 * @param throttled       due messages that a claim made now would leave in Redis because of the limits or a hold: the
 *                        throttled backlog, queue-wide and per group ({@code throttledByGroups}). Part of
 *                        {@link QueueStats#ready()}; the rest a claim could take at once. 0 while the queue is paused:
 *                        the pause holds them, not a limit
 * @param throttledByGroups the part of {@code throttled} held back by their groups' limits or holds
 *                        ({@code groupRateLimit}, {@code groupMaxInFlight}, a grouped message's
 *                        {@link SlowDownException}): the due messages of the groups a claim would not read now (a next
 *                        permit or a hold ahead, or at the in-flight cap). Counted, as {@code ready} counts grouped
 *                        messages, over the first 100 groups of each partition's index; 0 for a queue without groups
 * @param holdUntil       the end of the hold a handler's {@link SlowDownException} set (the latest of the partitions'),
 *                        or {@code null} when none holds the queue now
 * @param atMaxInFlight   whether the messages in flight have reached {@code maxInFlight}, so no claim takes more
 *                        until a settle frees a place
 */
public record QueueFlow(@Nullable RateLimit rateLimit, int maxInFlight, @Nullable Double claimsPerSecond,
        long throttled, long throttledByGroups, @Nullable Instant holdUntil, boolean atMaxInFlight) {

    /** No limits recorded, no hold, nothing throttled, no rate counted. */
    public static final QueueFlow NONE = new QueueFlow(null, 0, null, 0, 0, null, false);

    /** A flow with nothing throttled by groups ({@code throttledByGroups} 0): the constructor of the earlier release. */
    public QueueFlow(@Nullable RateLimit rateLimit, int maxInFlight, @Nullable Double claimsPerSecond, long throttled,
            @Nullable Instant holdUntil, boolean atMaxInFlight) {
        this(rateLimit, maxInFlight, claimsPerSecond, throttled, 0, holdUntil, atMaxInFlight);
    }
}
