package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

import io.github.delayqueue.testing.OnTopology;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;
import io.github.delayqueue.testing.TestCluster;

/**
 * Prioritized messages on a Redis Cluster of 3 masters, the queue in 6 partitions spread over them: every key a
 * priority touches (its set, delayed's marker) is in its partition's slot (a key of another slot fails the script on
 * a cluster). The properties themselves are {@link PrioritiesTest}'s.
 */
@ExtendWith(RedisExtension.class)
@OnTopology(OnTopology.Topology.CLUSTER)
class PrioritiesOnClusterTest {

    private final RedisContext redis;
    private final List<RedissonClient> clients = new ArrayList<>();
    private final List<DelayQueueConsumer> consumers = new ArrayList<>();

    PrioritiesOnClusterTest(RedisContext redis) {
        this.redis = redis;
    }

    @AfterEach
    void tearDown() {
        consumers.forEach(DelayQueueConsumer::stop);
        clients.forEach(RedissonClient::shutdown);
    }

    private DelayQueueClient application(String queue) {
        RedissonClient own = TestCluster.shared().newClient();
        clients.add(own);
        return DelayQueueClient.create(own, ClientOptions.builder().keyPrefix(redis.prefix()).partitions(queue, 6).build());
    }

    @Test
    void dueMessagesAreClaimedHighestPriorityFirstInEveryPartition() {
        String queue = "prio-cluster-order";
        DelayQueueClient client = application(queue);
        PrioritiesTest.claimsTakeHigherPrioritiesFirst(client, clients.get(clients.size() - 1), redis.prefix(), queue, 6);
    }

    /** Every path on a cluster: sends, retries, reschedule, cancel, stats; each message handled once. */
    @Test
    void prioritizedMessagesLiveInTheirPartitionsSlotOnACluster() {
        String queue = "prio-cluster";
        DelayQueueClient producer = application(queue);
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        AtomicInteger failed = new AtomicInteger();
        DelayQueueConsumer consumer = application(queue).newConsumer(queue, String.class, (payload, context) -> {
            if (payload.equals("fail-once") && failed.getAndIncrement() == 0) {
                throw new IllegalStateException("once");
            }
            runs.computeIfAbsent(context.id(), p -> new AtomicInteger()).incrementAndGet();
        }, ConsumerOptions.builder().concurrency(4).retry(new RetryPolicy(3, Duration.ofMillis(50), 1.0, Duration.ofMillis(50), 0))
                .maxPollInterval(Duration.ofSeconds(30)).build());
        consumers.add(consumer);
        consumer.start();
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            requests.add(SendRequest.of("m", Duration.ZERO, SendOptions.id("m" + i).priority(i % 10)));
        }
        requests.add(SendRequest.of("fail-once", Duration.ZERO, SendOptions.id("fail").priority(9)));
        producer.send(queue, "later", Duration.ofHours(1), SendOptions.id("later").priority(7));
        producer.send(queue, "gone", Duration.ofHours(1), SendOptions.id("gone").priority(2));
        producer.sendAll(queue, requests);
        assertThat(producer.stats(queue).pending()).isGreaterThanOrEqualTo(2);
        assertThat(producer.reschedule(queue, "later", Duration.ofMillis(100))).isTrue();
        assertThat(producer.cancel(queue, "gone")).isTrue();

        await().atMost(Duration.ofSeconds(30)).until(() -> runs.size() == 32);
        assertThat(runs.values()).allMatch(n -> n.get() == 1);
        assertThat(failed).hasValue(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> producer.stats(queue).inFlight() == 0);
        assertThat(producer.stats(queue).pending()).isZero();
    }
}
