package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.protocol.Partitions;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;
import io.github.delayqueue.testing.TestRedis;

/**
 * The flow limits of a partitioned queue, split evenly over its partitions (each partition's keys in their own
 * hash slot, so no one script sees the whole queue), with pause, resume and a slow-down that holds every
 * partition; two applications, each its own Redisson client. {@link FlowPartitionsOnClusterTest} runs it again
 * with the partitions spread over the masters of a cluster.
 */
@ExtendWith(RedisExtension.class)
class FlowPartitionsTest {

    private static final Duration DEADLINE = Duration.ofSeconds(30);

    final RedisContext redis;
    private final List<DelayQueueConsumer> consumers = new ArrayList<>();
    private final List<RedissonClient> clients = new ArrayList<>();

    FlowPartitionsTest(RedisContext redis) {
        this.redis = redis;
    }

    @AfterEach
    void tearDown() {
        consumers.forEach(DelayQueueConsumer::stop);
        clients.forEach(RedissonClient::shutdown);
    }

    /** A Redisson client of its own, for one more application. */
    RedissonClient newRedisson() {
        return TestRedis.newClient();
    }

    /** The partition count; the rate limit is 10/1s and the cap 1 per partition. */
    int partitions() {
        return 3;
    }

    private DelayQueueClient application(String queue) {
        RedissonClient own = newRedisson();
        clients.add(own);
        return DelayQueueClient.create(own, ClientOptions.builder().keyPrefix(redis.prefix())
                .partitions(queue, partitions()).build());
    }

    @Test
    void eachPartitionKeepsItsShareOfTheLimitsThroughPauseAndResumeAndASlowDownHoldsThemAll() {
        String queue = "flow-partitioned";
        int n = partitions();
        int messages = 20 * n;
        // 10/1s and one in flight per partition: the queue's rate 10 n per second, its burst n (one each)
        ConsumerOptions options = ConsumerOptions.builder().concurrency(8).rateLimit(RateLimit.of(10L * n,
                Duration.ofSeconds(1)).withBurst(n)).maxInFlight(n).maxPollInterval(Duration.ofSeconds(30)).build();
        List<Long> starts = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger slowDowns = new AtomicInteger();
        List<Long> startedAtMs = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 2; i++) {
            DelayQueueConsumer consumer = application(queue).newConsumer(queue, String.class, (payload, context) -> {
                most.accumulateAndGet(running.incrementAndGet(), Math::max);
                try {
                    if (payload.equals("slow") && slowDowns.getAndIncrement() == 0) {
                        throw new SlowDownException(Duration.ofSeconds(1));
                    }
                    starts.add(System.nanoTime());
                    startedAtMs.add(System.currentTimeMillis());
                    TimeUnit.MILLISECONDS.sleep(20);
                } finally {
                    running.decrementAndGet();
                }
            }, options);
            consumers.add(consumer);
            consumer.start();
        }
        DelayQueueClient producer = application(queue);
        producer.pause(queue);
        List<SendRequest> batch = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            batch.add(SendRequest.of("m" + i, Duration.ZERO));
        }
        producer.sendAll(queue, batch);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(10)).until(starts::isEmpty);
        producer.resume(queue);

        await().atMost(DEADLINE).until(() -> starts.size() >= messages);
        List<Long> sorted = new ArrayList<>(starts);
        Collections.sort(sorted);
        // 10 n per second with a burst of one per partition: 10 n + n in any window, not the 20 n of a limit per
        // instance (2 applications) nor the unbounded drain of none
        assertThat(FlowControlTest.mostInAnyWindow(sorted, Duration.ofSeconds(1))).isLessThanOrEqualTo(11 * n + 2);
        assertThat(most.get()).isLessThanOrEqualTo(n);

        // a slow-down in one partition holds them all
        producer.send(queue, "slow", Duration.ZERO);
        await().atMost(DEADLINE).until(() -> slowDowns.get() == 1);
        // each partition's hold is its own clock read plus the delay, written one after the other: the earliest end
        // bounds them all (without the holds, the messages below would start a second before it)
        long holdUntil = Long.MAX_VALUE;
        for (int p = 0; p < n; p++) {
            String flowKey = redis.prefix() + ":{" + Partitions.tag(queue, p, n) + "}:flow";
            await().atMost(DEADLINE).until(() -> redis.redisson().getMap(flowKey, StringCodec.INSTANCE).get("hold") != null);
            holdUntil = Math.min(holdUntil,
                    Long.parseLong((String) redis.redisson().getMap(flowKey, StringCodec.INSTANCE).get("hold")));
        }
        int before = startedAtMs.size();
        List<SendRequest> more = new ArrayList<>();
        for (int i = 0; i < 3 * n; i++) {
            more.add(SendRequest.of("n" + i, Duration.ZERO));
        }
        producer.sendAll(queue, more);
        await().atMost(DEADLINE).until(() -> startedAtMs.size() >= before + 3 * n + 1); // and "slow" again
        long hold = holdUntil;
        assertThat(startedAtMs.subList(before, startedAtMs.size())).allSatisfy(at -> assertThat(at).isGreaterThanOrEqualTo(hold));
    }
}
