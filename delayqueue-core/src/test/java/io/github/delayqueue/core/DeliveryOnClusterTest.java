package io.github.delayqueue.core;

import io.github.delayqueue.testing.OnTopology;
import io.github.delayqueue.testing.RedisContext;

/** Every test of {@link DeliveryTest} again, on a Redis Cluster of 3 masters and 3 replicas. */
@OnTopology(OnTopology.Topology.CLUSTER)
class DeliveryOnClusterTest extends DeliveryTest {

    DeliveryOnClusterTest(RedisContext redis) {
        super(redis);
    }
}
