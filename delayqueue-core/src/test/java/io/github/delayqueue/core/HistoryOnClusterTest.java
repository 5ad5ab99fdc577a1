package io.github.delayqueue.core;

import io.github.delayqueue.testing.OnTopology;
import io.github.delayqueue.testing.RedisContext;

/** Every test of {@link HistoryTest} again, on a Redis Cluster of 3 masters and 3 replicas, each queue in 3 partitions. */
@OnTopology(OnTopology.Topology.CLUSTER)
class HistoryOnClusterTest extends HistoryTest {

    HistoryOnClusterTest(RedisContext redis) {
        super(redis);
    }

    @Override
    ClientOptions.Builder clientOptions() {
        return super.clientOptions().defaultPartitions(3);
    }
}
