package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * An application starts while Redis is down: with a lazily connecting client, starting a consumer
 * must not wait for Redis. Regression: {@code start()} subscribed to the wake-up channel on the
 * caller's thread, and Redisson connects inside {@code addListenerAsync}, so every consumer held up
 * the application's startup for Redisson's whole retry budget (about 6 s with its defaults).
 */
class StartWithoutRedisTest {

    @Test
    void startReturnsAtOnceWhileRedisIsUnreachable() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        Config config = new Config().setLazyInitialization(true);
        config.useSingleServer().setAddress("redis://127.0.0.1:" + closedPort);
        RedissonClient redisson = Redisson.create(config);
        try {
            DelayQueueConsumer consumer = DelayQueueClient.create(redisson).newConsumer("down", String.class,
                    (payload, context) -> { }, ConsumerOptions.builder().shutdownTimeout(Duration.ofSeconds(1)).build());

            long started = System.nanoTime();
            consumer.start();
            Duration startTook = Duration.ofNanos(System.nanoTime() - started);

            assertThat(startTook).as("start() must not wait for Redis's retry budget").isLessThan(Duration.ofSeconds(2));
            assertThat(consumer.isRunning()).isTrue();
            consumer.stopAsync().get(20, TimeUnit.SECONDS);
            assertThat(consumer.isRunning()).isFalse();
        } finally {
            redisson.shutdown();
        }
    }
}
