package io.github.delayqueue.core.activity;

import java.time.Duration;
import java.time.Instant;

/**
 * What the consumers of one queue did in one minute of the Redis clock, summed over every instance that consumes it
 * (each instance counts its own events and adds them to Redis about once a minute). A minute in which nothing happened
 * has every count at zero.
 *
 * @param minute       the minute's start, on the Redis clock
 * @param handled      messages acknowledged (their handler succeeded)
 * @param retried      failed deliveries put back for a retry
 * @param deadLettered messages moved to the dead letters (a last attempt failed, a handler said so, a lease or an
 *                     expiry ran out)
 * @param started      handlers started: the deliveries {@code averageLateness} is the average of
 * @param latenessSum  the sum of the started handlers' lateness (their start less their due time)
 * @param maxLateness  the largest lateness of a handler started in this minute
 */
public record ActivityMinute(Instant minute, long handled, long retried, long deadLettered, long started,
        Duration latenessSum, Duration maxLateness) {

    /** Failed deliveries: those retried and those dead-lettered. */
    public long failed() {
        return retried + deadLettered;
    }

    /** The average lateness of the handlers started in this minute, zero when none started. */
    public Duration averageLateness() {
        return started == 0 ? Duration.ZERO : latenessSum.dividedBy(started);
    }
}
