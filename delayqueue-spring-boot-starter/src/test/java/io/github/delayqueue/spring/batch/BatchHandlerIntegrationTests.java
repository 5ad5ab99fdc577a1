package io.github.delayqueue.spring.batch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.batch.BatchApp.Queues;
import io.github.delayqueue.testing.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Batch handlers in a real Boot application against a real Redis: {@code @DelayHandler(batch = "true")} on a method,
 * a {@code DelayBatchMessageHandler} bean, {@code batch-size} from the properties, metrics per message, and a handler
 * of {@code List} payloads that still gets one message at a time.
 */
@SpringBootTest(classes = BatchApp.class)
class BatchHandlerIntegrationTests {

    private static final String PREFIX = TestRedis.uniquePrefix();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", TestRedis::url);
        registry.add("delayqueue.key-prefix", () -> PREFIX);
        registry.add("spring.main.banner-mode", () -> "off");
        registry.add("delayqueue.queues.ROWS.batch-size", () -> "5");
        registry.add("delayqueue.queues.ROWS.retry.initial-backoff", () -> "100ms");
        registry.add("delayqueue.queues.MAILS.batch-wait", () -> "200ms");
    }

    @AfterAll
    static void deleteKeys() {
        TestRedis.deleteKeys(PREFIX);
    }

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    DelayQueueAdmin admin;

    @Autowired
    MeterRegistry meters;

    @Test
    void aBatchMethodGetsAtMostBatchSizeMessagesPerCallAndRetriesOnlyTheNamedOne() {
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            requests.add(SendRequest.of(i == 3 ? "bad" : "row" + i, Duration.ZERO));
        }
        this.template.sendAll(Queues.ROWS, requests);

        await().atMost(Duration.ofSeconds(20)).until(() -> handled(BatchApp.ROW_CALLS).size() >= 12
                && this.admin.stats(Queues.ROWS).pending() == 0 && this.admin.stats(Queues.ROWS).inFlight() == 0);
        assertThat(BatchApp.ROW_CALLS).allSatisfy(call -> assertThat(call).hasSizeBetween(1, 5));
        List<String> handled = handled(BatchApp.ROW_CALLS);
        assertThat(handled).hasSize(12).contains("bad@1", "bad@2");
        assertThat(handled.stream().filter(s -> s.endsWith("@2"))).containsExactly("bad@2");
        // metrics count messages, not calls: 12 handler runs (11 acknowledged, 1 retried), 12 lateness samples
        await().atMost(Duration.ofSeconds(5)).until(() -> handlerRuns("ROWS") == 12);
        Timer lateness = this.meters.find("delayqueue.lateness").tag("queue", "ROWS").timer();
        assertThat(lateness).isNotNull();
        assertThat(lateness.count()).isEqualTo(12);
    }

    @Test
    void aBatchBeanGetsItsBatches() {
        this.template.sendAll(Queues.MAILS, List.of(SendRequest.of("a", Duration.ZERO), SendRequest.of("b", Duration.ZERO)));

        await().atMost(Duration.ofSeconds(20)).until(() -> handled(BatchApp.MAIL_CALLS).size() >= 2);
        assertThat(handled(BatchApp.MAIL_CALLS)).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void aListPayloadWithoutBatchIsOneMessage() {
        this.template.send(Queues.LISTS, List.of("x", "y"), Duration.ZERO);

        await().atMost(Duration.ofSeconds(20)).until(() -> !BatchApp.LISTS_SEEN.isEmpty());
        assertThat(BatchApp.LISTS_SEEN).containsExactly(List.of("x", "y"));
    }

    private long handlerRuns(String queue) {
        return this.meters.find("delayqueue.handler.duration").tag("queue", queue).timers().stream()
                .mapToLong(Timer::count).sum();
    }

    private static List<String> handled(List<List<String>> calls) {
        return calls.stream().flatMap(List::stream).toList();
    }
}
