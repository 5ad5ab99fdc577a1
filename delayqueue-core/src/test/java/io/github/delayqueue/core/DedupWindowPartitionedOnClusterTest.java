package io.github.delayqueue.core;

import io.github.delayqueue.testing.OnTopology;
import io.github.delayqueue.testing.RedisContext;

/**
 * Every test of {@link DedupWindowTest} again, on a Redis Cluster of 3 masters, each queue split into 6 partitions: the
 * remembered ids and windows live beside their partition's keys, in its slot.
 */
@OnTopology(OnTopology.Topology.CLUSTER)
class DedupWindowPartitionedOnClusterTest extends DedupWindowTest {

    DedupWindowPartitionedOnClusterTest(RedisContext redis) {
        super(redis);
    }

    @Override
    DelayQueueClient newClient() {
        return PartitionTest.partitioned(redis(), 6);
    }
}
