package io.github.delayqueue.spring.autoconfigure;

import java.time.Duration;

import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.autoconfigure.DelayQueueProperties.Queue;

import org.jspecify.annotations.Nullable;

/**
 * Checks and parses a queue's flow limits ({@code delayqueue.queues.<code>.rate-limit}, {@code rate-limit-burst},
 * {@code max-in-flight}, {@code group-rate-limit}, {@code group-max-in-flight}) at startup, for every key that sets them, whether or not this application consumes the
 * queue: a bad value fails startup with a message naming the property, never a consumer later.
 */
final class FlowSettings {

    private static final String RATE_FIX = "Write it as <permits>/<period> with both at least 1 and a unit of ms, s, m, "
            + "h or d, for example 200/1s or 10/1m; remove it for no limit.";

    private FlowSettings() {
    }

    /**
     * The queue's rate limit with its burst, or null when it sets none.
     *
     * @throws DelayQueueConfigurationException for a bad rate limit, burst or max-in-flight
     */
    static @Nullable RateLimit rateLimit(String key, Queue queue) {
        String prefix = "delayqueue.queues" + (key.contains(".") ? "[" + key + "]" : "." + key);
        Integer maxInFlight = queue.getMaxInFlight();
        if (maxInFlight != null && maxInFlight < 1) {
            throw new DelayQueueConfigurationException(prefix + ".max-in-flight is " + maxInFlight
                    + ": it must be at least 1.", "Set " + prefix + ".max-in-flight to at least 1, or remove it for no cap.");
        }
        Integer partitions = queue.getPartitions();
        if (maxInFlight != null && partitions != null && maxInFlight < partitions) {
            throw new DelayQueueConfigurationException(prefix + ".max-in-flight is " + maxInFlight + ", below the queue's "
                    + partitions + " partitions: each partition keeps its share of the cap, and a partition with none "
                    + "would never be drained.", "Set " + prefix + ".max-in-flight to at least " + partitions + ".");
        }
        String spec = queue.getRateLimit();
        Integer burst = queue.getRateLimitBurst();
        if (spec == null || spec.isBlank()) {
            // the burst of a rate limit the handler's @DelayHandler(rateLimit) sets: checked here all the same
            withBurst(prefix + ".rate-limit-burst", RateLimit.of(1, Duration.ofSeconds(1)), burst);
            return null;
        }
        RateLimit rate;
        try {
            rate = RateLimit.parse(spec);
        } catch (IllegalArgumentException e) {
            throw new DelayQueueConfigurationException(prefix + ".rate-limit: " + e.getMessage() + ".", RATE_FIX, e);
        }
        return withBurst(prefix + ".rate-limit-burst", rate, burst);
    }

    /**
     * The queue's rate limit per group, or null when it sets none; checks its {@code group-max-in-flight} too.
     *
     * @throws DelayQueueConfigurationException for a bad group rate limit or group max-in-flight
     */
    static @Nullable RateLimit groupRateLimit(String key, Queue queue) {
        String prefix = "delayqueue.queues" + (key.contains(".") ? "[" + key + "]" : "." + key);
        Integer cap = queue.getGroupMaxInFlight();
        if (cap != null && cap < 1) {
            throw new DelayQueueConfigurationException(prefix + ".group-max-in-flight is " + cap
                    + ": it must be at least 1.", "Set " + prefix + ".group-max-in-flight to at least 1, or remove it "
                            + "for no cap per group.");
        }
        Integer partitions = queue.getPartitions();
        if (cap != null && partitions != null && cap < partitions) {
            throw new DelayQueueConfigurationException(prefix + ".group-max-in-flight is " + cap + ", below the queue's "
                    + partitions + " partitions: each partition keeps its share of every group's cap, and a partition "
                    + "with none would never be drained.", "Set " + prefix + ".group-max-in-flight to at least "
                            + partitions + ".");
        }
        String spec = queue.getGroupRateLimit();
        if (spec == null || spec.isBlank()) {
            return null;
        }
        try {
            return RateLimit.parse(spec);
        } catch (IllegalArgumentException e) {
            throw new DelayQueueConfigurationException(prefix + ".group-rate-limit: " + e.getMessage() + ".", RATE_FIX, e);
        }
    }

    /** {@code rate} with the queue's burst, if it sets one. */
    static RateLimit withBurst(String what, RateLimit rate, @Nullable Integer burst) {
        if (burst == null) {
            return rate;
        }
        try {
            return rate.withBurst(burst);
        } catch (IllegalArgumentException e) {
            throw new DelayQueueConfigurationException(what + ": " + e.getMessage() + ".",
                    "Set the burst between 1 and " + RateLimit.MAX_BURST + " (unset: the permits of 50 ms, at least 1).",
                    e);
        }
    }
}
