package io.github.delayqueue.core;

import io.github.delayqueue.testing.RedisContext;

/**
 * Every test of {@link JobSetTest} again, each queue split into 3 partitions: a set's members spread over partitions
 * whose marks are written and forwarded separately.
 */
class JobSetPartitionedTest extends JobSetTest {

    JobSetPartitionedTest(RedisContext redis) {
        super(redis);
    }

    @Override
    ClientOptions.Builder clientOptions() {
        return super.clientOptions().defaultPartitions(3);
    }
}
