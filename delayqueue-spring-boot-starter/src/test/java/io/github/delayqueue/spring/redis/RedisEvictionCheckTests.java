package io.github.delayqueue.spring.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import static org.assertj.core.api.Assertions.assertThat;

/** The startup check of Redis's eviction policy. */
class RedisEvictionCheckTests {

    @Test
    void readsThePolicyOfARealRedis() {
        RedissonClient redisson = TestRedis.newClient();
        try {
            assertThat(RedisEvictionCheck.run(redisson).orTimeout(10, TimeUnit.SECONDS).join())
                    .containsExactly("noeviction");
        } finally {
            redisson.shutdown();
        }
    }

    @Test
    void warnsOnlyForEvictingPolicies() {
        assertThat(RedisEvictionCheck.warnIfEvicting("noeviction")).isFalse();
        assertThat(RedisEvictionCheck.warnIfEvicting(null)).isFalse();
        assertThat(RedisEvictionCheck.warnIfEvicting("allkeys-lru")).isTrue();
        assertThat(RedisEvictionCheck.warnIfEvicting("volatile-ttl")).isTrue();
    }

    @Test
    void neitherBlocksNorFailsWhenRedisIsDown() {
        Config config = new Config();
        config.setLazyInitialization(true); // as the starter's own client: connects on first use
        config.useSingleServer().setAddress("redis://127.0.0.1:1").setTimeout(200).setConnectTimeout(200)
                .setRetryAttempts(0); // fail fast: the test is about the check, not Redisson's retries
        RedissonClient redisson = Redisson.create(config);
        try {
            long start = System.nanoTime();
            CompletableFuture<List<String>> check = RedisEvictionCheck.run(redisson);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
            assertThat(check.orTimeout(30, TimeUnit.SECONDS).join()).isEmpty();
        } finally {
            redisson.shutdown();
        }
    }
}
