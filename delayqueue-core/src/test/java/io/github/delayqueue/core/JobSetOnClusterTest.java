package io.github.delayqueue.core;

import io.github.delayqueue.testing.OnTopology;
import io.github.delayqueue.testing.RedisContext;

/**
 * Every test of {@link JobSetTest} again, on a Redis Cluster of 3 masters and 3 replicas, each queue in 3 partitions:
 * a set's own keys and its members' partitions in different slots.
 */
@OnTopology(OnTopology.Topology.CLUSTER)
class JobSetOnClusterTest extends JobSetTest {

    JobSetOnClusterTest(RedisContext redis) {
        super(redis);
    }

    @Override
    ClientOptions.Builder clientOptions() {
        return super.clientOptions().defaultPartitions(3);
    }
}
