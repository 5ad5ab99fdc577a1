package io.github.delayqueue.core;

import io.github.delayqueue.testing.OnTopology;
import io.github.delayqueue.testing.RedisContext;

/**
 * Every test of {@link ActivityTest} again, on a Redis Cluster of 3 masters and 3 replicas: the minute hashes are named
 * by the script from the queue's activity base, in its slot, and the clients of one queue sum into them.
 */
@OnTopology(OnTopology.Topology.CLUSTER)
class ActivityOnClusterTest extends ActivityTest {

    ActivityOnClusterTest(RedisContext redis) {
        super(redis);
    }
}
