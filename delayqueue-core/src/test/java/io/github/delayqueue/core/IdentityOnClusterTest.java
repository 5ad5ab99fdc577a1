package io.github.delayqueue.core;

import io.github.delayqueue.testing.OnTopology;
import io.github.delayqueue.testing.RedisContext;

/** Every test of {@link IdentityTest} again, on a Redis Cluster of 3 masters and 3 replicas. */
@OnTopology(OnTopology.Topology.CLUSTER)
class IdentityOnClusterTest extends IdentityTest {

    IdentityOnClusterTest(RedisContext redis) {
        super(redis);
    }
}
