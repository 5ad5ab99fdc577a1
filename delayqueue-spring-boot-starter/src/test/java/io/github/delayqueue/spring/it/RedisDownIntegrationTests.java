package io.github.delayqueue.spring.it;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;

import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.spring.DelayQueueConsumerRegistry;
import io.github.delayqueue.spring.DelayQueueTemplate;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Redis is unreachable when the application starts (a closed port): the application still starts,
 * its consumers run and back off, the health indicator reports DOWN, and a send throws
 * {@link DelayQueueException} after Redisson's retry budget instead of hanging. The timings are
 * logged as "Redis down:" lines for docs/internals/reliability.md; the assertions only bound them loosely.
 */
class RedisDownIntegrationTests {

    private static final Logger log = LoggerFactory.getLogger(RedisDownIntegrationTests.class);

    @Test
    void applicationStartsReportsDownAndSendsFailWithADelayQueueException() throws IOException {
        long startupBegan = System.nanoTime();
        ConfigurableApplicationContext context = new SpringApplicationBuilder(TestApplication.class)
                .properties(TestApplication.PROPERTIES)
                .properties("spring.data.redis.url=redis://127.0.0.1:" + closedPort(),
                        "delayqueue.consumer.shutdown-timeout=1s")
                .run();
        try {
            Duration startup = since(startupBegan);
            log.info("Redis down: application started in {} ms", startup.toMillis());
            assertThat(startup).as("startup must not wait for Redis").isLessThan(Duration.ofSeconds(20));

            DelayQueueConsumerRegistry registry = context.getBean(DelayQueueConsumerRegistry.class);
            assertThat(registry.isRunning()).isTrue();
            assertThat(registry.consumers()).hasSize(6).allMatch(DelayQueueConsumer::isRunning);

            HealthIndicator health = context.getBean("delayQueueHealthIndicator", HealthIndicator.class);
            long healthBegan = System.nanoTime();
            Health first = health.health();
            Duration firstCheck = since(healthBegan);
            healthBegan = System.nanoTime();
            Health second = health.health();
            Duration secondCheck = since(healthBegan);
            log.info("Redis down: health {} in {} ms, again {} in {} ms ({})", first.getStatus(), firstCheck.toMillis(),
                    second.getStatus(), secondCheck.toMillis(), second.getDetails());
            assertThat(first.getStatus()).isEqualTo(Status.DOWN);
            assertThat(second.getStatus()).isEqualTo(Status.DOWN);
            assertThat(firstCheck).isLessThan(Duration.ofSeconds(5));
            assertThat(secondCheck).isLessThan(Duration.ofSeconds(5));

            DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
            long sendBegan = System.nanoTime();
            assertThatExceptionOfType(DelayQueueException.class)
                    .isThrownBy(() -> template.send(ItQueues.SEND_ONLY, "order-1", Duration.ofMinutes(1)))
                    .withMessageContaining("SEND_ONLY")
                    .withMessageContaining("Unable to connect to Redis");
            Duration send = since(sendBegan);
            log.info("Redis down: send failed with DelayQueueException after {} ms", send.toMillis());
            assertThat(send).isLessThan(Duration.ofSeconds(20));

            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(health.health().getDetails())
                    .extractingByKey("error").asString().contains("Unable to connect to Redis"));
        } finally {
            long closeBegan = System.nanoTime();
            context.close();
            log.info("Redis down: context closed in {} ms", since(closeBegan).toMillis());
        }
        // the background warm-up gave up (or was stopped by the close): it leaves no thread behind
        await().atMost(Duration.ofSeconds(10)).until(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().equals("delayqueue-warm-up") && t.isAlive()));
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static Duration since(long nanos) {
        return Duration.ofNanos(System.nanoTime() - nanos);
    }
}
