package io.github.delayqueue.spring.it;

import java.time.Duration;

import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.spring.DelayQueueConsumerRegistry;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Closing the application waits for a running handler and acknowledges its message. */
class GracefulShutdownIntegrationTests {

    @Test
    void contextCloseWaitsForARunningHandler() throws Exception {
        String prefix = TestRedis.uniquePrefix();
        ConfigurableApplicationContext context = new SpringApplicationBuilder(TestApplication.class)
                .properties(TestApplication.PROPERTIES)
                .properties("spring.data.redis.url=" + TestRedis.url(), "delayqueue.key-prefix=" + prefix)
                .run();
        RedissonClient redisson = TestRedis.newClient();
        try {
            SlowHandler slow = context.getBean(SlowHandler.class);
            DelayQueueConsumerRegistry registry = context.getBean(DelayQueueConsumerRegistry.class);
            context.getBean(DelayQueueTemplate.class).send(ItQueues.SLOW, "work", Duration.ZERO);
            await().atMost(Duration.ofSeconds(10)).until(() -> slow.started.getCount() == 0);
            assertThat(slow.completed).isFalse();
            // released once the close has begun stopping its consumer, not after a fixed time: the handler took a
            // second, and a loaded machine could finish it before the assertion above or the close
            DelayQueueConsumer consumer = registry.consumer(ItQueues.SLOW).orElseThrow();
            Thread releaser = new Thread(() -> {
                await().atMost(Duration.ofSeconds(30)).until(() -> !consumer.isRunning());
                slow.release.countDown();
            });
            releaser.start();

            context.close();
            releaser.join(10_000);

            assertThat(slow.completed).isTrue();
            assertThat(slow.interrupted).isFalse();
            assertThat(registry.isRunning()).isFalse();
            assertThat(registry.consumers()).isEmpty();
            QueueStats stats = DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix(prefix).build())
                    .stats("SLOW");
            assertThat(stats.inFlight()).isZero();
            assertThat(stats.pending()).isZero();
            assertThat(stats.dead()).isZero();
        } finally {
            context.close();
            redisson.getKeys().unlinkByPattern(prefix + ":*");
            redisson.shutdown();
        }
    }
}
