package io.github.delayqueue.core;

import io.github.delayqueue.testing.OnTopology;
import io.github.delayqueue.testing.RedisContext;

/**
 * Every test of {@link BatchHandlerTest} again, on a Redis Cluster of 3 masters, each queue split into 6 partitions
 * (one batch consumer over all; its batches come from one partition each).
 */
@OnTopology(OnTopology.Topology.CLUSTER)
class BatchHandlerPartitionedOnClusterTest extends BatchHandlerTest {

    BatchHandlerPartitionedOnClusterTest(RedisContext redis) {
        super(redis);
    }

    @Override
    DelayQueueClient newClient() {
        return PartitionTest.partitioned(redis(), 6);
    }

    @Override
    boolean onePartition() {
        return false;
    }
}
