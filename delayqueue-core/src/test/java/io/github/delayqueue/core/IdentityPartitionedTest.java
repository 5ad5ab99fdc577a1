package io.github.delayqueue.core;

import io.github.delayqueue.testing.RedisContext;

/** Every test of {@link IdentityTest} again, each queue split into 3 partitions. */
class IdentityPartitionedTest extends IdentityTest {

    IdentityPartitionedTest(RedisContext redis) {
        super(redis);
    }

    @Override
    DelayQueueClient newClient() {
        return PartitionTest.partitioned(redis(), 3);
    }
}
