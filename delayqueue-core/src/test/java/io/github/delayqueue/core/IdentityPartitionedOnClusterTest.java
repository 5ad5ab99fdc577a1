package io.github.delayqueue.core;

import io.github.delayqueue.testing.OnTopology;
import io.github.delayqueue.testing.RedisContext;

/** Every test of {@link IdentityTest} again, on a Redis Cluster of 3 masters, each queue split into 6 partitions. */
@OnTopology(OnTopology.Topology.CLUSTER)
class IdentityPartitionedOnClusterTest extends IdentityTest {

    IdentityPartitionedOnClusterTest(RedisContext redis) {
        super(redis);
    }

    @Override
    DelayQueueClient newClient() {
        return PartitionTest.partitioned(redis(), 6);
    }
}
