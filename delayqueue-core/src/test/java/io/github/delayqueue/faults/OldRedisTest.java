package io.github.delayqueue.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.UnsupportedRedisException;
import redis.embedded.RedisServer;

/**
 * A server without ZMSCORE (Redis before 6.2; here a 6.2 with the command renamed away, which answers the
 * same "unknown command") is refused with a clear error before anything is written, and a consumer on it
 * says so instead of looping on settles that can never work.
 */
class OldRedisTest {

    @Test
    void aServerWithoutZmscoreIsRefusedClearlyAndNothingIsWritten() throws IOException {
        int port = FaultSupport.freePort();
        RedisServer server = RedisServer.newRedisServer().port(port).bind("127.0.0.1").setting("save \"\"")
                .setting("appendonly no").setting("rename-command ZMSCORE \"\"").build();
        server.start();
        RedissonClient redisson = FaultSupport.client("redis://127.0.0.1:" + port, 2_000, 1, 100, false);
        DelayQueueConsumer consumer = null;
        try (FaultSupport.EngineLog log = new FaultSupport.EngineLog()) {
            DelayQueueClient client = DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix("old").build());
            assertThatThrownBy(() -> client.send("orders", "x", Duration.ZERO))
                    .isInstanceOf(UnsupportedRedisException.class)
                    .hasMessageContaining("Redis 6.2 or newer")
                    .hasMessageContaining("6.2."); // the version the server reports
            assertThatThrownBy(() -> client.stats("orders")).isInstanceOf(UnsupportedRedisException.class);
            assertThat(redisson.getKeys().count()).isZero();

            AtomicInteger handled = new AtomicInteger();
            consumer = client.newConsumer("orders", String.class, (p, c) -> handled.incrementAndGet(),
                    ConsumerOptions.builder().build());
            consumer.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> log.contains("Redis 6.2 or newer"));
            assertThat(redisson.getKeys().count()).isZero();
        } finally {
            if (consumer != null) {
                consumer.stop();
            }
            FaultSupport.shutdown(redisson);
            server.stop();
        }
    }
}
