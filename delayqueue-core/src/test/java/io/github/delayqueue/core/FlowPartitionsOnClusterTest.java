package io.github.delayqueue.core;

import org.redisson.api.RedissonClient;

import io.github.delayqueue.testing.OnTopology;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.TestCluster;

/** {@link FlowPartitionsTest} on a Redis Cluster of 3 masters, the queue in 6 partitions spread over them. */
@OnTopology(OnTopology.Topology.CLUSTER)
class FlowPartitionsOnClusterTest extends FlowPartitionsTest {

    FlowPartitionsOnClusterTest(RedisContext redis) {
        super(redis);
    }

    @Override
    RedissonClient newRedisson() {
        return TestCluster.shared().newClient();
    }

    @Override
    int partitions() {
        return 6;
    }
}
