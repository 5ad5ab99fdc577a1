package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.testing.OnTopology;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;
import io.github.delayqueue.testing.TestCluster;

/** A queue of six partitions on a cluster of three masters: two partitions on each master, one queue over all. */
@ExtendWith(RedisExtension.class)
@OnTopology(OnTopology.Topology.CLUSTER)
class PartitionsOnClusterTest {

    private final RedisContext redis;

    PartitionsOnClusterTest(RedisContext redis) {
        this.redis = redis;
    }

    @Test
    void sixPartitionsLandTwoOnEachMasterAndDeliverAsOneQueue() {
        String queue = "spread-over-masters";
        DelayQueueClient client = DelayQueueClient.create(redis.redisson(),
                ClientOptions.builder().keyPrefix(redis.prefix()).partitions(queue, 6).build());
        TestCluster cluster = TestCluster.shared();
        Map<Integer, Integer> partitionsPerMaster = new HashMap<>();
        for (QueueOps part : client.queueRoute(queue).parts()) {
            partitionsPerMaster.merge(cluster.masterPortOf(part.keys().keys().get(1).toString()), 1, Integer::sum);
        }
        Assumptions.assumeTrue(cluster.isEmbedded(), "a cluster of the tests' own: three masters of equal slot ranges");
        assertThat(partitionsPerMaster).hasSize(3).allSatisfy((port, count) -> assertThat(count).isEqualTo(2));

        Map<String, Integer> handled = new ConcurrentHashMap<>();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class,
                (payload, context) -> handled.merge(payload, 1, Integer::sum), ConsumerOptions.DEFAULTS);
        consumer.start();
        try {
            List<SendRequest> requests = new ArrayList<>();
            for (int i = 0; i < 600; i++) {
                requests.add(SendRequest.of("m" + i, Duration.ofMillis(i % 200)));
            }
            client.sendAll(queue, requests);
            await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() == 600);
            assertThat(handled.values()).containsOnly(1);
            assertThat(client.stats(queue).pending()).isZero();
        } finally {
            consumer.stop();
        }
    }
}
