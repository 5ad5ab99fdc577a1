package io.github.delayqueue.spring.observability;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.observability.ObservabilityApp.Job;
import io.github.delayqueue.spring.observability.ObservabilityApp.Queues;
import io.github.delayqueue.testing.TestRedis;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.exporter.FinishedSpan;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.tracing.test.autoconfigure.AutoConfigureTracing;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Metrics and traces of a real Boot application against a real Redis ({@link TestRedis}): exact meter values
 * after sends, acks, a retry, a dead letter and an undecodable message; the handler's span in the trace of the
 * observation that sent the message, on its first attempt and on its retry (both observation switches on; the
 * defaults are {@link ObservationsOffByDefaultIntegrationTests}'s).
 */
@SpringBootTest(classes = ObservabilityApp.class)
@AutoConfigureTracing
class ObservabilityIntegrationTests {

    private static final String PREFIX = TestRedis.uniquePrefix();
    private static final Duration DEADLINE = Duration.ofSeconds(20);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", TestRedis::url);
        registry.add("delayqueue.key-prefix", () -> PREFIX);
        registry.add("spring.main.banner-mode", () -> "off");
        registry.add("delayqueue.consumer.retry.max-attempts", () -> "2");
        registry.add("delayqueue.consumer.retry.initial-backoff", () -> "50ms");
        registry.add("delayqueue.metrics.refresh-interval", () -> "200ms");
        registry.add("management.tracing.sampling.probability", () -> "1.0");
        registry.add("delayqueue.producer.observation-enabled", () -> "true"); // opt-in, as Spring Kafka's
        registry.add("delayqueue.consumer.observation-enabled", () -> "true");
        registry.add("delayqueue.queues.KEPT.history.max-count", () -> "3");
        registry.add("delayqueue.queues.AGED.history.max-age", () -> "500ms");
        registry.add("delayqueue.queues.AGED.max-poll-interval", () -> "100ms"); // housekeeping's idle turn: 3 s
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

    @Autowired
    ObservationRegistry observations;

    @Autowired
    Tracer tracer;

    private double count(String name, String... tags) {
        Search search = this.meters.find(name).tags("queue", Queues.COUNTED.code()).tags(tags);
        if (search.counter() != null) {
            return search.counter().count();
        }
        return search.timer() == null ? 0 : search.timer().count();
    }

    private double gauge(String name) {
        return gauge(name, Queues.COUNTED);
    }

    private double gauge(String name, Queues queue) {
        return this.meters.get(name).tag("queue", queue.code()).gauge().value();
    }

    private double trimmed(Queues queue, String reason) {
        Counter counter = this.meters.find("delayqueue.history.trimmed").tags("queue", queue.code(), "reason", reason)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void theHistoryGaugeAndTrimCountersFollowTheBounds() {
        for (int i = 0; i < 10; i++) {
            this.template.send(Queues.KEPT, new Job("kept-" + i), Duration.ZERO);
        }
        this.template.send(Queues.AGED, new Job("aged-1"), Duration.ZERO);
        this.template.send(Queues.AGED, new Job("aged-2"), Duration.ZERO);

        await().atMost(DEADLINE).untilAsserted(() -> {
            assertThat(trimmed(Queues.KEPT, "count")).isEqualTo(7); // 10 settled, 3 kept
            assertThat(gauge("delayqueue.queue.history", Queues.KEPT)).isEqualTo(3);
        });
        assertThat(trimmed(Queues.KEPT, "age")).isZero();
        // the age bound: both records deleted by the housekeeping once older than 500 ms
        await().atMost(DEADLINE).untilAsserted(() -> {
            assertThat(trimmed(Queues.AGED, "age")).isEqualTo(2);
            assertThat(gauge("delayqueue.queue.history", Queues.AGED)).isZero();
        });
        assertThat(trimmed(Queues.AGED, "count")).isZero();
        assertThat(gauge("delayqueue.queue.history")).as("a queue that keeps no history").isZero();
    }

    @Test
    void metersCountWhatHappenedToTheMessagesExactly() {
        for (int i = 0; i < 3; i++) {
            this.template.send(Queues.COUNTED, new Job("ok-" + i), Duration.ZERO);
        }
        this.template.sendAll(Queues.COUNTED, List.of(SendRequest.of(new Job("ok-3"), Duration.ZERO),
                SendRequest.of(new Job("ok-4"), Duration.ZERO, SendOptions.none().replaceExisting())));
        this.template.send(Queues.COUNTED, new Job("fail-1"), Duration.ZERO);
        this.template.send(Queues.COUNTED, "not a job", Duration.ZERO); // cannot be bound to Job
        java.time.Instant now = java.time.Instant.now(); // past its expiry: never claimed, dead-lettered by the claim
        this.template.sendAt(Queues.COUNTED, new Job("late"), now.minusSeconds(10), SendOptions.none().expiresAt(now.minusSeconds(5)));

        await().atMost(DEADLINE).untilAsserted(() -> {
            assertThat(count("delayqueue.messages.acknowledged")).isEqualTo(5);
            assertThat(count("delayqueue.messages.dead", "cause", "handler_failed")).isEqualTo(1);
            assertThat(count("delayqueue.messages.dead", "cause", "undecodable")).isEqualTo(1);
            assertThat(count("delayqueue.messages.dead", "cause", "expired")).isEqualTo(1);
        });
        assertThat(count("delayqueue.messages.expired", "outcome", "dead_lettered")).isEqualTo(1);
        assertThat(count("delayqueue.messages.expired", "outcome", "dropped")).isZero();
        assertThat(count("delayqueue.messages.sent", "mode", "if_absent", "batch", "false")).isEqualTo(6);
        assertThat(count("delayqueue.messages.sent", "mode", "if_absent", "batch", "true")).isEqualTo(1);
        assertThat(count("delayqueue.messages.sent", "mode", "replace", "batch", "true")).isEqualTo(1);
        assertThat(count("delayqueue.send.duration", "outcome", "success")).isEqualTo(8); // one per send call and mode
        assertThat(count("delayqueue.send.errors")).isZero();
        assertThat(count("delayqueue.messages.claimed")).isEqualTo(8); // 7 messages, "fail-1" twice
        assertThat(count("delayqueue.messages.retried")).isEqualTo(1);
        assertThat(count("delayqueue.messages.dead", "cause", "lease_expired")).isZero();
        assertThat(count("delayqueue.leases.expired", "outcome", "redelivered")).isZero();
        assertThat(count("delayqueue.settles.stale")).isZero();
        assertThat(count("delayqueue.handler.duration", "outcome", "acknowledged")).isEqualTo(5);
        assertThat(count("delayqueue.handler.duration", "outcome", "retried")).isEqualTo(1);
        assertThat(count("delayqueue.handler.duration", "outcome", "dead_lettered")).isEqualTo(1);
        assertThat(count("delayqueue.lateness")).isEqualTo(7); // every handler start; none for "not a job"
        assertThat(this.meters.get("delayqueue.lateness").tag("queue", "COUNTED").timer().max(
                java.util.concurrent.TimeUnit.NANOSECONDS)).isGreaterThanOrEqualTo(0);
        // no message id in any tag
        assertThat(this.meters.getMeters()).filteredOn(meter -> meter.getId().getName().startsWith("delayqueue."))
                .isNotEmpty().allSatisfy(meter -> assertThat(meter.getId().getTags())
                        .noneMatch(tag -> tag.getValue().startsWith("ok-") || tag.getKey().contains("id")));

        // the gauges: read from Redis in the background
        await().atMost(DEADLINE).untilAsserted(() -> {
            assertThat(gauge("delayqueue.queue.dead")).isEqualTo(3);
            assertThat(gauge("delayqueue.queue.pending")).isZero();
            assertThat(gauge("delayqueue.queue.ready")).isZero();
            assertThat(gauge("delayqueue.queue.in.flight")).isZero();
        });
        // observations become timers too (Boot's meter observation handler)
        assertThat(this.meters.find("delayqueue.process").tags("queue", "COUNTED", "outcome", "acknowledged").timer())
                .isNotNull().extracting(t -> t.count()).isEqualTo(5L);
    }

    @Test
    void theHandlerRunsInTheTraceOfTheRequestThatSentTheMessageOnEveryAttempt() {
        String[] trace = new String[1];
        String[] ids = new String[2];
        // the application's own observation, as an HTTP request would have
        Observation.createNotStarted("test.request", this.observations).observe(() -> {
            trace[0] = this.tracer.currentSpan().context().traceId();
            ids[0] = this.template.send(Queues.TRACED, new Job("ok"), Duration.ofMillis(200));
            ids[1] = this.template.send(Queues.TRACED, new Job("fail"), Duration.ZERO);
        });
        String ok = ids[0];
        String failing = ids[1];

        await().atMost(DEADLINE).until(() -> ObservabilityApp.HANDLER_TRACES.containsKey(ok + "#1")
                && ObservabilityApp.HANDLER_TRACES.containsKey(failing + "#2"));
        assertThat(trace[0]).isNotBlank();
        assertThat(ObservabilityApp.HANDLER_TRACES).containsEntry(ok + "#1", trace[0])
                .containsEntry(failing + "#1", trace[0]).containsEntry(failing + "#2", trace[0]);

        await().atMost(DEADLINE).until(() -> processSpans(failing).size() == 2 && processSpans(ok).size() == 1);
        List<FinishedSpan> sends = ObservabilityApp.SPANS.stream()
                .filter(s -> s.getName().equals("TRACED send") && s.getTraceId().equals(trace[0])).toList();
        assertThat(sends).hasSize(2).allSatisfy(s -> {
            assertThat(s.getTraceId()).isEqualTo(trace[0]);
            assertThat(s.getTags()).containsEntry("queue", "TRACED").containsEntry("outcome", "success");
        });
        assertThat(processSpans(ok)).singleElement().satisfies(s -> {
            assertThat(s.getTraceId()).isEqualTo(trace[0]);
            assertThat(s.getTags()).containsEntry("outcome", "acknowledged").containsEntry("delayqueue.attempt", "1");
        });
        assertThat(processSpans(failing)).allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(trace[0]))
                .extracting(s -> s.getTags().get("outcome")).containsExactlyInAnyOrder("retried", "dead_lettered");
        // the process span is a child of a send span, not of the request directly
        List<String> sendSpanIds = sends.stream().map(FinishedSpan::getSpanId).toList();
        assertThat(processSpans(ok).get(0).getParentId()).isIn(sendSpanIds);
    }

    @Test
    void aJobSetsMembersRunInTheTraceOfTheRequestThatSentTheSet() {
        String[] trace = new String[1];
        String[] set = new String[1];
        Observation.createNotStarted("test.request", this.observations).observe(() -> {
            trace[0] = this.tracer.currentSpan().context().traceId();
            set[0] = this.template.sendSet(JobSet.builder()
                    .add(Queues.TRACED.code(), List.of(SendRequest.of(new Job("set-1"), Duration.ZERO, SendOptions.id("set-1")),
                            SendRequest.of(new Job("set-2"), Duration.ZERO, SendOptions.id("set-2"))))
                    .build());
        });

        await().atMost(DEADLINE).until(() -> ObservabilityApp.HANDLER_TRACES.containsKey("set-1#1")
                && ObservabilityApp.HANDLER_TRACES.containsKey("set-2#1"));
        assertThat(ObservabilityApp.HANDLER_TRACES).containsEntry("set-1#1", trace[0]).containsEntry("set-2#1", trace[0]);
        assertThat(ObservabilityApp.SPANS).filteredOn(s -> s.getName().equals("TRACED send")
                && s.getTraceId().equals(trace[0])).singleElement()
                .satisfies(s -> assertThat(s.getTags()).containsEntry("queue", "TRACED").containsEntry("outcome", "success"));
        assertThat(this.admin.setStatus(set[0])).isPresent();
    }

    private static List<FinishedSpan> processSpans(String id) {
        return ObservabilityApp.SPANS.stream().filter(s -> s.getName().equals("TRACED process"))
                .filter(s -> id.equals(s.getTags().get("delayqueue.message.id"))).toList();
    }
}
