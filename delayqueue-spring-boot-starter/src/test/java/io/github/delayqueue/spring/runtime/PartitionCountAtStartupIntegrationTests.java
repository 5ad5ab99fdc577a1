package io.github.delayqueue.spring.runtime;

import java.time.Duration;
import java.util.Map;

import io.github.delayqueue.core.PartitionCountException;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What docs/operations/scaling.md promises of an application started with a partition count other than the one recorded in
 * Redis: it starts, the warm-up logs the mismatch at ERROR, its sends throw {@link PartitionCountException}, its
 * consumer stops claiming and the health indicator reports that consumer DOWN with the message.
 */
@ExtendWith(OutputCaptureExtension.class)
class PartitionCountAtStartupIntegrationTests {

    @Test
    @SuppressWarnings("unchecked")
    void aWrongCountIsLoggedAtStartupAndTheConsumerIsDown(CapturedOutput output) {
        String prefix = TestRedis.uniquePrefix();
        RedissonClient redis = TestRedis.newClient();
        try {
            // another application of the fleet recorded three partitions for the queue
            redis.getMap(prefix + ":{RUNTIME_ORDERS}:partitions", StringCodec.INSTANCE).put("count", "3");
            try (ConfigurableApplicationContext context = new SpringApplicationBuilder(RuntimeApp.class)
                    .properties(RuntimeApp.PROPERTIES).properties("spring.data.redis.url=" + TestRedis.url(),
                            "delayqueue.key-prefix=" + prefix, "delayqueue.warm-up-wait=2m")
                    .run()) {
                // readiness waited for the warm-up: the ERROR line is there when the application is ready
                assertThat(output.getOut().lines().filter(line -> line.contains(" ERROR ")
                        && line.contains("RedisWarmUp"))).singleElement().asString()
                        .contains("queue 'RUNTIME_ORDERS' has 3 partitions recorded in Redis")
                        .contains("this client has 1").contains("its consumers do not claim until the count is fixed");

                assertThatThrownBy(() -> context.getBean(DelayQueueTemplate.class).send(RuntimeApp.Queues.RUNTIME_ORDERS,
                        new RuntimeApp.Order("o-1", 1, java.util.List.of(), java.time.Instant.now()), Duration.ZERO))
                        .isInstanceOf(PartitionCountException.class);

                HealthIndicator health = context.getBean("delayQueueHealthIndicator", HealthIndicator.class);
                await().atMost(Duration.ofSeconds(30)).until(() -> health.health().getDetails()
                        .get("failedConsumers") instanceof Map<?, ?> failed && !failed.isEmpty());
                Health down = health.health();
                assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                assertThat((Map<String, Object>) down.getDetails().get("failedConsumers")).containsOnlyKeys("RUNTIME_ORDERS")
                        .extractingByKey("RUNTIME_ORDERS").asString().contains(PartitionCountException.class.getName())
                        .contains("has 3 partitions recorded");
            }
            // nothing was written by the refused application: the record is the other one's, no message is stored
            assertThat(redis.getMap(prefix + ":{RUNTIME_ORDERS}:partitions", StringCodec.INSTANCE).get("count"))
                    .isEqualTo("3");
            assertThat(redis.getKeys().getKeysByPattern(prefix + ":*")).containsExactly(prefix + ":{RUNTIME_ORDERS}:partitions");
        } finally {
            TestRedis.deleteKeys(prefix);
            redis.shutdown();
        }
    }
}
