package io.github.delayqueue.core.schedule;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.testing.RedisContext;

/** Every test of {@link ScheduleTest} again, each queue split into 3 partitions. */
class SchedulePartitionedTest extends ScheduleTest {

    SchedulePartitionedTest(RedisContext redis) {
        super(redis);
    }

    @Override
    DelayQueueClient newClient() {
        ClientOptions.Builder options = ClientOptions.builder().keyPrefix(redis().prefix());
        QUEUES.forEach(queue -> options.partitions(queue, 3));
        return DelayQueueClient.create(redis().redisson(), options.build());
    }
}
