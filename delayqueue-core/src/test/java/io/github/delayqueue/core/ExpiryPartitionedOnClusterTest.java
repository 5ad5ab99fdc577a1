package io.github.delayqueue.core;

import io.github.delayqueue.testing.OnTopology;
import io.github.delayqueue.testing.RedisContext;

/** Every test of {@link ExpiryTest} again, on a Redis Cluster of 3 masters, each queue split into 6 partitions. */
@OnTopology(OnTopology.Topology.CLUSTER)
class ExpiryPartitionedOnClusterTest extends ExpiryTest {

    ExpiryPartitionedOnClusterTest(RedisContext redis) {
        super(redis);
    }

    @Override
    DelayQueueClient newClient(ClientOptions.Builder options) {
        return super.newClient(options.defaultPartitions(6));
    }
}
