package io.github.delayqueue.core;

import io.github.delayqueue.testing.RedisContext;

/** Every test of {@link HistoryPageTest} again, each queue split into 3 partitions. */
class HistoryPagePartitionedTest extends HistoryPageTest {

    HistoryPagePartitionedTest(RedisContext redis) {
        super(redis);
    }

    @Override
    DelayQueueClient newClient() {
        return PartitionTest.partitioned(redis(), 3);
    }
}
