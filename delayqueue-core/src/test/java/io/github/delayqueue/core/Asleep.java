package io.github.delayqueue.core;

import io.github.delayqueue.core.engine.ConsumerEngine;
import io.github.delayqueue.core.engine.PartitionedConsumer;

/**
 * Whether a consumer's pollers are asleep waiting for a wake-up: tests that must send "while the consumer sleeps"
 * wait for this state rather than sleeping a fixed time and hoping the poller got there first.
 */
final class Asleep {

    private Asleep() {
    }

    /** Whether every poller of {@code consumer} sleeps until at least {@code serverMs} on the Redis clock. */
    static boolean past(DelayQueueConsumer consumer, long serverMs) {
        if (consumer instanceof ConsumerEngine<?> engine) {
            return engine.sleepsPast(serverMs);
        }
        if (consumer instanceof PartitionedConsumer partitioned) {
            return partitioned.sleepsPast(serverMs);
        }
        throw new IllegalArgumentException("not a consumer of this engine: " + consumer.getClass());
    }
}
