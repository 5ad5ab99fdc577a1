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
