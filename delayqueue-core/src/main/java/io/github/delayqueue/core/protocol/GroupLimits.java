package io.github.delayqueue.core.protocol;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.RateLimit;

/**
 * One partition's share of a queue's per-group flow limits ({@code ConsumerOptions.groupRateLimit} and
 * {@code groupMaxInFlight}), as claim.lua's arguments 14 to 16 (includes/groups.lua). Split over the partitions as
 * {@link ClaimLimits} splits the queue-wide ones: a group's messages are spread over the partitions by id.
 *
 * @param intervalMicros microseconds between two permits of one group in this partition (0: no rate limit)
 * @param toleranceMicros how far ahead of the clock a group's theoretical arrival time may run
 * @param maxInFlight this partition's cap on one group's messages in flight (0: none)
 */
public record GroupLimits(double intervalMicros, double toleranceMicros, int maxInFlight) {

    /** No limit per group. */
    public static final GroupLimits NONE = new GroupLimits(0, 0, 0);

    /**
     * The share of {@code partition} of {@code partitions}.
     *
     * @throws IllegalArgumentException when {@code maxInFlight} is below the partition count
     */
    public static GroupLimits of(@Nullable RateLimit rate, int maxInFlight, int partition, int partitions) {
        ClaimLimits split;
        try {
            split = ClaimLimits.of(rate, maxInFlight, partition, partitions);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("group" + e.getMessage().substring(0, 1).toUpperCase()
                    + e.getMessage().substring(1), e);
        }
        return new GroupLimits(split.intervalMicros(), split.toleranceMicros(), split.maxInFlight());
    }

    /** Whether there is no limit (claim.lua is then passed no group arguments). */
    public boolean none() {
        return intervalMicros == 0 && maxInFlight == 0;
    }

    /** The three arguments claim.lua takes after the queue-wide ones. */
    public String[] scriptArgs() {
        return new String[] {format(intervalMicros), format(toleranceMicros), Integer.toString(maxInFlight)};
    }

    private static String format(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
