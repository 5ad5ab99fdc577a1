package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * Threads grow by one poller per queue (plus its handlers); the lease keeper and the settler are one each
 * per client, whatever the number of queues, and are gone when its last consumer stopped.
 */
@ExtendWith(RedisExtension.class)
class ThreadCountTest {

    private static final int QUEUES = 6;

    private final RedisContext redis;

    ThreadCountTest(RedisContext redis) {
        this.redis = redis;
    }

    private static long threads(String regex) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .filter(t -> t.getName().matches(regex)).count();
    }

    @Test
    void onePollerPerQueueAndOneLeaseKeeperAndSettlerPerClient() {
        long keepersBefore = threads("delayqueue-lease-\\d+");
        long settlersBefore = threads("delayqueue-settler-\\d+");
        long watchersBefore = threads("delayqueue-watch-\\d+");
        long flushersBefore = threads("delayqueue-activity-\\d+");
        DelayQueueClient client = redis.client();
        Set<String> handled = ConcurrentHashMap.newKeySet();
        List<DelayQueueConsumer> consumers = new ArrayList<>();
        for (int i = 0; i < QUEUES; i++) {
            String queue = "threads-" + i;
            consumers.add(client.newConsumer(queue, String.class, (payload, context) -> handled.add(payload),
                    ConsumerOptions.builder().visibilityTimeout(Duration.ofMillis(300)).build()));
            client.send(queue, queue, Duration.ZERO);
        }
        consumers.forEach(DelayQueueConsumer::start);
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == QUEUES);
            await().atMost(Duration.ofSeconds(10)).until(() -> consumers.stream()
                    .allMatch(c -> client.stats(c.queue()).inFlight() == 0)); // every queue's ack went through the one settler
            assertThat(threads("delayqueue-poller-threads-\\d+-\\d+")).isEqualTo(QUEUES);
            assertThat(threads("delayqueue-lease-\\d+")).isEqualTo(keepersBefore + 1);
            assertThat(threads("delayqueue-settler-\\d+")).isEqualTo(settlersBefore + 1);
            assertThat(threads("delayqueue-watch-\\d+")).isEqualTo(watchersBefore + 1); // the turns at idle queues
            assertThat(threads("delayqueue-activity-\\d+")).isEqualTo(flushersBefore + 1); // the activity counts' flush
        } finally {
            consumers.forEach(DelayQueueConsumer::stop);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> threads("delayqueue-poller-threads-\\d+-\\d+") == 0
                && threads("delayqueue-lease-\\d+") == keepersBefore && threads("delayqueue-settler-\\d+") == settlersBefore
                && threads("delayqueue-watch-\\d+") == watchersBefore && threads("delayqueue-activity-\\d+") == flushersBefore);
    }
}
