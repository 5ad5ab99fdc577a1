package io.github.delayqueue.core;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import io.github.delayqueue.core.internal.Checks;

/**
 * Exponential back-off with jitter for failed handlers, and how many deliveries a message gets before
 * it is dead-lettered.
 *
 * @param maxAttempts    deliveries in total, the first included (1 = never retry)
 * @param initialBackoff back-off after the first failure
 * @param multiplier     factor applied to the back-off after each further failure (at least 1)
 * @param maxBackoff     the back-off never exceeds this
 * @param jitter         fraction of random spread around the back-off, from 0 (none) to 1
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, double multiplier, Duration maxBackoff,
        double jitter) {

    /** 5 attempts, 1 s doubling up to 5 min, 20% jitter. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(5, Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5), 0.2);

    public RetryPolicy {
        Checks.require(maxAttempts >= 1, "maxAttempts must be at least 1, was " + maxAttempts);
        Checks.positive(initialBackoff, "initialBackoff");
        Checks.positive(maxBackoff, "maxBackoff");
        Checks.require(multiplier >= 1.0 && multiplier <= 100.0, "multiplier must be between 1 and 100, was " + multiplier);
        Checks.require(jitter >= 0.0 && jitter <= 1.0, "jitter must be between 0 and 1, was " + jitter);
    }

    /** The back-off before delivery {@code failedAttempt + 1}, with jitter applied. */
    public Duration backoffAfter(int failedAttempt) {
        double base = initialBackoff.toMillis() * Math.pow(multiplier, Math.max(0, failedAttempt - 1));
        double capped = Math.min(base, maxBackoff.toMillis());
        double spread = capped * jitter;
        double withJitter = capped + (spread == 0 ? 0 : ThreadLocalRandom.current().nextDouble(-spread, spread));
        return Duration.ofMillis(Math.max(0, Math.min(Math.round(withJitter), maxBackoff.toMillis())));
    }
}
