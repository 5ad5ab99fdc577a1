package io.github.delayqueue.spring.it;

import io.github.delayqueue.testing.TestCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import org.springframework.beans.factory.annotation.Autowired;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every test of {@link DelayQueueStarterIntegrationTests} again, with the application pointed at a Redis Cluster of
 * 3 masters and 3 replicas through {@code spring.data.redis.cluster.nodes} (which wins over the inherited
 * {@code spring.data.redis.url}, as in Boot).
 */
class DelayQueueStarterOnClusterIntegrationTests extends DelayQueueStarterIntegrationTests {

    @DynamicPropertySource
    static void cluster(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.cluster.nodes", () -> String.join(",", TestCluster.shared().nodes()));
        // two of the queues split over the three masters: the inherited tests deliver, retry and dead-letter on them
        registry.add("delayqueue.queues.ORDER_TIMEOUT.partitions", () -> "3");
        registry.add("delayqueue.queues.FAILING.partitions", () -> "3");
    }

    @Autowired
    io.github.delayqueue.spring.core.QueueCatalog catalog;

    @Test
    void thePartitionedQueuesHaveTheirCountAndItIsRecordedInRedis() {
        assertThat(this.catalog.find("ORDER_TIMEOUT").orElseThrow().client().options().partitions("ORDER_TIMEOUT"))
                .isEqualTo(3);
        assertThat(this.catalog.find("ITEMS").orElseThrow().client().options().partitions("ITEMS")).isEqualTo(1);
        this.template.send(ItQueues.ORDER_TIMEOUT, new Payloads.OrderTimeout("p-" + System.nanoTime(), 1,
                java.time.Instant.now()), java.time.Duration.ofHours(1));
        assertThat(this.redisson.getMap(PREFIX + ":{ORDER_TIMEOUT}:partitions",
                org.redisson.client.codec.StringCodec.INSTANCE).get("count")).isEqualTo("3");
    }

    @Autowired
    RedissonClient redisson;

    @Test
    void theStartersClientTalksToTheClusterWithTheFailoverSettings() {
        assertThat(this.redisson.getConfig().isClusterConfig()).isTrue();
        assertThat(((org.redisson.config.ClusterServersConfig) org.springframework.test.util.ReflectionTestUtils
                .invokeMethod(this.redisson.getConfig(), "getClusterServersConfig")).getScanInterval()).isEqualTo(500);
    }

    @AfterAll
    static void deleteClusterKeys() {
        RedissonClient redisson = TestCluster.shared().newClient();
        try {
            redisson.getKeys().unlinkByPattern(PREFIX + ":*");
        } finally {
            redisson.shutdown();
        }
    }
}
