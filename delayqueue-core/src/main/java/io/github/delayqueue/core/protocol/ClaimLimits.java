package io.github.delayqueue.core.protocol;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.FlowLimit;
import io.github.delayqueue.core.RateLimit;

/**
 * One partition's share of a
 * queue's flow limits, as claim.lua's arguments. A queue of {@code n} partitions keeps its limits per partition
 * (each partition's keys live in their own hash slot, so no one script sees them all): each partition gets
 * {@code 1/n} of the rate (and {@code ceil(burst/n)} of the burst), and {@code maxInFlight} split into whole
 * shares that add up to it (the first {@code maxInFlight % n} partitions one more), so the whole queue never
 * exceeds its rate or its cap; its burst is then {@code n * ceil(burst/n)}, which may be more than {@code burst}.
 *
 * @param intervalMicros microseconds between two permits of this partition (0: no rate limit)
 * @param toleranceMicros how far ahead of the clock the theoretical arrival time may run ({@code (burst-1) *
 *        interval})
 * @param maxInFlight this partition's cap on messages in flight (0: none)
 * @param gatherMicros how long after the next permit a claim the rate limit held back names as its next event:
 *        {@code (gather - 1) * interval}, {@code gather} half the burst rounded down, at least 1. Consumers then wake when that
 *        many permits are free rather than one, so N instances make about {@code N / gather} claims per message
 *        rather than N, while a late wake-up still loses no permit (at most the burst is free at once)
 */
public record ClaimLimits(double intervalMicros, double toleranceMicros, int maxInFlight, double gatherMicros) {

    /** No limit. */
    public static final ClaimLimits NONE = new ClaimLimits(0, 0, 0, 0);

    /**
     * The share of {@code partition} of {@code partitions}.
     *
     * @throws IllegalArgumentException when {@code maxInFlight} is below the partition count (a partition would
     *         get no share and never be drained)
     */
    public static ClaimLimits of(@Nullable RateLimit rate, int maxInFlight, int partition, int partitions) {
        if (maxInFlight > 0 && maxInFlight < partitions) {
            throw new IllegalArgumentException("maxInFlight " + maxInFlight + " is below the queue's " + partitions
                    + " partitions: each partition keeps its share of the cap, and a partition with none would never "
                    + "be drained; use at least " + partitions);
        }
        int cap = maxInFlight <= 0 ? 0 : maxInFlight / partitions + (partition < maxInFlight % partitions ? 1 : 0);
        if (rate == null) {
            return new ClaimLimits(0, 0, cap, 0);
        }
        double interval = rate.intervalMicros(partitions);
        int burst = (rate.burst() + partitions - 1) / partitions;
        int gather = Math.max(1, burst / 2); // the other half absorbs late wake-ups
        return new ClaimLimits(interval, (burst - 1) * interval, cap, (gather - 1) * interval);
    }

    /** The four arguments claim.lua takes after its own. */
    public String[] scriptArgs() {
        return new String[] {format(intervalMicros), format(toleranceMicros), Integer.toString(maxInFlight),
                format(gatherMicros)};
    }

    /**
     * The limit claim.lua names in its reply ({@code ""}: none held due messages back, else its letter).
     *
     * @return null for {@code ""}
     */
    public static @Nullable FlowLimit throttledBy(String code) {
        if (code.isEmpty()) {
            return null;
        }
        return switch (code.charAt(0)) {
            case 'R' -> FlowLimit.RATE_LIMIT;
            case 'F' -> FlowLimit.MAX_IN_FLIGHT;
            case 'H' -> FlowLimit.SLOW_DOWN;
            default -> throw new IllegalArgumentException("unknown flow limit code '" + code + "' from claim.lua");
        };
    }

    private static String format(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
