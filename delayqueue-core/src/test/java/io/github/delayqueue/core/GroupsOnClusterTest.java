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
 * Grouped messages on a Redis Cluster of 3 masters, the queue in 6 partitions spread over them: every key a group
 * script touches is in its partition's slot (a key of another slot fails the script on a cluster), and a group's
 * slow-down holds it on every partition. The properties themselves are {@link GroupsTest}'s.
 */
@ExtendWith(RedisExtension.class)
@OnTopology(OnTopology.Topology.CLUSTER)
class GroupsOnClusterTest {

    private final RedisContext redis;
    private final List<RedissonClient> clients = new ArrayList<>();
    private final List<DelayQueueConsumer> consumers = new ArrayList<>();

    GroupsOnClusterTest(RedisContext redis) {
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
    void groupedMessagesLiveInTheirPartitionsSlotOnACluster() {
        String queue = "groups-cluster";
        DelayQueueClient producer = application(queue);
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        AtomicInteger slowed = new AtomicInteger();
        for (int i = 0; i < 2; i++) {
            DelayQueueConsumer consumer = application(queue).newConsumer(queue, String.class, (payload, context) -> {
                if (payload.equals("S-0") && slowed.getAndIncrement() == 0) {
                    throw new SlowDownException(Duration.ofMillis(300));
                }
                runs.computeIfAbsent(payload, p -> new AtomicInteger()).incrementAndGet();
            }, ConsumerOptions.builder().concurrency(4).groupMaxInFlight(6).groupRateLimit(RateLimit.parse("60/1s"))
                    .maxPollInterval(Duration.ofSeconds(30)).build());
            consumers.add(consumer);
            consumer.start();
        }
        List<SendRequest> requests = new ArrayList<>();
        for (String group : List.of("A", "B", "S")) {
            for (int i = 0; i < 10; i++) {
                requests.add(SendRequest.of(group + "-" + i, Duration.ZERO, SendOptions.id(group + "-" + i).group(group)));
            }
        }
        requests.add(SendRequest.of("plain", Duration.ZERO, SendOptions.id("plain")));
        producer.send(queue, "later", Duration.ofHours(1), SendOptions.id("later").group("A"));
        producer.send(queue, "gone", Duration.ofHours(1), SendOptions.id("gone").group("B"));
        producer.sendAll(queue, requests);
        assertThat(producer.reschedule(queue, "later", Duration.ofMillis(100))).isTrue();
        assertThat(producer.cancel(queue, "gone")).isTrue();

        await().atMost(Duration.ofSeconds(30)).until(() -> runs.size() == 32);
        assertThat(runs.values()).allMatch(n -> n.get() == 1);
        assertThat(slowed).hasValue(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> producer.stats(queue).inFlight() == 0);
        assertThat(producer.stats(queue).pending()).isZero();
        assertThat(producer.groups(queue, 10)).isEmpty();
    }

    /** {@link GroupsTest#groupedAndUngroupedMessagesAreClaimedInDueOrder} on 6 partitions over the cluster's masters. */
    @Test
    void groupedAndUngroupedMessagesAreClaimedInDueOrder() {
        String queue = "groups-cluster-order";
        DelayQueueClient client = application(queue);
        GroupsTest.claimsKeepDueOrder(client, clients.get(clients.size() - 1), redis.prefix(), queue, 6);
    }

    /** {@link GroupsTest#theByteBudgetCutsInDueOrder} on 6 partitions over the cluster's masters. */
    @Test
    void theByteBudgetCutsInDueOrder() {
        String queue = "groups-cluster-budget";
        DelayQueueClient client = application(queue);
        GroupsTest.budgetCutsInDueOrder(client, clients.get(clients.size() - 1), redis.prefix(), queue, 6);
    }
}
