package io.github.delayqueue.spring.flow;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.spring.DelayQueueConsumerRegistry;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.flow.FlowApp.Queues;
import io.github.delayqueue.testing.TestRedis;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The flow limits of a real Boot application against a real Redis: {@code rate-limit} from the properties,
 * {@code maxInFlight} from {@code @DelayHandler}, and the throttled claims counted by the metrics. (Several
 * instances together are {@code FlowControlTest}'s, in the engine.)
 */
@SpringBootTest(classes = FlowApp.class)
class FlowIntegrationTests {

    private static final String PREFIX = TestRedis.uniquePrefix();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", TestRedis::url);
        registry.add("delayqueue.key-prefix", () -> PREFIX);
        registry.add("spring.main.banner-mode", () -> "off");
        registry.add("delayqueue.queues.LIMITED.rate-limit", () -> "10/1s");
        registry.add("delayqueue.queues.LIMITED.rate-limit-burst", () -> "2");
        // only the next permit (and a settle, under the cap) can wake the consumers in time
        registry.add("delayqueue.consumer.max-poll-interval", () -> "30s");
    }

    @AfterAll
    static void deleteKeys() {
        TestRedis.deleteKeys(PREFIX);
    }

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    MeterRegistry meters;

    @Autowired
    DelayQueueConsumerRegistry registry;

    @Test
    void theStatusShowsEachQueuesLimits() {
        assertThat(this.registry.status()).filteredOn(s -> s.queue().equals("LIMITED")).singleElement().satisfies(s -> {
            assertThat(s.rateLimit()).isEqualTo("10/1s burst 2");
            assertThat(s.maxInFlight()).isNull();
        });
        assertThat(this.registry.status()).filteredOn(s -> s.queue().equals("CAPPED")).singleElement().satisfies(s -> {
            assertThat(s.rateLimit()).isNull();
            assertThat(s.maxInFlight()).isEqualTo(2);
        });
    }

    @Test
    void theQueuesRateLimitFromThePropertiesHoldsAndThrottledClaimsAreCounted() {
        List<SendRequest> batch = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            batch.add(SendRequest.of("m" + i, Duration.ZERO));
        }
        this.template.sendAll(Queues.LIMITED, batch);
        await().atMost(Duration.ofSeconds(20)).until(() -> FlowApp.LIMITED_STARTS.size() >= 25);
        List<Long> starts = new ArrayList<>(FlowApp.LIMITED_STARTS);
        Collections.sort(starts);
        // 10 per second, a burst of 2: at most 12 in any second (a concurrency of 16 alone would take all 25 at once)
        int most = 0;
        for (int i = 0, j = 0; i < starts.size(); i++) {
            while (j < starts.size() && starts.get(j) - starts.get(i) < 1_000_000_000L) {
                j++;
            }
            most = Math.max(most, j - i);
        }
        // never more (the limit); fewer than 10 only when load delays the handlers' starts, so no lower bound here:
        // a limit far below 10/1s would miss the 20 s deadline above
        assertThat(most).isLessThanOrEqualTo(13);
        Counter throttled = this.meters.find("delayqueue.claims.throttled").tags("queue", "LIMITED", "limit", "rate-limit")
                .counter();
        assertThat(throttled).isNotNull();
        assertThat(throttled.count()).isPositive();
    }

    @Test
    void theHandlersMaxInFlightHolds() {
        List<SendRequest> batch = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            batch.add(SendRequest.of("c" + i, Duration.ZERO));
        }
        this.template.sendAll(Queues.CAPPED, batch);
        await().atMost(Duration.ofSeconds(20)).until(() -> FlowApp.CAPPED_DONE.get() >= 30);
        assertThat(FlowApp.CAPPED_MOST.get()).isBetween(1, 2);
        assertThat(this.meters.find("delayqueue.claims.throttled").tags("queue", "CAPPED", "limit", "max-in-flight")
                .counter().count()).isPositive();
    }
}
