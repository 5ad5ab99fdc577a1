package io.github.delayqueue.core;

import io.github.delayqueue.testing.RedisContext;

/** Every test of {@link DeliveryTest} again, each queue split into 3 partitions. */
class DeliveryPartitionedTest extends DeliveryTest {

    DeliveryPartitionedTest(RedisContext redis) {
        super(redis);
    }

    @Override
    DelayQueueClient newClient() {
        return PartitionTest.partitioned(redis(), 3);
    }
}
