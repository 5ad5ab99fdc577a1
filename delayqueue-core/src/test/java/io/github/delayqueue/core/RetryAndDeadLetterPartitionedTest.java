package io.github.delayqueue.core;

import io.github.delayqueue.testing.RedisContext;

/** Every test of {@link RetryAndDeadLetterTest} again, each queue split into 3 partitions. */
class RetryAndDeadLetterPartitionedTest extends RetryAndDeadLetterTest {

    RetryAndDeadLetterPartitionedTest(RedisContext redis) {
        super(redis);
    }

    @Override
    DelayQueueClient newClient() {
        return PartitionTest.partitioned(redis(), 3);
    }
}
