package io.github.delayqueue.core;

import io.github.delayqueue.testing.RedisContext;

/** {@link PrioritiesTest} on a queue of three partitions: each partition hands out its due messages by priority. */
class PrioritiesPartitionedTest extends PrioritiesTest {

    PrioritiesPartitionedTest(RedisContext redis) {
        super(redis);
    }

    @Override
    int partitions() {
        return 3;
    }
}
