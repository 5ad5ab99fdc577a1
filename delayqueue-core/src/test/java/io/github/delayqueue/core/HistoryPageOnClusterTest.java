package io.github.delayqueue.core;

import io.github.delayqueue.testing.OnTopology;
import io.github.delayqueue.testing.RedisContext;

/**
 * Every test of {@link HistoryPageTest} again, on a Redis Cluster of 3 masters and 3 replicas, each queue in 3
 * partitions (each partition's read on the node of its slot).
 */
@OnTopology(OnTopology.Topology.CLUSTER)
class HistoryPageOnClusterTest extends HistoryPageTest {

    HistoryPageOnClusterTest(RedisContext redis) {
        super(redis);
    }

    @Override
    DelayQueueClient newClient() {
        return PartitionTest.partitioned(redis(), 3);
    }
}
