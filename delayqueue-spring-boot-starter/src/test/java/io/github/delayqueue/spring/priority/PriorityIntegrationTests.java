package io.github.delayqueue.spring.priority;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.sets.Chain;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.core.SendObserver;
import io.github.delayqueue.spring.core.TransactionAwareDelayQueueTemplate;
import io.github.delayqueue.spring.observation.ObservedSends;
import io.github.delayqueue.spring.priority.PriorityApp.Queues;
import io.github.delayqueue.testing.TestRedis;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Priorities through the starter, in a Boot application against a real Redis: the properties reach the sends
 * ({@code default-priority}) and the claims ({@code strict-priority}, {@code priority-aging}); no path of the template
 * drops a message's priority (observed sends, batches, sets, chains, a transaction's after-commit write); the endpoint
 * shows each message's priority and a queue's ready messages per priority; the gauge counts them. The outbox's path is
 * {@code OutboxContractTests}'; what the claim does with priorities in every case is the engine's
 * {@code PrioritiesTest}.
 */
@SpringBootTest(classes = PriorityApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PriorityIntegrationTests {

    private static final String PREFIX = TestRedis.uniquePrefix();
    private static final Duration DEADLINE = Duration.ofSeconds(20);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", TestRedis::url);
        registry.add("delayqueue.key-prefix", () -> PREFIX);
        registry.add("spring.main.banner-mode", () -> "off");
        registry.add("delayqueue.queues.MAIL.default-priority", () -> "2");
        registry.add("delayqueue.queues.MAIL.strict-priority", () -> "true");
        registry.add("delayqueue.queues.AGED.priority-aging", () -> "1ms");
        registry.add("delayqueue.consumer.batch-size", () -> "1");
        registry.add("delayqueue.producer.observation-enabled", () -> "true"); // the template's sends go through ObservedSends
        registry.add("delayqueue.metrics.refresh-interval", () -> "100ms");
        registry.add("management.endpoints.web.exposure.include", () -> "delayqueue");
    }

    @AfterAll
    static void deleteKeys() {
        TestRedis.deleteKeys(PREFIX);
    }

    @LocalServerPort
    int port;

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    DelayQueueAdmin admin;

    @Autowired
    SendObserver observer;

    @Autowired
    TransactionTemplate transactions;

    @Autowired
    MeterRegistry meters;

    private final HttpClient http = HttpClient.newHttpClient();
    private final JsonMapper json = JsonMapper.builder().build();

    /**
     * Every message is sent an hour ahead and cancelled at the end: none is ever ready, so the other tests' counts and
     * orders are left alone.
     */
    @Test
    void noPathOfTheTemplateDropsAPriorityAndTheQueuesDefaultAppliesToTheRest() {
        assertThat(this.observer).isInstanceOf(ObservedSends.class);
        assertThat(this.template).isInstanceOf(TransactionAwareDelayQueueTemplate.class);
        Duration later = Duration.ofHours(1);
        List<String> sent = new ArrayList<>();

        sent.add(this.template.send(Queues.MAIL, "reset", later, SendOptions.id("t-reset").priority(9)));
        sent.add(this.template.send(Queues.MAIL, "news", later, SendOptions.id("t-news")));
        sent.add(this.template.send(Queues.MAIL, "four", later, SendOptions.id("t-four").priority(4)));
        sent.add(this.template.sendAt(Queues.MAIL, "at", Instant.now().plus(later), SendOptions.id("t-at").priority(0)));
        sent.add(this.template.send(Queues.MAIL, "tenant", later, SendOptions.id("t-grouped").group("tenant-a")));
        sent.addAll(this.template.sendAll(Queues.MAIL, List.of(SendRequest.of("b1", later, SendOptions.id("t-b1").priority(7)),
                SendRequest.of("b2", later, SendOptions.id("t-b2")))));
        assertThat(priority(Queues.MAIL, "t-reset")).isEqualTo(9);
        assertThat(priority(Queues.MAIL, "t-news")).as("the queue's default-priority").isEqualTo(2);
        assertThat(priority(Queues.MAIL, "t-four")).as("a priority given wins, even the engine's default").isEqualTo(4);
        assertThat(priority(Queues.MAIL, "t-at")).isZero();
        assertThat(priority(Queues.MAIL, "t-grouped")).as("a grouped message keeps 4").isEqualTo(4);
        assertThat(priority(Queues.MAIL, "t-b1")).isEqualTo(7);
        assertThat(priority(Queues.MAIL, "t-b2")).isEqualTo(2);

        // another queue has the engine's default
        this.template.send(Queues.PLAIN, "plain", later, SendOptions.id("t-plain"));
        assertThat(priority(Queues.PLAIN, "t-plain")).isEqualTo(4);

        // a job set's members and a chain's first step
        this.template.sendSet(JobSet.builder().add(Queues.MAIL.code(), List.of(
                SendRequest.of("m1", later, SendOptions.id("t-member-1").priority(8)),
                SendRequest.of("m2", later, SendOptions.id("t-member-2")))).build());
        assertThat(priority(Queues.MAIL, "t-member-1")).isEqualTo(8);
        assertThat(priority(Queues.MAIL, "t-member-2")).isEqualTo(2);
        this.template.sendChain(Chain.of(Queues.MAIL.code(), SendRequest.of("c1", later, SendOptions.id("t-step-1").priority(6)))
                .then(Queues.PLAIN.code(), SendRequest.of("c2", later, SendOptions.id("t-step-2").priority(1))));
        assertThat(priority(Queues.MAIL, "t-step-1")).isEqualTo(6);
        sent.addAll(List.of("t-member-1", "t-member-2", "t-step-1"));

        // in a transaction: prepared at the call, written after the commit
        this.transactions.executeWithoutResult(status -> {
            this.template.send(Queues.MAIL, "in-tx", later, SendOptions.id("t-tx").priority(5));
            this.template.send(Queues.MAIL, "in-tx-default", later, SendOptions.id("t-tx-default"));
            assertThat(client(Queues.MAIL).message(Queues.MAIL.code(), "t-tx")).as("not before the commit").isEmpty();
        });
        assertThat(priority(Queues.MAIL, "t-tx")).isEqualTo(5);
        assertThat(priority(Queues.MAIL, "t-tx-default")).isEqualTo(2);
        sent.addAll(List.of("t-tx", "t-tx-default"));

        for (String id : sent) {
            assertThat(this.template.cancel(Queues.MAIL, id)).as(id).isTrue();
        }
        assertThat(this.template.cancel(Queues.PLAIN, "t-plain")).isTrue();
    }

    /**
     * While MAIL is paused its due messages wait: the endpoint and the gauge show them per priority, each message its
     * own; resumed, the one consumer takes the highest priority first (strict), and the gauges read 0.
     */
    @Test
    void aStrictQueueIsDrainedHighestPriorityFirstAndTheEndpointAndTheGaugeShowTheReadyPerPriority() throws Exception {
        this.admin.pause(Queues.MAIL);
        try {
            this.template.send(Queues.MAIL, "low", Duration.ZERO, SendOptions.id("s-low").priority(0));
            this.template.send(Queues.MAIL, "urgent-1", Duration.ZERO, SendOptions.id("s-urgent-1").priority(9));
            this.template.send(Queues.MAIL, "default", Duration.ZERO, SendOptions.id("s-default"));
            this.template.send(Queues.MAIL, "high", Duration.ZERO, SendOptions.id("s-high").priority(7));
            this.template.send(Queues.MAIL, "urgent-2", Duration.ZERO, SendOptions.id("s-urgent-2").priority(9));

            await().atMost(DEADLINE).until(() -> this.admin.stats(Queues.MAIL).ready() == 5);
            assertThat(this.admin.stats(Queues.MAIL).readyByPriority())
                    .containsExactly(Map.entry(9, 2L), Map.entry(7, 1L), Map.entry(2, 1L), Map.entry(0, 1L));

            JsonNode mail = get("/actuator/delayqueue").get("queues").get("MAIL");
            assertThat(mail.get("ready").asLong()).isEqualTo(5);
            assertThat(mail.get("readyByPriority").propertyNames()).containsExactly("9", "7", "2", "0"); // highest first
            assertThat(mail.get("readyByPriority").get("9").asLong()).isEqualTo(2);
            assertThat(mail.get("readyByPriority").get("0").asLong()).isEqualTo(1);
            assertThat(get("/actuator/delayqueue/MAIL").get("queue").get("readyByPriority").get("7").asLong()).isEqualTo(1);
            assertThat(get("/actuator/delayqueue/PLAIN").get("queue").has("readyByPriority")).as("nothing ready").isFalse();
            JsonNode status = get("/actuator/delayqueue/MAIL/messages/s-urgent-1");
            assertThat(status.get("state").asString()).isEqualTo("pending");
            assertThat(status.get("priority").asInt()).isEqualTo(9);
            assertThat(get("/actuator/delayqueue/MAIL/messages/s-default").get("priority").asInt()).isEqualTo(2);
            assertThat(get("/actuator/delayqueue/MAIL/messages/never-sent").has("priority")).isFalse();

            await().atMost(DEADLINE).untilAsserted(() -> {
                assertThat(readyGauge("9")).isEqualTo(2.0);
                assertThat(readyGauge("7")).isEqualTo(1.0);
                assertThat(readyGauge("2")).isEqualTo(1.0);
                assertThat(readyGauge("0")).isEqualTo(1.0);
            });
            assertThat(this.meters.find("delayqueue.queue.ready.priority").tags("queue", "MAIL", "priority", "5").gauge())
                    .as("registered only for the priorities that had ready messages").isNull();
        } finally {
            this.admin.resume(Queues.MAIL);
        }
        await().atMost(DEADLINE).until(() -> PriorityApp.MAIL_HANDLED.size() == 5);
        assertThat(PriorityApp.MAIL_HANDLED).containsExactly("urgent-1", "urgent-2", "high", "default", "low");
        await().atMost(DEADLINE).untilAsserted(() -> {
            for (String priority : List.of("9", "7", "2", "0")) {
                assertThat(readyGauge(priority)).as("still there, and 0: priority %s", priority).isZero();
            }
        });
    }

    /**
     * {@code priority-aging: 1ms} reaches the claim: a priority-9 message due a second ago counts as due 9 ms earlier,
     * so a priority-0 one due ten seconds ago still goes first (with the default minute a level, it would go after).
     */
    @Test
    void aQueuesPriorityAgingReachesItsClaims() {
        Instant now = Instant.now();
        this.admin.pause(Queues.AGED);
        try {
            this.template.sendAt(Queues.AGED, "high-recent", now.minusSeconds(1), SendOptions.none().priority(9));
            this.template.sendAt(Queues.AGED, "low-older", now.minusSeconds(10), SendOptions.none().priority(0));
        } finally {
            this.admin.resume(Queues.AGED);
        }
        await().atMost(DEADLINE).until(() -> PriorityApp.AGED_HANDLED.size() == 2);
        assertThat(PriorityApp.AGED_HANDLED).containsExactly("low-older", "high-recent");
    }

    private int priority(Queues queue, String id) {
        QueuedMessage message = client(queue).message(queue.code(), id).orElseThrow(() -> new AssertionError("no " + id));
        return message.priority();
    }

    private DelayQueueClient client(Queues queue) {
        return this.admin.client(queue);
    }

    private double readyGauge(String priority) {
        Gauge gauge = this.meters.find("delayqueue.queue.ready.priority").tags("queue", "MAIL", "priority", priority).gauge();
        assertThat(gauge).as("gauge of priority %s", priority).isNotNull();
        return gauge.value();
    }

    private JsonNode get(String path) throws Exception {
        HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        return this.json.readTree(response.body());
    }
}
