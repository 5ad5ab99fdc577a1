package io.github.delayqueue.spring.outbox;

import java.time.Duration;

/**
 * How the outbox relay works ({@code delayqueue.producer.outbox.*}).
 *
 * @param relayAfter  how old a row must be before the relay takes it: the after-commit write has had that
 *                    long (keep it above the Redis client's timeout and retries)
 * @param interval    how often the relay looks for rows, and how long it waits while Redis fails
 * @param batchSize   most rows one relay pass locks and sends
 * @param maxAttempts failed attempts, other than Redis being unreachable, after which a row is parked
 * @param relay       whether this application runs the relay (the after-commit write always runs)
 * @param namespace   what this application's rows carry, and the only rows its relay takes
 * @param versionRetention how long Redis keeps the version of an id written through the outbox, so that an older
 *                    intent relayed later is refused; must exceed {@code relayAfter}
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public record OutboxSettings(Duration relayAfter, Duration interval, int batchSize, int maxAttempts, boolean relay,
        String namespace, Duration versionRetention) {

    /**
     * @throws IllegalArgumentException naming the property of a value out of range
     */
    public OutboxSettings {
        require(relayAfter != null && !relayAfter.isNegative() && relayAfter.compareTo(Duration.ofDays(1)) <= 0,
                "delayqueue.producer.outbox.relay-after must be between 0 and 1d, was " + relayAfter);
        require(interval != null && interval.compareTo(Duration.ofMillis(10)) >= 0 && interval.compareTo(Duration.ofHours(1)) <= 0,
                "delayqueue.producer.outbox.relay-interval must be between 10ms and 1h, was " + interval);
        require(batchSize >= 1 && batchSize <= 10_000,
                "delayqueue.producer.outbox.relay-batch-size must be between 1 and 10000, was " + batchSize);
        require(maxAttempts >= 1 && maxAttempts <= 1_000,
                "delayqueue.producer.outbox.max-attempts must be between 1 and 1000, was " + maxAttempts);
        require(namespace != null && !namespace.isBlank() && namespace.length() <= 255,
                "delayqueue.producer.outbox.namespace must be 1 to 255 characters, was '" + namespace + "'");
        require(versionRetention != null && relayAfter != null && versionRetention.compareTo(relayAfter) > 0
                && versionRetention.compareTo(Duration.ofMinutes(1)) >= 0 && versionRetention.compareTo(Duration.ofDays(7)) <= 0,
                "delayqueue.producer.outbox.version-retention must be between 1m and 7d and longer than relay-after, was "
                        + versionRetention);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
