package io.github.delayqueue.spring.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.actuate.EndpointApp.Queues;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code delayqueue} endpoint through real HTTP, in a Boot application on a random port against the
 * embedded Redis with its writes allowed ({@code management.endpoint.delayqueue.access=unrestricted}), and a
 * second instance of the application on the same Redis and key prefix with the default access (read-only):
 * reads, the write operations, bad input, writes without JSON, and a pause that holds both instances until the
 * resume.
 */
@SpringBootTest(classes = EndpointApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class EndpointHttpIntegrationTests {

    private static final String PREFIX = TestRedis.uniquePrefix();
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final String[] PROPERTIES = { "management.endpoints.web.exposure.include=delayqueue,health",
            "management.endpoint.health.show-details=always", "delayqueue.queues.FAILING.retry.initial-backoff=50ms",
            "delayqueue.queues.FAILING.retry.multiplier=1", "delayqueue.queues.FAILING.retry.jitter=0",
            "delayqueue.queues.WORK.history.max-count=100",
            "spring.main.banner-mode=off" };

    private static ConfigurableApplicationContext second;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", TestRedis::url);
        registry.add("delayqueue.key-prefix", () -> PREFIX);
        registry.add("endpoint-test.instance", () -> "first");
        registry.add("management.endpoint.delayqueue.access", () -> "unrestricted");
        for (String property : PROPERTIES) {
            String[] pair = property.split("=", 2);
            registry.add(pair[0], () -> pair[1]);
        }
    }

    @BeforeAll
    static void startSecondInstance() {
        second = new SpringApplicationBuilder(EndpointApp.class).web(WebApplicationType.SERVLET)
                .properties(PROPERTIES)
                .properties("spring.data.redis.url=" + TestRedis.url(), "delayqueue.key-prefix=" + PREFIX,
                        "endpoint-test.instance=second", "server.port=0")
                .run();
    }

    @AfterAll
    static void stopSecondInstance() {
        if (second != null) {
            second.close();
        }
        TestRedis.deleteKeys(PREFIX);
    }

    @LocalServerPort
    int port;

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    DelayQueueAdmin admin;

    private final HttpClient http = HttpClient.newHttpClient();
    private final JsonMapper json = JsonMapper.builder().build();

    @BeforeEach
    void resumeAll() {
        for (Queues queue : Queues.values()) {
            this.admin.resume(queue);
        }
    }

    @Test
    void readsEveryQueueAndThisInstancesConsumers() throws Exception {
        Response response = get("/actuator/delayqueue");
        assertThat(response.status()).isEqualTo(200);
        JsonNode queues = response.body().get("queues");
        assertThat(queues.propertyNames()).containsExactly("CHARGES", "FAILING", "OUTBOX", "WORK"); // sorted by code
        JsonNode work = queues.get("WORK");
        assertThat(work.get("paused").asBoolean()).isFalse();
        for (String field : new String[] { "pending", "ready", "inFlight", "dead", "latenessMillis" }) {
            assertThat(work.get(field).isNumber()).as(field).isTrue();
        }
        assertThat(work.get("serverTime").asString()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
        assertThat(work.has("flow")).isFalse(); // no limits, no hold: no flow part (FlowIntegrationTests shows one)
        JsonNode consumers = response.body().get("consumers");
        assertThat(consumers.propertyNames()).containsExactlyInAnyOrder("WORK", "FAILING", "CHARGES"); // OUTBOX has none
        JsonNode consumer = consumers.get("WORK");
        assertThat(consumer.get("state").asString()).isEqualTo("RUNNING");
        assertThat(consumer.get("concurrency").asInt()).isEqualTo(2);
        assertThat(consumer.get("activeHandlers").asInt()).isZero();
        assertThat(consumer.get("paused").asBoolean()).isFalse();
        assertThat(consumer.has("failure")).isFalse(); // the actuator leaves out null values

        this.template.send(Queues.OUTBOX, "waits", Duration.ofHours(1));
        JsonNode outbox = get("/actuator/delayqueue").body().get("queues").get("OUTBOX");
        assertThat(outbox.get("pending").asLong()).isEqualTo(1);
        assertThat(outbox.get("ready").asLong()).isZero();
        assertThat(outbox.get("nextDueAt").isString()).isTrue();
    }

    @Test
    void aFailingMessageIsDeadLetteredShownWithoutItsPayloadRequeuedAndDeletedOverHttp() throws Exception {
        String id = this.template.send(Queues.FAILING, "secret-order-7", Duration.ZERO,
                SendOptions.id("failing-7").header("customer", "alice"));
        await().atMost(DEADLINE).until(() -> get("/actuator/delayqueue/FAILING").body().get("deadLetters").size() == 1);

        JsonNode details = get("/actuator/delayqueue/FAILING").body();
        assertThat(details.get("queue").get("dead").asLong()).isEqualTo(1);
        assertThat(details.get("consumer").get("state").asString()).isEqualTo("RUNNING");
        JsonNode dead = details.get("deadLetters").get(0);
        assertThat(dead.get("id").asString()).isEqualTo(id);
        assertThat(dead.get("attempts").asInt()).isEqualTo(2);
        assertThat(dead.get("reason").asString()).contains("IllegalStateException").contains("boom");
        assertThat(dead.get("deadAt").asString()).endsWith("Z");
        assertThat(dead.has("payload")).isFalse(); // payloads may hold personal data: off by default
        assertThat(dead.has("headers")).isFalse();
        assertThat(get("/actuator/delayqueue/FAILING").raw()).doesNotContain("secret-order-7").doesNotContain("alice");
        String key = dead.get("key").asString();
        assertThat(key).endsWith(":" + id);

        // requeue that one dead letter: delivered again, fails twice more, dead again under a new key
        JsonNode requeued = post("/actuator/delayqueue/FAILING/dead-letters/" + key + "/requeue").body();
        assertThat(requeued.get("changed").asLong()).isEqualTo(1);
        assertThat(requeued.get("action").asString()).isEqualTo("requeue");
        assertThat(requeued.get("target").asString()).isEqualTo(key);
        await().atMost(DEADLINE).until(() -> this.admin.deadLetters(Queues.FAILING, 10).size() == 1
                && !this.admin.deadLetters(Queues.FAILING, 10).get(0).key().equals(key));
        // the old key is gone: requeueing it again changes nothing
        assertThat(post("/actuator/delayqueue/FAILING/dead-letters/" + key + "/requeue").body().get("changed").asLong())
                .isZero();

        // requeue all, then delete the dead letter it leaves
        assertThat(post("/actuator/delayqueue/FAILING/requeue-dead-letters").body().get("changed").asLong()).isEqualTo(1);
        await().atMost(DEADLINE).until(() -> this.admin.stats(Queues.FAILING).dead() == 1
                && this.admin.stats(Queues.FAILING).pending() == 0 && this.admin.stats(Queues.FAILING).inFlight() == 0);
        String last = this.admin.deadLetters(Queues.FAILING, 10).get(0).key();
        Response deleted = delete("/actuator/delayqueue/FAILING/dead-letters/" + last);
        assertThat(deleted.status()).isEqualTo(200);
        assertThat(deleted.body().get("changed").asLong()).isEqualTo(1);
        assertThat(deleted.body().get("action").asString()).isEqualTo("delete");
        assertThat(this.admin.stats(Queues.FAILING).dead()).isZero();
        assertThat(delete("/actuator/delayqueue/FAILING/dead-letters/" + last).body().get("changed").asLong()).isZero();
    }

    /**
     * With payloads hidden, a dead letter's reason says which type and field failed and how, never a value: not the
     * one Jackson quotes, not the token of malformed JSON, not the text of a corrupt envelope or its headers.
     */
    @Test
    void aReasonNamesTheTypeAndTheFieldButNoValueOfThePayload() throws Exception {
        String secret = "4111-1111-SECRET";
        this.template.send(Queues.CHARGES, Map.of("customer", "carol", "amountCents", secret), Duration.ZERO,
                SendOptions.id("charge-wrong-type"));
        // what a corruption or another tool may leave, written with plain Redis commands
        long now = this.admin.stats(Queues.CHARGES).serverTime().toEpochMilli();
        RedissonClient redis = TestRedis.newClient();
        try {
            plant(redis, "charge-not-json", "1:%s:" + now + ":0:{\"customer\": " + secret + "}");
            plant(redis, "charge-headers-past-the-end", "1:%s:" + now + ":99:{\"authorization\":\"" + secret + "\"}{}");
            String headers = "{\"authorization\": [\"" + secret + "\"]}";
            plant(redis, "charge-headers-not-strings", "1:%s:" + now + ":" + headers.length() + ":" + headers + "{}");
            plant(redis, "charge-unknown-format", secret + ":not an envelope");
        } finally {
            redis.shutdown();
        }
        await().atMost(DEADLINE).until(() -> this.admin.deadLetters(Queues.CHARGES, 10).size() == 5);

        Map<String, String> reasons = new HashMap<>();
        for (DeadLetter dead : this.admin.deadLetters(Queues.CHARGES, 10)) {
            reasons.put(dead.id(), dead.reason());
        }
        assertThat(reasons.values()).allSatisfy(reason -> assertThat(reason).doesNotContain("4111").doesNotContain("SECRET"));
        assertThat(get("/actuator/delayqueue/CHARGES").raw()).contains("charge-wrong-type").doesNotContain("4111");
        assertThat(reasons.get("charge-wrong-type")).contains(EndpointApp.Charge.class.getName()).contains("amountCents")
                .contains("int");
        assertThat(reasons.get("charge-not-json")).contains(EndpointApp.Charge.class.getName()).contains("line 1");
        assertThat(reasons.get("charge-headers-past-the-end")).contains("corrupt envelope").contains("headers");
        assertThat(reasons.get("charge-headers-not-strings")).contains("corrupt envelope").contains("authorization");
        assertThat(reasons.get("charge-unknown-format")).contains("unknown envelope format");
    }

    private static final AtomicLong SEQUENCE = new AtomicLong(0x5e0000000000L);

    /** A format-1 entry, due long ago, with its sequence put where {@code %s} stands (if anywhere). */
    private static void plant(RedissonClient redis, String id, String stored) {
        String seq = String.format("%012x", SEQUENCE.incrementAndGet());
        String base = PREFIX + ":{" + Queues.CHARGES.code() + "}:";
        redis.getMap(base + "messages", StringCodec.INSTANCE).put(id, stored.replace("%s", seq));
        redis.getScoredSortedSet(base + "delayed", StringCodec.INSTANCE).add(0, seq + id);
    }

    /**
     * A job set over HTTP: its counts, state, callbacks sent and dead members (each naming its queue, whose dead
     * letters hold it); a set never sent a 404, an id no set can have a 400. The dead member's dead letter is deleted
     * at the end, and its complete callback cancelled: other tests count FAILING's dead letters and OUTBOX's pending.
     */
    @Test
    void aJobSetsStatusReadsOverHttpWithItsDeadMembers() throws Exception {
        String id = "campaign-" + System.nanoTime();
        this.template.sendSet(JobSet.builder().id(id)
                .add(Queues.WORK.code(), List.of(SendRequest.of("set-a", Duration.ZERO, SendOptions.id(id + "-a")),
                        SendRequest.of("set-b", Duration.ZERO, SendOptions.id(id + "-b"))))
                .add(Queues.FAILING.code(), SendRequest.of("set-c", Duration.ZERO, SendOptions.id(id + "-c")))
                .onComplete(Queues.OUTBOX.code(), SendRequest.of("report", Duration.ofHours(1), SendOptions.id(id + "-report")))
                .build());
        await().atMost(DEADLINE).until(() -> get("/actuator/delayqueue/sets/" + id).body().get("complete").asBoolean());
        Response response = get("/actuator/delayqueue/sets/" + id);
        assertThat(response.status()).isEqualTo(200);
        JsonNode set = response.body();
        assertThat(set.get("id").asString()).isEqualTo(id);
        assertThat(set.get("total").asLong()).isEqualTo(3);
        assertThat(set.get("pending").asLong()).isZero();
        assertThat(set.get("acknowledged").asLong()).isEqualTo(2);
        assertThat(set.get("dead").asLong()).isEqualTo(1);
        assertThat(set.get("cancelled").asLong()).isZero();
        assertThat(set.get("sealed").asBoolean()).isTrue();
        assertThat(set.get("successSent").asBoolean()).isFalse();
        assertThat(set.get("completeSent").asBoolean()).isTrue();
        assertThat(set.get("createdAt").asString()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
        assertThat(Instant.parse(set.get("expiresAt").asString()))
                .isAfter(Instant.parse(set.get("createdAt").asString()).plus(Duration.ofDays(6)));
        assertThat(set.has("parent")).isFalse(); // the actuator leaves out null values
        assertThat(set.get("deadMembers")).hasSize(1);
        assertThat(set.get("deadMembers").get(0).get("queue").asString()).isEqualTo("FAILING");
        assertThat(set.get("deadMembers").get(0).get("id").asString()).isEqualTo(id + "-c");
        assertThat(get("/actuator/delayqueue/sets/" + id + "?limit=0").status()).isEqualTo(400);

        assertThat(get("/actuator/delayqueue/sets/never-sent-" + System.nanoTime()).status()).isEqualTo(404);
        assertThat(get("/actuator/delayqueue/sets/bad%7Bid%7D").status()).isEqualTo(400);
        assertThat(get("/actuator/delayqueue/sets/" + "x".repeat(101)).status()).isEqualTo(400);

        DeadLetter dead = this.admin.deadLetters(Queues.FAILING, 100).stream().filter(d -> d.id().equals(id + "-c"))
                .findFirst().orElseThrow();
        assertThat(this.admin.purge(Queues.FAILING, List.of(dead.key()))).isEqualTo(1);
        assertThat(this.admin.cancel(Queues.OUTBOX, id + ":" + id + "-report")).isTrue(); // another test counts OUTBOX's pending
    }

    @Test
    void aMessagesStatusReadsOverHttpFromPendingToCompleted() throws Exception {
        this.template.send(Queues.WORK, "status-payload", Duration.ofHours(1), SendOptions.id("status-me"));
        Response pending = get("/actuator/delayqueue/WORK/messages/status-me");
        assertThat(pending.status()).isEqualTo(200);
        assertThat(pending.body().get("state").asString()).isEqualTo("pending");
        assertThat(pending.body().get("dueAt").asString()).isNotEmpty();
        assertThat(pending.body().has("payload") && !pending.body().get("payload").isNull())
                .as("no payload without show-payloads").isFalse();

        assertThat(post("/actuator/delayqueue/WORK/messages/status-me/run-now").body().get("changed").asLong()).isEqualTo(1);
        await().atMost(DEADLINE).until(() -> "completed".equals(
                get("/actuator/delayqueue/WORK/messages/status-me").body().get("state").asString()));
        Response completed = get("/actuator/delayqueue/WORK/messages/status-me");
        assertThat(completed.body().get("attempts").asInt()).isEqualTo(1);
        assertThat(completed.body().get("instance").asString()).contains("@");
        assertThat(completed.body().get("settledAt").asString()).isNotEmpty();
        // the @DelayHandler method's return value and its progress, nested as the JSON they were encoded as
        assertThat(completed.body().get("result").get("length").asInt()).isEqualTo("status-payload".length());
        assertThat(completed.body().get("progress").get("started").asBoolean()).isTrue();

        // a return value too large to keep is dropped, not a reason to run the handler again
        this.template.send(Queues.WORK, "huge-payload", Duration.ZERO, SendOptions.id("huge-result"));
        await().atMost(DEADLINE).until(() -> "completed".equals(
                get("/actuator/delayqueue/WORK/messages/huge-result").body().get("state").asString()));
        Response huge = get("/actuator/delayqueue/WORK/messages/huge-result");
        assertThat(huge.body().get("attempts").asInt()).isEqualTo(1);
        assertThat(huge.body().has("result") && !huge.body().get("result").isNull()).isFalse();

        assertThat(get("/actuator/delayqueue/WORK/messages/never-sent").body().get("state").asString()).isEqualTo("unknown");
        assertThat(get("/actuator/delayqueue/NOT_A_QUEUE/messages/status-me").status()).isEqualTo(404);
        assertThat(get("/actuator/delayqueue/WORK/other/status-me").status()).isEqualTo(404);
    }

    /**
     * The history over HTTP: the latest settled first, each record's fields; an undeclared queue a 404, bad bounds a
     * 400, a queue that keeps no history an empty page. Other tests settle messages of WORK too: only the order of this
     * test's two and the page's own order are asserted.
     */
    @Test
    void theHistoryReadsOverHttpTheLatestSettledFirst() throws Exception {
        for (String id : List.of("history-first", "history-second")) {
            this.template.send(Queues.WORK, "history-payload", Duration.ZERO, SendOptions.id(id));
            await().atMost(DEADLINE).until(() -> "completed".equals(
                    get("/actuator/delayqueue/WORK/messages/" + id).body().get("state").asString()));
        }

        Response page = get("/actuator/delayqueue/WORK/history?limit=100");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body().get("queue").asString()).isEqualTo("WORK");
        assertThat(page.body().get("offset").asLong()).isZero();
        assertThat(page.body().get("total").asLong()).isGreaterThanOrEqualTo(2);
        List<String> ids = new java.util.ArrayList<>();
        List<Instant> settled = new java.util.ArrayList<>();
        for (JsonNode record : page.body().get("records")) {
            ids.add(record.get("id").asString());
            settled.add(Instant.parse(record.get("settledAt").asString()));
        }
        assertThat(ids).contains("history-first", "history-second");
        assertThat(ids.indexOf("history-second")).isLessThan(ids.indexOf("history-first"));
        assertThat(settled).isSortedAccordingTo(java.util.Comparator.reverseOrder());
        JsonNode second = page.body().get("records").get(ids.indexOf("history-second"));
        assertThat(second.get("outcome").asString()).isEqualTo("completed");
        assertThat(second.get("attempts").asInt()).isEqualTo(1);
        assertThat(second.get("instance").asString()).contains("@");
        assertThat(second.get("tookMillis").asLong()).isNotNegative();
        assertThat(Instant.parse(second.get("claimedAt").asString()))
                .isAfterOrEqualTo(Instant.parse(second.get("dueAt").asString()));
        assertThat(second.hasNonNull("reason")).isFalse();
        assertThat(get("/actuator/delayqueue/WORK/history?limit=1").body().get("records").size()).isEqualTo(1);
        assertThat(get("/actuator/delayqueue/WORK/history").body().get("records").size())
                .isLessThanOrEqualTo(DelayQueueEndpoint.DEFAULT_DEAD_LETTERS);

        Response none = get("/actuator/delayqueue/OUTBOX/history");
        assertThat(none.status()).isEqualTo(200);
        assertThat(none.body().get("total").asLong()).isZero();
        assertThat(none.body().get("records").size()).isZero();

        assertThat(get("/actuator/delayqueue/NOT_A_QUEUE/history").status()).isEqualTo(404);
        assertThat(get("/actuator/delayqueue/WORK/history?limit=0").status()).isEqualTo(400);
        assertThat(get("/actuator/delayqueue/WORK/history?limit=101").status()).isEqualTo(400);
        assertThat(get("/actuator/delayqueue/WORK/history?limit=many").status()).isEqualTo(400);
        assertThat(get("/actuator/delayqueue/WORK/history?offset=-1").status()).isEqualTo(400);
    }

    /**
     * {@code {queue}/activity}: the last 60 minutes, summed over both instances once each has added its counts
     * (flushed here rather than at the next minute).
     */
    @Test
    void aQueuesLastHourSumsWhatBothInstancesHandledAndFailed() throws Exception {
        DelayQueueAdmin secondAdmin = second.getBean(DelayQueueAdmin.class);
        await().atMost(DEADLINE).until(() -> this.admin.stats(Queues.FAILING).pending() == 0
                && this.admin.stats(Queues.FAILING).inFlight() == 0);
        flushBothInstances(secondAdmin);
        long[] before = { activityTotal("WORK", "handled"), activityTotal("FAILING", "retried"),
                activityTotal("FAILING", "deadLettered"), activityTotal("FAILING", "failed") };

        for (int i = 0; i < 4; i++) {
            this.template.send(Queues.WORK, "activity-" + i, Duration.ZERO);
        }
        long dead = this.admin.stats(Queues.FAILING).dead();
        this.template.send(Queues.FAILING, "activity-failing", Duration.ZERO);
        await().atMost(DEADLINE).until(() -> EndpointApp.HANDLED.stream().filter(h -> h.endsWith(":activity-0")
                || h.endsWith(":activity-1") || h.endsWith(":activity-2") || h.endsWith(":activity-3")).count() == 4
                && this.admin.stats(Queues.WORK).inFlight() == 0 && this.admin.stats(Queues.FAILING).dead() == dead + 1);
        flushBothInstances(secondAdmin);

        Response work = get("/actuator/delayqueue/WORK/activity");
        assertThat(work.status()).isEqualTo(200);
        assertThat(work.body().get("queue").asString()).isEqualTo("WORK");
        JsonNode minutes = work.body().get("minutes");
        assertThat(minutes.size()).isEqualTo(60);
        assertThat(Instant.parse(minutes.get(59).get("minute").asString()))
                .isEqualTo(Instant.parse(minutes.get(58).get("minute").asString()).plusSeconds(60));
        for (String field : new String[] { "handled", "retried", "deadLettered", "failed", "started", "averageLatenessMs",
                "maxLatenessMs" }) {
            assertThat(minutes.get(59).get(field).isNumber()).as(field).isTrue();
        }
        assertThat(activityTotal("WORK", "handled") - before[0]).isEqualTo(4);
        assertThat(activityTotal("FAILING", "retried") - before[1]).isEqualTo(1);
        assertThat(activityTotal("FAILING", "deadLettered") - before[2]).isEqualTo(1);
        assertThat(activityTotal("FAILING", "failed") - before[3]).isEqualTo(2);
        assertThat(this.admin.activity(Queues.WORK)).hasSize(60);
        assertThat(get("/actuator/delayqueue/NOT_A_QUEUE/activity").status()).isEqualTo(404);
    }

    private void flushBothInstances(DelayQueueAdmin secondAdmin) {
        this.admin.client(Queues.WORK).flushActivity();
        this.admin.client(Queues.FAILING).flushActivity();
        secondAdmin.client(Queues.WORK).flushActivity();
        secondAdmin.client(Queues.FAILING).flushActivity();
    }

    private long activityTotal(String queue, String field) throws IOException, InterruptedException {
        long total = 0;
        for (JsonNode minute : get("/actuator/delayqueue/" + queue + "/activity").body().get("minutes")) {
            total += minute.get(field).asLong();
        }
        return total;
    }

    @Test
    void cancelAndRunNowOverHttp() throws Exception {
        this.template.send(Queues.WORK, "cancelled-payload", Duration.ofHours(1), SendOptions.id("cancel-me"));
        this.template.send(Queues.WORK, "run-now-payload", Duration.ofHours(1), SendOptions.id("run-me"));

        Response cancelled = delete("/actuator/delayqueue/WORK/messages/cancel-me");
        assertThat(cancelled.status()).isEqualTo(200);
        assertThat(cancelled.body().get("changed").asLong()).isEqualTo(1);
        assertThat(cancelled.body().get("action").asString()).isEqualTo("cancel");
        assertThat(delete("/actuator/delayqueue/WORK/messages/cancel-me").body().get("changed").asLong()).isZero();

        Response ran = post("/actuator/delayqueue/WORK/messages/run-me/run-now");
        assertThat(ran.body().get("changed").asLong()).isEqualTo(1);
        await().atMost(DEADLINE).until(() -> EndpointApp.HANDLED.stream().anyMatch(h -> h.endsWith(":run-now-payload")));
        // handled and acknowledged: no pending message has that id any more
        await().atMost(DEADLINE).until(() -> post("/actuator/delayqueue/WORK/messages/run-me/run-now").body()
                .get("changed").asLong() == 0);
        assertThat(EndpointApp.HANDLED).noneMatch(h -> h.endsWith(":cancelled-payload"));
    }

    @Test
    void aPauseOverHttpHoldsBothInstancesAndTheResumeDeliversEverything() throws Exception {
        Response paused = post("/actuator/delayqueue/WORK/pause");
        assertThat(paused.status()).isEqualTo(200);
        assertThat(paused.body().get("paused").asBoolean()).isTrue();
        assertThat(paused.body().get("changed").asLong()).isEqualTo(1);
        assertThat(post("/actuator/delayqueue/WORK/pause").body().get("changed").asLong()).isZero(); // already paused

        JsonNode read = get("/actuator/delayqueue").body();
        assertThat(read.get("queues").get("WORK").get("paused").asBoolean()).isTrue();
        assertThat(read.get("consumers").get("WORK").get("state").asString()).isEqualTo("PAUSED");
        assertThat(read.get("queues").get("FAILING").get("paused").asBoolean()).isFalse();
        JsonNode health = get("/actuator/health").body();
        assertThat(health.get("status").asString()).isEqualTo("UP"); // pausing is a decision, not an outage
        JsonNode delayQueueHealth = health.get("components").get("delayQueue");
        assertThat(delayQueueHealth.get("details").get("paused").get(0).asString()).isEqualTo("WORK");
        assertThat(delayQueueHealth.get("details").get("queues").get("WORK").get("paused").asBoolean()).isTrue();

        int before = EndpointApp.HANDLED.size();
        for (int i = 0; i < 20; i++) {
            this.template.send(Queues.WORK, "held-" + i, Duration.ZERO); // sends go on while paused
        }
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                .until(() -> EndpointApp.HANDLED.size() == before);
        assertThat(this.admin.stats(Queues.WORK).ready()).isEqualTo(20);
        assertThat(get("/actuator/delayqueue/WORK").body().get("queue").get("latenessMillis").asLong()).isPositive();

        Response resumed = post("/actuator/delayqueue/WORK/resume");
        assertThat(resumed.body().get("paused").asBoolean()).isFalse();
        assertThat(resumed.body().get("changed").asLong()).isEqualTo(1);
        await().atMost(DEADLINE).until(() -> EndpointApp.HANDLED.stream().filter(h -> h.contains(":held-")).count() == 20);
        assertThat(EndpointApp.HANDLED).anyMatch(h -> h.startsWith("first:held-"))
                .anyMatch(h -> h.startsWith("second:held-"));
        assertThat(this.admin.isPaused(Queues.WORK)).isFalse();
    }

    @Test
    void byDefaultTheEndpointIsReadOnly() throws Exception {
        String other = "http://localhost:" + second.getEnvironment().getProperty("local.server.port");
        assertThat(send(HttpRequest.newBuilder(URI.create(other + "/actuator/delayqueue")).GET()).status()).isEqualTo(200);
        Response pause = send(json(HttpRequest.newBuilder(URI.create(other + "/actuator/delayqueue/WORK/pause"))));
        // no write is mapped; the path is a read's ({queue}/schedules) in shape, so Spring may say 405
        assertThat(pause.status()).isIn(404, 405);
        Response requeue = send(json(HttpRequest.newBuilder(URI.create(other + "/actuator/delayqueue/FAILING/requeue-dead-letters"))));
        assertThat(requeue.status()).isIn(404, 405);
        this.template.send(Queues.OUTBOX, "kept", Duration.ofHours(1), SendOptions.id("kept-read-only"));
        Response cancel = send(HttpRequest.newBuilder(URI.create(other + "/actuator/delayqueue/OUTBOX/messages/kept-read-only")).DELETE());
        assertThat(cancel.status()).isIn(404, 405); // the path is a read's (one queue) in part: Spring may say 405
        assertThat(this.admin.isPaused(Queues.WORK)).isFalse();
        assertThat(this.admin.cancel(Queues.OUTBOX, "kept-read-only")).isTrue(); // still there
    }

    /**
     * A write needs Content-Type application/json. What a page on another origin may send without a CORS
     * preflight (an HTML form: form-encoded, multipart, text/plain; a {@code no-cors} fetch: the same, or nothing)
     * is a 415 and changes nothing; {@code DashboardForgeryBrowserTests} sends them from Chromium.
     */
    @Test
    void aWriteWithoutJsonIsRefusedAndChangesNothing() throws Exception {
        URI pause = uri("/actuator/delayqueue/WORK/pause");
        List<HttpRequest.Builder> forgeable = List.of(
                HttpRequest.newBuilder(pause).POST(HttpRequest.BodyPublishers.noBody()),
                HttpRequest.newBuilder(pause).header("Content-Type", "text/plain;charset=UTF-8")
                        .POST(HttpRequest.BodyPublishers.ofString("{}")),
                HttpRequest.newBuilder(pause).header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString("note=x")),
                HttpRequest.newBuilder(pause).header("Content-Type", "multipart/form-data; boundary=b")
                        .POST(HttpRequest.BodyPublishers.ofString("--b\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nx\r\n--b--\r\n")));
        for (HttpRequest.Builder request : forgeable) {
            assertThat(send(request).status()).isEqualTo(415);
        }
        this.template.send(Queues.OUTBOX, "kept", Duration.ofHours(1), SendOptions.id("kept-no-json"));
        assertThat(send(HttpRequest.newBuilder(uri("/actuator/delayqueue/OUTBOX/messages/kept-no-json/run-now"))
                .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("{}"))).status()).isEqualTo(415);
        assertThat(this.admin.isPaused(Queues.WORK)).isFalse();
        assertThat(this.admin.pending(Queues.OUTBOX, 0, 100).messages()).anySatisfy(m -> {
            assertThat(m.id()).isEqualTo("kept-no-json");
            assertThat(m.dueAt()).isAfter(Instant.now().plus(Duration.ofMinutes(30))); // not run now
        });
        assertThat(this.admin.cancel(Queues.OUTBOX, "kept-no-json")).isTrue(); // the other tests count OUTBOX

        // with JSON, the same write works, a note or none
        Response paused = send(HttpRequest.newBuilder(pause).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"note\": \"incident 7\"}")));
        assertThat(paused.status()).isEqualTo(200);
        assertThat(paused.body().get("paused").asBoolean()).isTrue();
        assertThat(send(HttpRequest.newBuilder(uri("/actuator/delayqueue/WORK/resume")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.noBody())).status()).isEqualTo(200);
        assertThat(this.admin.isPaused(Queues.WORK)).isFalse();
    }

    @Test
    void badInputIsA4xxAndChangesNothing() throws Exception {
        this.template.send(Queues.OUTBOX, "kept", Duration.ofHours(1), SendOptions.id("kept"));
        long pendingBefore = this.admin.stats(Queues.OUTBOX).pending();

        assertThat(get("/actuator/delayqueue/NO_SUCH_QUEUE").status()).isEqualTo(404);
        assertThat(get("/actuator/delayqueue/WORK?limit=0").status()).isEqualTo(400);
        assertThat(get("/actuator/delayqueue/WORK?limit=101").status()).isEqualTo(400);
        assertThat(get("/actuator/delayqueue/WORK?limit=many").status()).isEqualTo(400);
        assertThat(post("/actuator/delayqueue/NO_SUCH_QUEUE/pause").status()).isEqualTo(400);
        assertThat(post("/actuator/delayqueue/OUTBOX/explode").status()).isEqualTo(400);
        assertThat(post("/actuator/delayqueue/OUTBOX/messages/kept/explode").status()).isEqualTo(400);
        assertThat(post("/actuator/delayqueue/OUTBOX/things/kept/run-now").status()).isEqualTo(400);
        assertThat(post("/actuator/delayqueue/OUTBOX/dead-letters/not-a-key/requeue").status()).isEqualTo(400);
        assertThat(delete("/actuator/delayqueue/OUTBOX/dead-letters/not-a-key").status()).isEqualTo(400);
        assertThat(delete("/actuator/delayqueue/OUTBOX/things/kept").status()).isEqualTo(400);
        assertThat(delete("/actuator/delayqueue/NO_SUCH_QUEUE/messages/kept").status()).isEqualTo(400);
        assertThat(delete("/actuator/delayqueue/OUTBOX/messages/" + "x".repeat(257)).status()).isEqualTo(400);

        for (Queues queue : Queues.values()) {
            assertThat(this.admin.isPaused(queue)).as(queue.code()).isFalse();
        }
        assertThat(this.admin.stats(Queues.OUTBOX).pending()).isEqualTo(pendingBefore);
        assertThat(this.admin.cancel(Queues.OUTBOX, "kept")).isTrue(); // still there after all of the above
    }

    private Response get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    /** A write as a script sends it: JSON, here without a note. */
    private Response post(String path) throws IOException, InterruptedException {
        return send(json(HttpRequest.newBuilder(uri(path))));
    }

    private static HttpRequest.Builder json(HttpRequest.Builder request) {
        return request.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}"));
    }

    private Response delete(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).DELETE());
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + this.port + path);
    }

    private Response send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        String body = response.body();
        JsonNode node;
        try {
            node = body == null || body.isBlank() ? this.json.nullNode() : this.json.readTree(body);
        } catch (RuntimeException e) { // an error page that is not JSON: only the status matters then
            node = this.json.nullNode();
        }
        return new Response(response.statusCode(), node, body);
    }

    record Response(int status, JsonNode body, String raw) {
    }
}
