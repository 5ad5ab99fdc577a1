package io.github.delayqueue.core;

import io.github.delayqueue.testing.RedisContext;

/** Every test of {@link HistoryTest} again, each queue split into 3 partitions. */
class HistoryPartitionedTest extends HistoryTest {

    HistoryPartitionedTest(RedisContext redis) {
        super(redis);
    }

    @Override
    ClientOptions.Builder clientOptions() {
        return super.clientOptions().defaultPartitions(3);
    }
}
