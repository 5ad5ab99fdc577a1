package io.github.delayqueue.core;

import io.github.delayqueue.testing.RedisContext;

/** Every test of {@link BatchHandlerTest} again, each queue split into 3 partitions (one batch consumer over all). */
class BatchHandlerPartitionedTest extends BatchHandlerTest {

    BatchHandlerPartitionedTest(RedisContext redis) {
        super(redis);
    }

    @Override
    DelayQueueClient newClient() {
        return PartitionTest.partitioned(redis(), 3);
    }

    @Override
    boolean onePartition() {
        return false;
    }
}
