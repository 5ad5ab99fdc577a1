package io.github.delayqueue.core.schedule;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.testing.OnTopology;
import io.github.delayqueue.testing.RedisContext;

/**
 * Every test of {@link ScheduleTest} again on a Redis Cluster of 3 masters, each queue split into 6 partitions: a
 * schedule's keys and its ticks share one slot, or its scripts would be refused.
 */
@OnTopology(OnTopology.Topology.CLUSTER)
class SchedulePartitionedOnClusterTest extends ScheduleTest {

    SchedulePartitionedOnClusterTest(RedisContext redis) {
        super(redis);
    }

    @Override
    DelayQueueClient newClient() {
        ClientOptions.Builder options = ClientOptions.builder().keyPrefix(redis().prefix());
        QUEUES.forEach(queue -> options.partitions(queue, 6));
        return DelayQueueClient.create(redis().redisson(), options.build());
    }
}
