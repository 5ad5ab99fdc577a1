package io.github.delayqueue.spring.it;

import io.github.delayqueue.testing.TestSentinel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import org.springframework.beans.factory.annotation.Autowired;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every test of {@link DelayQueueStarterIntegrationTests} again, with the application pointed at Redis Sentinel (a
 * master, a replica, 3 sentinels) through {@code spring.data.redis.sentinel.master} and {@code .nodes} (which win over
 * the inherited {@code spring.data.redis.url}, as in Boot).
 */
class DelayQueueStarterOnSentinelIntegrationTests extends DelayQueueStarterIntegrationTests {

    @DynamicPropertySource
    static void sentinel(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.sentinel.master", () -> TestSentinel.shared().master());
        registry.add("spring.data.redis.sentinel.nodes", () -> String.join(",", TestSentinel.shared().sentinels()));
    }

    @Autowired
    RedissonClient redisson;

    @Test
    void theStartersClientTalksToSentinelWithTheFailoverSettings() {
        assertThat(this.redisson.getConfig().isSentinelConfig()).isTrue();
        assertThat(((org.redisson.config.SentinelServersConfig) org.springframework.test.util.ReflectionTestUtils
                .invokeMethod(this.redisson.getConfig(), "getSentinelServersConfig")).getScanInterval()).isEqualTo(500);
    }

    @AfterAll
    static void deleteSentinelKeys() {
        RedissonClient redisson = TestSentinel.shared().newClient();
        try {
            redisson.getKeys().unlinkByPattern(PREFIX + ":*");
        } finally {
            redisson.shutdown();
        }
    }
}
