package io.github.delayqueue.core;

import io.github.delayqueue.testing.RedisContext;

/** {@link GroupsTest} on a queue of three partitions: each partition keeps its share of every group's limits. */
class GroupsPartitionedTest extends GroupsTest {

    GroupsPartitionedTest(RedisContext redis) {
        super(redis);
    }

    @Override
    int partitions() {
        return 3;
    }
}
