package io.github.delayqueue.core;

import java.time.Duration;

/**
 * How a {@link BatchMessageHandler} is fed: at most {@code size} messages per call, and how long a claim that found
 * fewer than that waits ({@code maxWait}, on the claiming thread, the messages claimed so far holding their leases) for
 * more to become due before the batch is handed over. {@code maxWait} zero (the default) hands over a partial batch at
 * once. The consumer's {@link ConsumerOptions#concurrency()} is the number of batches that run at once.
 *
 * @param size the most messages per batch, 1 to 1000
 * @param maxWait how long to wait to fill a batch, zero or positive, at most 10 seconds and shorter than half the
 *             consumer's visibility timeout (checked by {@link DelayQueueClient#newBatchConsumer})
 */
public record BatchOptions(int size, Duration maxWait) {

    /** The longest {@code maxWait}: a batch wait is meant to be short. */
    public static final Duration MAX_WAIT = Duration.ofSeconds(10);

    public BatchOptions {
        if (size < 1 || size > 1_000) {
            throw new IllegalArgumentException("batch size must be between 1 and 1000, was " + size);
        }
        if (maxWait == null || maxWait.isNegative() || maxWait.compareTo(MAX_WAIT) > 0) {
            throw new IllegalArgumentException("batch wait must be between 0 and " + MAX_WAIT + ", was " + maxWait);
        }
    }

    /** Batches of at most {@code size} messages, handed over as soon as they are claimed. */
    public static BatchOptions of(int size) {
        return new BatchOptions(size, Duration.ZERO);
    }

    /** The same, waiting up to {@code maxWait} to fill a batch. */
    public BatchOptions withMaxWait(Duration maxWait) {
        return new BatchOptions(size, maxWait);
    }
}
