package io.github.delayqueue.spring.health;

import java.time.Duration;
import java.util.Map;

import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Health reports paused queues (and stays UP), and goes DOWN naming the queue and the cause when a consumer of
 * this application stopped claiming: here its poller thread is interrupted by another thread, which ends it.
 */
@SpringBootTest(classes = WatchedApp.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
@DirtiesContext // a consumer is broken on purpose: no other test may get this context from the cache
class ConsumerFailureHealthIntegrationTests {

    private static final String PREFIX = TestRedis.uniquePrefix();

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", TestRedis::url);
        registry.add("delayqueue.key-prefix", () -> PREFIX);
        registry.add("spring.main.banner-mode", () -> "off");
    }

    @AfterAll
    static void deleteKeys() {
        TestRedis.deleteKeys(PREFIX);
    }

    @Autowired
    @Qualifier("delayQueueHealthIndicator")
    HealthIndicator health;

    @Autowired
    DelayQueueAdmin admin;

    @Test
    void pausedQueuesAreShownAndAFailedConsumerIsDown() {
        Health up = this.health.health();
        assertThat(up.getStatus()).isEqualTo(Status.UP);
        assertThat(up.getDetails()).containsEntry("paused", java.util.List.of());

        this.admin.pause(WatchedApp.Queues.HEALTH_BYSTANDER);
        Health paused = this.health.health();
        assertThat(paused.getStatus()).isEqualTo(Status.UP);
        assertThat(paused.getDetails()).containsEntry("paused", java.util.List.of("HEALTH_BYSTANDER"));
        assertThat(queueDetails(paused, "HEALTH_BYSTANDER")).containsEntry("paused", true);
        assertThat(queueDetails(paused, "HEALTH_WATCHED")).containsEntry("paused", false);

        Thread poller = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("delayqueue-poller-HEALTH_WATCHED-1")).findFirst().orElseThrow();
        poller.interrupt();
        await().atMost(Duration.ofSeconds(10)).until(() -> this.health.health().getStatus().equals(Status.DOWN));
        Health down = this.health.health();
        assertThat(down.getDetails().get("error").toString()).contains("HEALTH_WATCHED").contains("stopped claiming");
        assertThat(down.getDetails().get("failedConsumers")).isInstanceOfSatisfying(Map.class,
                failed -> assertThat(failed).containsOnlyKeys("HEALTH_WATCHED"));
        assertThat(down.getDetails()).containsKey("queues"); // the statistics are still there
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> queueDetails(Health health, String queue) {
        return ((Map<String, Map<String, Object>>) health.getDetails().get("queues")).get(queue);
    }
}
