package io.github.delayqueue.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.RetryPolicy;
import io.github.delayqueue.core.activity.ActivityMinute;
import io.github.delayqueue.testing.TestRedis;

/**
 * The activity counts over a Redis that is down (SIGKILLed, then started again on its port): the flush made while it
 * is down fails without throwing and keeps the counts; the consumer carries on after the restart, and the next flush
 * writes what was counted before the outage and after it.
 */
class ActivityRedisDownTest {

    private static final Duration BOUND = Duration.ofSeconds(30);

    @Test
    void countsKeptWhileRedisIsDownAreWrittenOnceItIsBack() {
        String queue = "activity-down";
        try (FaultSupport.OwnRedis server = new FaultSupport.OwnRedis().start()) {
            RedissonClient redisson = FaultSupport.client(server.url(), 1_000, 1, 100, false);
            DelayQueueConsumer consumer = null;
            try {
                DelayQueueClient client = DelayQueueClient.create(redisson,
                        ClientOptions.builder().keyPrefix(TestRedis.uniquePrefix()).build());
                Set<String> handled = ConcurrentHashMap.newKeySet();
                consumer = client.newConsumer(queue, String.class, (payload, context) -> {
                    if (payload.startsWith("fail")) {
                        throw new IllegalStateException("fails on purpose");
                    }
                    handled.add(payload);
                }, ConsumerOptions.builder().maxPollInterval(Duration.ofMillis(200))
                        .retry(new RetryPolicy(1, Duration.ofMillis(10), 1, Duration.ofMillis(10), 0)).build());
                consumer.start();
                for (String payload : List.of("a", "b", "c", "fail")) {
                    client.send(queue, payload, Duration.ZERO);
                }
                await().atMost(BOUND).until(() -> settled(client, queue, 1));

                server.crash();
                client.flushActivity(); // fails in Redis: logged, never thrown, the counts kept
                server.start();

                await("Redis answers again").atMost(BOUND).ignoreExceptions().until(() -> client.stats(queue) != null);
                client.send(queue, "after", Duration.ZERO); // once: a send retried after a lost reply could count twice
                await().atMost(BOUND).until(() -> handled.contains("after") && settled(client, queue, 1));
                client.flushActivity();
                List<ActivityMinute> minutes = client.activity(queue);
                assertThat(minutes.stream().mapToLong(ActivityMinute::handled).sum()).isEqualTo(4);
                assertThat(minutes.stream().mapToLong(ActivityMinute::deadLettered).sum()).isEqualTo(1);
                assertThat(minutes.stream().mapToLong(ActivityMinute::started).sum()).isEqualTo(5);
            } finally {
                if (consumer != null) {
                    consumer.stop();
                }
                redisson.shutdown();
            }
        }
    }

    private static boolean settled(DelayQueueClient client, String queue, long dead) {
        QueueStats stats = client.stats(queue);
        return stats.pending() == 0 && stats.inFlight() == 0 && stats.dead() == dead;
    }
}
