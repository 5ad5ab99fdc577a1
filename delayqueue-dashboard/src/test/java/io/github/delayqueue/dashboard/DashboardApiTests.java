package io.github.delayqueue.dashboard;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.SlowDownException;
import io.github.delayqueue.core.history.MessageStatus;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.dashboard.app.DashApp.Email;
import io.github.delayqueue.dashboard.app.DashQueues;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import io.github.delayqueue.core.schedule.ScheduleSpec;
import io.github.delayqueue.spring.schedule.DelayQueueSchedules;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The JSON behind the page, with actions on and Spring Security's CSRF protection: what each route reads, what
 * each action does, and that every bad request gets a 4xx with a message and changes nothing in Redis.
 */
class DashboardApiTests extends DashboardTestSupport {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static JsonNode json(HttpResponse<String> response) {
        return JSON.readTree(response.body());
    }

    private static void assertRefused(HttpResponse<String> response, int status, String message) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).contains("json"));
        assertThat(json(response).path("message").asString()).contains(message);
    }

    private String report(String id, Duration delay) {
        return this.template.send(DashQueues.REPORTS, Map.of("report", id), delay, SendOptions.id(id));
    }

    @Test
    void theOverviewCountsWhatWasSentAndListsThisInstancesConsumers() {
        report("r-1", Duration.ofHours(1));
        report("r-2", Duration.ofHours(2));
        report("r-3", Duration.ZERO);

        JsonNode overview = json(http().get("/api/overview"));
        JsonNode reports = row(overview.path("queues"), "code", "REPORTS");
        assertThat(reports.path("pending").asLong()).isEqualTo(3);
        assertThat(reports.path("ready").asLong()).isEqualTo(1);
        assertThat(reports.path("dead").asLong()).isZero();
        assertThat(reports.path("nextDueInMillis").asLong()).isLessThanOrEqualTo(0);
        assertThat(overview.path("actionsEnabled").asBoolean()).isTrue();
        assertThat(reports.path("paused").asBoolean()).isFalse();
        assertThat(overview.path("metrics").asBoolean()).isTrue();
        assertThat(overview.path("refreshMillis").asLong()).isEqualTo(1000);
        JsonNode emails = row(overview.path("consumers"), "queue", "EMAILS");
        assertThat(emails.path("running").asBoolean()).isTrue();
        assertThat(emails.path("concurrency").asInt()).isEqualTo(16);
        assertThat(overview.path("consumers").valueStream().map(c -> c.path("queue").asString()))
                .containsExactlyInAnyOrder("EMAILS", "SLOW");
    }

    @Test
    void theGroupsTabListsTheGroupsFurthestBehind() {
        assertThat(json(http().get("/api/queues/REPORTS/groups")).path("groups").size()).isZero();
        try {
            groupsTab();
        } finally {
            for (String id : List.of("g-1", "g-2", "g-3")) { // grouped messages are not on the pending page that empties queues
                this.template.cancel(DashQueues.REPORTS, id);
            }
        }
    }

    private void groupsTab() {
        this.template.send(DashQueues.REPORTS, Map.of("report", "g-1"), Duration.ofHours(2),
                SendOptions.id("g-1").group("tenant-b"));
        this.template.send(DashQueues.REPORTS, Map.of("report", "g-2"), Duration.ofHours(1),
                SendOptions.id("g-2").group("tenant-a"));
        this.template.send(DashQueues.REPORTS, Map.of("report", "g-3"), Duration.ofHours(3),
                SendOptions.id("g-3").group("tenant-a"));
        JsonNode page = json(http().get("/api/queues/REPORTS/groups"));
        assertThat(page.path("groups").valueStream().map(g -> g.path("group").asString())).containsExactly("tenant-a", "tenant-b");
        JsonNode a = page.path("groups").get(0);
        assertThat(a.path("pending").asLong()).isEqualTo(2);
        assertThat(a.path("inFlight").asLong()).isZero();
        assertThat(a.path("nextClaimInMillis").asLong()).isPositive();
        assertRefused(http().get("/api/queues/REPORTS/groups?limit=0"), 400, "limit");
    }

    @Test
    void pendingMessagesComeInDueOrderOnePageAtATime() {
        report("r-c", Duration.ofMinutes(30));
        report("r-a", Duration.ofMinutes(10));
        report("r-e", Duration.ofMinutes(50));
        report("r-b", Duration.ofMinutes(20));
        report("r-d", Duration.ofMinutes(40));
        Http http = http();

        JsonNode first = json(http.get("/api/queues/REPORTS/pending?limit=2"));
        assertThat(ids(first.path("messages"))).containsExactly("r-a", "r-b");
        assertThat(first.path("total").asLong()).isEqualTo(5);
        assertThat(first.path("messages").get(0).path("dueInMillis").asLong())
                .isBetween(Duration.ofMinutes(9).toMillis(), Duration.ofMinutes(10).toMillis());
        assertThat(ids(json(http.get("/api/queues/REPORTS/pending?limit=2&offset=2")).path("messages")))
                .containsExactly("r-c", "r-d");
        assertThat(ids(json(http.get("/api/queues/REPORTS/pending?limit=2&offset=4")).path("messages")))
                .containsExactly("r-e");

        assertRefused(http.get("/api/queues/REPORTS/pending?limit=2&offset=6"), 404, "page past the end");
        assertRefused(http.get("/api/queues/REPORTS/pending?offset=-1"), 400, "offset must be a whole number");
        assertRefused(http.get("/api/queues/REPORTS/pending?limit=0"), 400, "limit must be a whole number from 1 to 200");
        assertRefused(http.get("/api/queues/REPORTS/pending?limit=ten"), 400, "limit must be a whole number");
        assertRefused(http.get("/api/queues/REPORTS/dead-letters?offset=3"), 404, "page past the end");
        assertRefused(http.get("/api/queues/NOPE/pending"), 404, "no queue 'NOPE'; declared queues: [EMAILS, REPORTS, SLOW]");
        assertRefused(http.get("/api/queues/NOPE"), 404, "no queue 'NOPE'");
    }

    @Test
    void aMessagesPayloadAndHeadersOnDemandCutToTheLimit() {
        this.template.send(DashQueues.REPORTS, Map.of("report", "big", "body", "x".repeat(20_000)), Duration.ofHours(1),
                SendOptions.id("big").header("tenant", "acme"));
        this.template.send(DashQueues.REPORTS, Map.of("report", "small"), Duration.ofHours(1), SendOptions.id("small"));
        Http http = http();

        JsonNode small = json(http.get("/api/queues/REPORTS/message?id=small"));
        assertThat(small.path("content").path("payload").asString()).isEqualTo("{\"report\":\"small\"}");
        assertThat(small.path("content").path("cut").asBoolean()).isFalse();
        assertThat(small.path("message").path("state").asString()).isEqualTo("PENDING");

        JsonNode big = json(http.get("/api/queues/REPORTS/message?id=big"));
        assertThat(big.path("content").path("cut").asBoolean()).isTrue();
        assertThat(big.path("content").path("payload").asString()).hasSize(16 * 1024);
        assertThat(big.path("content").path("bytes").asInt()).isGreaterThan(20_000);
        assertThat(big.path("content").path("headers").path("tenant").asString()).isEqualTo("acme");

        assertRefused(http.get("/api/queues/REPORTS/message?id=gone"), 404, "no live message 'gone'");
        assertRefused(http.get("/api/queues/REPORTS/message"), 400, "a message id is required");
    }

    @Test
    void cancelRunNowAndRescheduleActOnPendingMessages() {
        report("keep", Duration.ofHours(1));
        report("drop", Duration.ofHours(1));
        this.template.send(DashQueues.EMAILS, new Email("ann@example.com", "soon"), Duration.ofHours(1), SendOptions.id("mail-1"));
        Http http = http().open();

        HttpResponse<String> cancelled = http.post("/api/queues/REPORTS/cancel", "{\"id\":\"drop\"}");
        assertThat(cancelled.statusCode()).as(cancelled.body()).isEqualTo(200);
        assertThat(json(cancelled).path("message").asString()).isEqualTo("Cancelled message drop");
        assertThat(this.admin.message(DashQueues.REPORTS, "drop")).isEmpty();

        Instant later = this.admin.stats(DashQueues.REPORTS).serverTime().plus(Duration.ofHours(3)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        HttpResponse<String> moved = http.post("/api/queues/REPORTS/reschedule", "{\"id\":\"keep\",\"dueAt\":\"" + later + "\"}");
        assertThat(moved.statusCode()).as(moved.body()).isEqualTo(200);
        assertThat(this.admin.message(DashQueues.REPORTS, "keep")).map(QueuedMessage::dueAt).contains(later);

        HttpResponse<String> now = http.post("/api/queues/EMAILS/run-now", "{\"id\":\"mail-1\"}");
        assertThat(now.statusCode()).as(now.body()).isEqualTo(200);
        await().atMost(DEADLINE).until(() -> !this.emails.delivered.isEmpty());
        assertThat(this.emails.delivered).containsExactly(new Email("ann@example.com", "soon"));
    }

    /**
     * A message's priority (SendOptions.priority) shows on the pending and in-flight pages, in the message and in its
     * status; the queue's due messages are counted per priority, the highest first; and the actions that put a message
     * back (reschedule, run now, requeue) keep its priority.
     */
    @Test
    void prioritiesShowOnEveryMessageViewAndTheActionsKeepThem() {
        this.template.send(DashQueues.REPORTS, Map.of("report", "bulk"), Duration.ofMinutes(30), SendOptions.id("bulk").priority(1));
        this.template.send(DashQueues.REPORTS, Map.of("report", "urgent"), Duration.ofHours(1), SendOptions.id("urgent").priority(9));
        report("plain", Duration.ofHours(2));
        Http http = http().open();

        JsonNode pending = json(http.get("/api/queues/REPORTS/pending"));
        assertThat(ids(pending.path("messages"))).containsExactly("bulk", "urgent", "plain");
        assertThat(pending.path("messages").valueStream().map(m -> m.path("priority").asInt())).containsExactly(1, 9, 4);
        assertThat(json(http.get("/api/queues/REPORTS/message?id=urgent")).path("message").path("priority").asInt()).isEqualTo(9);
        JsonNode status = json(http.get("/api/queues/REPORTS/status?id=bulk"));
        assertThat(status.path("live").path("priority").asInt()).isEqualTo(1);
        assertThat(json(http.get("/api/queues/REPORTS")).path("readyByPriority").size()).as("nothing due").isZero();

        // reschedule and run now move a message, in its priority's set: it keeps its priority
        Instant later = this.admin.stats(DashQueues.REPORTS).serverTime().plus(Duration.ofHours(3)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        HttpResponse<String> moved = http.post("/api/queues/REPORTS/reschedule", "{\"id\":\"urgent\",\"dueAt\":\"" + later + "\"}");
        assertThat(moved.statusCode()).as(moved.body()).isEqualTo(200);
        QueuedMessage urgent = this.admin.message(DashQueues.REPORTS, "urgent").orElseThrow();
        assertThat(urgent.dueAt()).isEqualTo(later);
        assertThat(urgent.priority()).isEqualTo(9);
        HttpResponse<String> now = http.post("/api/queues/REPORTS/run-now", "{\"id\":\"bulk\"}");
        assertThat(now.statusCode()).as(now.body()).isEqualTo(200);
        assertThat(this.admin.message(DashQueues.REPORTS, "bulk").map(QueuedMessage::priority)).contains(1);

        // due now per priority, the highest first (REPORTS has no consumer: they stay due)
        this.template.send(DashQueues.REPORTS, Map.of("report", "rush"), Duration.ZERO, SendOptions.id("rush").priority(9));
        this.template.send(DashQueues.REPORTS, Map.of("report", "rush-2"), Duration.ZERO, SendOptions.id("rush-2").priority(9));
        report("now", Duration.ZERO);
        await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.REPORTS).ready() == 4);
        for (JsonNode queue : List.of(json(http.get("/api/queues/REPORTS")),
                row(json(http.get("/api/overview")).path("queues"), "code", "REPORTS"))) {
            assertThat(queue.path("ready").asLong()).isEqualTo(4);
            assertThat(queue.path("readyByPriority").valueStream()
                    .map(p -> p.path("priority").asInt() + ":" + p.path("ready").asLong()))
                    .containsExactly("9:2", "4:1", "1:1");
        }
        // a queue without priorities: its due messages are all of the default priority
        this.admin.pause(DashQueues.EMAILS);
        try {
            this.template.send(DashQueues.EMAILS, new Email("ann@example.com", "p"), Duration.ZERO, SendOptions.id("mail-p"));
            await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.EMAILS).ready() == 1);
            assertThat(json(http.get("/api/queues/EMAILS")).path("readyByPriority").valueStream()
                    .map(p -> p.path("priority").asInt() + ":" + p.path("ready").asLong())).containsExactly("4:1");
        } finally {
            this.admin.resume(DashQueues.EMAILS);
        }
        await().atMost(DEADLINE).until(() -> this.emails.delivered.contains(new Email("ann@example.com", "p")));

        // requeue: a dead letter comes back with its priority (EMAILS paused, so that it stays pending to be read)
        this.emails.failFor.add("full@example.com");
        this.template.send(DashQueues.EMAILS, new Email("full@example.com", "prio"), Duration.ZERO, SendOptions.id("dead-7").priority(7));
        await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.EMAILS).dead() == 1);
        String key = row(json(http.get("/api/queues/EMAILS/dead-letters")).path("deadLetters"), "id", "dead-7").path("key").asString();
        this.admin.pause(DashQueues.EMAILS);
        try {
            HttpResponse<String> requeued = http.post("/api/queues/EMAILS/dead-letters/requeue", "{\"keys\":[\"" + key + "\"]}");
            assertThat(requeued.statusCode()).as(requeued.body()).isEqualTo(200);
            assertThat(this.admin.message(DashQueues.EMAILS, "dead-7").map(QueuedMessage::priority)).contains(7);
            assertThat(json(http.get("/api/queues/EMAILS/pending")).path("messages").get(0).path("priority").asInt()).isEqualTo(7);
        } finally {
            this.emails.failFor.clear();
            this.admin.resume(DashQueues.EMAILS);
        }
        await().atMost(DEADLINE).until(() -> this.emails.delivered.contains(new Email("full@example.com", "prio")));

        // in flight
        this.slow.hold();
        this.template.send(DashQueues.SLOW, "hold", Duration.ZERO, SendOptions.id("held-8").priority(8));
        try {
            await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.SLOW).inFlight() == 1);
            JsonNode held = row(json(http.get("/api/queues/SLOW/in-flight")).path("messages"), "id", "held-8");
            assertThat(held.path("priority").asInt()).isEqualTo(8);
            assertThat(json(http.get("/api/queues/SLOW/status?id=held-8")).path("live").path("priority").asInt()).isEqualTo(8);
        } finally {
            this.slow.release();
        }
    }

    @Test
    void deadLettersShowTheirReasonAndAreRequeuedOrDeleted() {
        this.emails.failFor.add("full@example.com");
        this.template.send(DashQueues.EMAILS, new Email("full@example.com", "one"), Duration.ZERO, SendOptions.id("m-1"));
        this.template.send(DashQueues.EMAILS, new Email("full@example.com", "two"), Duration.ZERO, SendOptions.id("m-2"));
        await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.EMAILS).dead() == 2);
        Http http = http().open();

        JsonNode page = json(http.get("/api/queues/EMAILS/dead-letters"));
        assertThat(page.path("total").asLong()).isEqualTo(2);
        JsonNode first = row(page.path("deadLetters"), "id", "m-1");
        assertThat(first.path("reason").asString()).isEqualTo("java.lang.IllegalStateException: mailbox <full@example.com> is full");
        assertThat(first.path("attempts").asInt()).isEqualTo(1);
        assertThat(first.path("content").path("payload").asString()).contains("\"subject\":\"one\"");
        String key = first.path("key").asString();
        String other = row(page.path("deadLetters"), "id", "m-2").path("key").asString();

        this.emails.failFor.clear();
        HttpResponse<String> requeued = http.post("/api/queues/EMAILS/dead-letters/requeue", "{\"keys\":[\"" + key + "\"]}");
        assertThat(requeued.statusCode()).as(requeued.body()).isEqualTo(200);
        assertThat(json(requeued).path("message").asString()).isEqualTo("Requeued 1 dead letter");
        await().atMost(DEADLINE).until(() -> this.emails.delivered.contains(new Email("full@example.com", "one")));
        assertRefused(http.post("/api/queues/EMAILS/dead-letters/requeue", "{\"keys\":[\"" + key + "\"]}"), 404,
                "the dead letter is gone");

        HttpResponse<String> deleted = http.post("/api/queues/EMAILS/dead-letters/delete", "{\"keys\":[\"" + other + "\"]}");
        assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);
        assertThat(this.admin.stats(DashQueues.EMAILS).dead()).isZero();
        assertRefused(http.post("/api/queues/EMAILS/dead-letters/delete", "{\"keys\":[\"" + other + "\"]}"), 404,
                "requeued or deleted already");
        assertThat(this.emails.delivered).doesNotContain(new Email("full@example.com", "two"));
    }

    @Test
    void badActionsGetAMessageAndChangeNothing() {
        report("stay", Duration.ofHours(1));
        this.emails.failFor.add("full@example.com");
        this.template.send(DashQueues.EMAILS, new Email("full@example.com", "x"), Duration.ZERO, SendOptions.id("dead-1"));
        await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.EMAILS).dead() == 1);
        QueuedMessage before = this.admin.message(DashQueues.REPORTS, "stay").orElseThrow();
        List<DeadLetter> deadBefore = this.admin.deadLetters(DashQueues.EMAILS, 10);
        Http http = http().open();

        assertRefused(http.post("/api/queues/REPORTS/reschedule", "{\"id\":\"stay\",\"dueAt\":\"tomorrow\"}"), 400,
                "dueAt must be an ISO-8601 instant");
        assertRefused(http.post("/api/queues/REPORTS/reschedule", "{\"id\":\"stay\",\"dueAt\":\"2001-01-01T00:00:00Z\"}"), 400,
                "is in the past");
        assertRefused(http.post("/api/queues/REPORTS/reschedule", "{\"id\":\"stay\",\"dueAt\":\"9999-01-01T00:00:00Z\"}"), 400,
                "dueAt must be within");
        assertRefused(http.post("/api/queues/REPORTS/reschedule", "{\"id\":\"stay\"}"), 400, "dueAt is required");
        assertRefused(http.post("/api/queues/REPORTS/reschedule", "{\"id\":\"nobody\",\"dueAt\":\"2030-01-01T00:00:00Z\"}"),
                404, "no live message 'nobody' in queue 'REPORTS'");
        assertRefused(http.post("/api/queues/REPORTS/cancel", "{\"id\":\"nobody\"}"), 404, "no live message 'nobody'");
        assertRefused(http.post("/api/queues/REPORTS/cancel", "{}"), 400, "a message id is required");
        assertRefused(http.post("/api/queues/REPORTS/cancel", "not json"), 400, "the request body must be JSON");
        assertRefused(http.post("/api/queues/REPORTS/run-now", "{\"id\":\"nobody\"}"), 404, "no live message 'nobody'");
        assertRefused(http.post("/api/queues/NOPE/cancel", "{\"id\":\"stay\"}"), 404, "no queue 'NOPE'");
        assertRefused(http.post("/api/queues/EMAILS/dead-letters/requeue", "{\"keys\":[\"dead-1\"]}"), 400,
                "not a dead-letter key: 'dead-1'");
        assertRefused(http.post("/api/queues/EMAILS/dead-letters/requeue", "{\"keys\":[]}"), 400, "give at least one");
        assertRefused(http.post("/api/queues/EMAILS/dead-letters/delete", "{}"), 400, "give at least one");
        assertRefused(http.post("/api/queues/NOPE/pause", "{}"), 404, "no queue 'NOPE'");
        assertRefused(http.post("/api/queues/NOPE/resume", "{}"), 404, "no queue 'NOPE'");

        // Spring Security's CSRF protection: a POST without the page's token is refused before the dashboard sees it
        assertThat(http.postWithoutToken("/api/queues/REPORTS/cancel", "{\"id\":\"stay\"}").statusCode()).isEqualTo(403);
        assertThat(http().post("/api/queues/EMAILS/dead-letters/requeue-all", "{}").statusCode()).isEqualTo(403);

        assertThat(this.admin.message(DashQueues.REPORTS, "stay")).contains(before);
        assertThat(this.admin.deadLetters(DashQueues.EMAILS, 10)).isEqualTo(deadBefore);
        QueueStats reports = this.admin.stats(DashQueues.REPORTS);
        assertThat(reports.pending()).isEqualTo(1);
        assertThat(this.emails.delivered).isEmpty();
    }

    @Test
    void aMessageInFlightShowsItsLeaseAndCannotBeRunNow() {
        this.slow.hold();
        this.template.send(DashQueues.SLOW, "hold", Duration.ZERO, SendOptions.id("held"));
        try {
            await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.SLOW).inFlight() == 1);
            Http http = http().open();
            JsonNode page = json(http.get("/api/queues/SLOW/in-flight"));
            JsonNode held = row(page.path("messages"), "id", "held");
            assertThat(held.path("state").asString()).isEqualTo("IN_FLIGHT");
            assertThat(held.path("attempts").asInt()).isEqualTo(1);
            assertThat(held.path("leaseInMillis").asLong()).isBetween(1L, Duration.ofMinutes(2).toMillis());
            assertThat(Instant.parse(held.path("leaseDeadline").asString())).isAfter(Instant.parse(page.path("serverTime").asString()));
            assertRefused(http.post("/api/queues/SLOW/run-now", "{\"id\":\"held\"}"), 409, "is in flight");
            assertThat(this.admin.stats(DashQueues.SLOW).inFlight()).isEqualTo(1);
        } finally {
            this.slow.release();
        }
    }

    /**
     * SLOW is limited to 1 in flight (and 100/1s) over every instance: with its one message held by the handler, the
     * two due after it stay in Redis, and the queue's view says so, read from Redis; a queue without limits has none.
     */
    @Test
    void aQueueAtItsCapShowsItsFlowFromRedisAndAQueueWithoutLimitsNone() {
        this.slow.hold();
        this.template.send(DashQueues.SLOW, "hold", Duration.ZERO, SendOptions.id("held"));
        try {
            await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.SLOW).inFlight() == 1);
            this.template.send(DashQueues.SLOW, "wait", Duration.ZERO, SendOptions.id("wait-1"));
            this.template.send(DashQueues.SLOW, "wait", Duration.ZERO, SendOptions.id("wait-2"));
            // due times round up to the next millisecond: read once both are due
            await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.SLOW).ready() == 2);
            JsonNode slow = json(http().get("/api/queues/SLOW"));
            assertThat(slow.path("ready").asLong()).isEqualTo(2);
            JsonNode flow = slow.path("flow");
            assertThat(flow.path("rateLimit").asString()).isEqualTo("100/1s");
            assertThat(flow.path("maxInFlight").asInt()).isEqualTo(1);
            assertThat(flow.path("atMaxInFlight").asBoolean()).isTrue();
            assertThat(flow.path("throttled").asLong()).isEqualTo(2);
            assertThat(flow.path("claimsPerSecond").asDouble()).isPositive(); // "held", within the last 10 s
            assertThat(flow.path("holdUntil").isNull()).isTrue(); // the dashboard writes nulls
            assertThat(row(json(http().get("/api/overview")).path("queues"), "code", "SLOW").path("flow").path("throttled")
                    .asLong()).isEqualTo(2);
            assertThat(json(http().get("/api/queues/REPORTS")).path("flow").isNull()).isTrue(); // no limits, no flow
        } finally {
            this.slow.release();
        }
        await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.SLOW).pending() + this.admin.stats(DashQueues.SLOW).inFlight() == 0);
        assertThat(json(http().get("/api/queues/SLOW")).path("flow").path("throttled").asLong()).isZero();
    }

    @Autowired
    org.redisson.api.RedissonClient redisson;

    @org.springframework.beans.factory.annotation.Value("${delayqueue.key-prefix}")
    String prefix;

    @Test
    void aQueueWhoseGroupIsHeldShowsTheHeldMessagesThrottledByGroups() throws Exception {
        // REPORTS has no limits and no handler bean: a consumer of the engine's public API, whose handler throws a
        // SlowDownException for a message of group T, holds T (as a webhook's 429 would); T's next due message is then
        // the queue's only flow control, throttled by it
        String queue = DashQueues.REPORTS.code();
        java.util.concurrent.CountDownLatch slowedDown = new java.util.concurrent.CountDownLatch(1);
        DelayQueueClient client = DelayQueueClient.create(this.redisson,
                ClientOptions.builder().keyPrefix(this.prefix).build());
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            slowedDown.countDown();
            throw new SlowDownException(Duration.ofMinutes(1));
        }, ConsumerOptions.builder().build());
        this.template.send(DashQueues.REPORTS, "r", Duration.ZERO, SendOptions.id("slowed").group("T"));
        consumer.start();
        try {
            assertThat(slowedDown.await(DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        } finally {
            consumer.stop();
        }
        this.template.send(DashQueues.REPORTS, "r", Duration.ZERO, SendOptions.id("grouped").group("T"));
        try {
            await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.REPORTS).ready() == 1);
            JsonNode flow = json(http().get("/api/queues/REPORTS")).path("flow");
            assertThat(flow.path("throttled").asLong()).isEqualTo(1);
            assertThat(flow.path("throttledByGroups").asLong()).isEqualTo(1);
            assertThat(flow.path("rateLimit").isNull()).isTrue();
            assertThat(row(json(http().get("/api/overview")).path("queues"), "code", "REPORTS").path("flow")
                    .path("throttled").asLong()).isEqualTo(1);
        } finally {
            this.template.cancel(DashQueues.REPORTS, "grouped");
            this.template.cancel(DashQueues.REPORTS, "slowed");
        }
        assertThat(json(http().get("/api/queues/REPORTS")).path("flow").isNull()).isTrue();
        // the group's hold outlives its messages (group-idle, and the groups' marker in delayed until then): gone, so
        // the other tests' pages of REPORTS do not hold the marker (key names as docs/internals/redis-layout.md gives them)
        String base = this.prefix + ":{" + queue + "}:";
        this.redisson.getKeys().delete(base + "group-flow", base + "group-idle");
        assertThat(this.redisson.getScoredSortedSet(base + "delayed", org.redisson.client.codec.StringCodec.INSTANCE)
                .remove("|--------\u001f")).isTrue();
    }

    @Test
    void theStatusRouteFollowsAMessageFromPendingToItsRecord() {
        report("st-pending", Duration.ofHours(1));
        JsonNode pending = json(http().get("/api/queues/REPORTS/status?id=st-pending"));
        assertThat(pending.path("queue").asString()).isEqualTo("REPORTS");
        assertThat(pending.path("id").asString()).isEqualTo("st-pending");
        assertThat(pending.path("state").asString()).isEqualTo("pending");
        assertThat(pending.path("live").path("dueInMillis").asLong()).isGreaterThan(Duration.ofMinutes(59).toMillis());
        assertThat(pending.hasNonNull("settled")).isFalse();

        this.slow.hold();
        try {
            this.template.send(DashQueues.SLOW, "hold", Duration.ZERO, SendOptions.id("st-flight"));
            await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.SLOW).inFlight() == 1
                    && this.admin.status(DashQueues.SLOW, "st-flight").running() != null); // its progress wrote it
            JsonNode flight = json(http().get("/api/queues/SLOW/status?id=st-flight"));
            assertThat(flight.path("state").asString()).isEqualTo("in-flight");
            assertThat(flight.path("live").path("leaseInMillis").asLong()).isPositive();
            assertThat(flight.path("live").path("attempts").asInt()).isEqualTo(1);
            // SLOW keeps its history: where and since when it runs
            assertThat(flight.path("running").path("instance").asString()).contains("@");
            assertThat(flight.path("running").path("claimedAgoMillis").asLong()).isNotNegative();
            assertThat(flight.path("running").path("progress").asString()).isEqualTo("\"held\"");
        } finally {
            this.slow.release();
        }

        settled("st-ok", "ann@example.com", MessageStatus.State.COMPLETED);
        this.emails.failFor.add("full@example.com");
        settled("st-dead", "full@example.com", MessageStatus.State.DEAD_LETTERED);
        JsonNode ok = json(http().get("/api/queues/EMAILS/status?id=st-ok"));
        assertThat(ok.path("state").asString()).isEqualTo("completed");
        assertThat(ok.hasNonNull("live")).isFalse();
        JsonNode record = ok.path("settled");
        assertThat(record.path("outcome").asString()).isEqualTo("completed");
        assertThat(record.path("attempts").asInt()).isEqualTo(1);
        assertThat(record.path("instance").asString()).contains("@");
        assertThat(record.path("tookMillis").asLong()).isNotNegative();
        assertThat(record.path("settledAgoMillis").asLong()).isNotNegative();
        assertThat(Instant.parse(record.path("settledAt").asString()))
                .isAfterOrEqualTo(Instant.parse(record.path("claimedAt").asString()));
        assertThat(record.hasNonNull("reason")).isFalse();
        JsonNode dead = json(http().get("/api/queues/EMAILS/status?id=st-dead")).path("settled");
        assertThat(dead.path("outcome").asString()).isEqualTo("dead-lettered");
        assertThat(dead.path("reason").asString()).contains("IllegalStateException").contains("mailbox <full@example.com> is full");

        JsonNode unknown = json(http().get("/api/queues/EMAILS/status?id=never-sent"));
        assertThat(unknown.path("state").asString()).isEqualTo("unknown");
        assertThat(unknown.hasNonNull("live")).isFalse();
        assertThat(unknown.hasNonNull("settled")).isFalse();
    }

    @Test
    void aJobSetReadsWithItsCountsStateAndDeadMembersAndBadInputIsRefused() {
        this.emails.failFor.add("full@example.com");
        String set = this.template.sendSet(JobSet.builder().id("dash-set-" + System.nanoTime())
                .add(DashQueues.EMAILS.code(), List.of(
                        SendRequest.of(new Email("ann@example.com", "s-1"), Duration.ZERO, SendOptions.id("set-ann")),
                        SendRequest.of(new Email("full@example.com", "s-2"), Duration.ZERO, SendOptions.id("set-full"))))
                .onComplete(DashQueues.REPORTS.code(), SendRequest.of(Map.of("report", "campaign"), Duration.ofHours(1)))
                .build());
        await().atMost(DEADLINE).until(() -> this.admin.setStatus(set).orElseThrow().completeSent());

        JsonNode view = json(http().get("/api/sets?id=" + set));
        assertThat(view.path("id").asString()).isEqualTo(set);
        assertThat(view.path("state").asString()).isEqualTo("completed-with-failures");
        assertThat(view.path("total").asLong()).isEqualTo(2);
        assertThat(view.path("pending").asLong()).isZero();
        assertThat(view.path("acknowledged").asLong()).isEqualTo(1);
        assertThat(view.path("dead").asLong()).isEqualTo(1);
        assertThat(view.path("sealed").asBoolean()).isTrue();
        assertThat(view.path("complete").asBoolean()).isTrue();
        assertThat(view.path("successSent").asBoolean()).isFalse();
        assertThat(view.path("completeSent").asBoolean()).isTrue();
        assertThat(Instant.parse(view.path("expiresAt").asString())).isAfter(Instant.parse(view.path("createdAt").asString()));
        assertThat(view.path("deadMembers").size()).isEqualTo(1);
        JsonNode member = view.path("deadMembers").get(0);
        assertThat(member.path("queue").asString()).isEqualTo("EMAILS");
        assertThat(member.path("id").asString()).isEqualTo("set-full");
        assertThat(member.path("declared").asBoolean()).isTrue();

        assertRefused(http().get("/api/sets"), 400, "a set id is required");
        assertRefused(http().get("/api/sets?id=%20"), 400, "a set id is required");
        assertRefused(http().get("/api/sets?id=bad%7Bid%7D"), 400, "set id must be printable ASCII");
        assertRefused(http().get("/api/sets?id=" + "x".repeat(101)), 400, "set id must be at most 100 characters");
        assertRefused(http().get("/api/sets?id=never-sent"), 404, "no job set 'never-sent'");
    }

    @Test
    void theStatusRouteRefusesABadIdOrQueueBeforeReading() {
        assertRefused(http().get("/api/queues/EMAILS/status?id="), 400, "a message id is required");
        assertRefused(http().get("/api/queues/EMAILS/status"), 400, "a message id is required");
        assertRefused(http().get("/api/queues/EMAILS/status?id=%20%20"), 400, "a message id is required");
        assertRefused(http().get("/api/queues/EMAILS/status?id=" + "x".repeat(ClientOptions.MAX_ID_LENGTH + 1)), 400,
                "id must be at most " + ClientOptions.MAX_ID_LENGTH + " characters");
        assertRefused(http().get("/api/queues/EMAILS/status?id=a%01b"), 400, "control characters");
        assertRefused(http().get("/api/queues/NOPE/status?id=x"), 404, "no queue 'NOPE'");
    }

    @Test
    void theHistoryRouteListsTheLatestSettledFirst() {
        settled("h-1", "ann@example.com", MessageStatus.State.COMPLETED);
        settled("h-2", "bob@example.com", MessageStatus.State.COMPLETED);
        this.emails.failFor.add("full@example.com");
        settled("h-3", "full@example.com", MessageStatus.State.DEAD_LETTERED);

        JsonNode page = json(http().get("/api/queues/EMAILS/history?limit=200"));
        assertThat(page.path("queue").asString()).isEqualTo("EMAILS");
        assertThat(page.path("offset").asLong()).isZero();
        assertThat(page.path("limit").asInt()).isEqualTo(200);
        assertThat(page.path("total").asLong()).isGreaterThanOrEqualTo(3);
        List<String> ids = ids(page.path("records"));
        // other tests settle e-mails too (the history is never emptied): only these three's order is asserted
        assertThat(ids.indexOf("h-3")).isNotNegative().isLessThan(ids.indexOf("h-2"));
        assertThat(ids.indexOf("h-2")).isLessThan(ids.indexOf("h-1"));
        assertThat(page.path("records").valueStream().map(r -> Instant.parse(r.path("settledAt").asString())).toList())
                .isSortedAccordingTo(java.util.Comparator.reverseOrder());
        JsonNode dead = row(page.path("records"), "id", "h-3");
        assertThat(dead.path("outcome").asString()).isEqualTo("dead-lettered");
        assertThat(dead.path("reason").asString()).contains("is full");
        assertThat(row(page.path("records"), "id", "h-1").path("outcome").asString()).isEqualTo("completed");
        assertThat(json(http().get("/api/queues/EMAILS/history")).path("limit").asInt()).isEqualTo(DashboardController.DEFAULT_LIMIT);
        JsonNode one = json(http().get("/api/queues/EMAILS/history?offset=1&limit=1"));
        assertThat(one.path("records").size()).isEqualTo(1);
        assertThat(one.path("offset").asLong()).isEqualTo(1);

        JsonNode none = json(http().get("/api/queues/REPORTS/history"));
        assertThat(none.path("total").asLong()).isZero();
        assertThat(none.path("records").size()).isZero();

        assertRefused(http().get("/api/queues/NOPE/history"), 404, "no queue 'NOPE'");
        assertRefused(http().get("/api/queues/EMAILS/history?limit=0"), 400, "limit must be a whole number from 1 to 200");
        assertRefused(http().get("/api/queues/EMAILS/history?limit=201"), 400, "limit must be a whole number from 1 to 200");
        assertRefused(http().get("/api/queues/EMAILS/history?offset=-1"), 400, "offset must be a whole number, 0 or more");
        assertRefused(http().get("/api/queues/EMAILS/history?offset=100000"), 404, "page past the end");
    }

    static JsonNode row(JsonNode rows, String field, String value) {
        return rows.valueStream().filter(r -> r.path(field).asString().equals(value)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + field + "=" + value + " in " + rows));
    }

    static List<String> ids(JsonNode rows) {
        return rows.valueStream().map(r -> r.path("id").asString()).toList();
    }

    @Autowired
    DelayQueueSchedules schedules;

    @Test
    void schedulesAreListedPausedResumedAndTriggeredAndBadInputChangesNothing() {
        this.schedules.put(ScheduleSpec.cron("REPORTS", "nightly", "0 0 2 * * *").zone(java.time.ZoneId.of("Europe/Berlin"))
                .payload(Map.of("report", "nightly")).build());
        try {
            Http http = http().open();
            JsonNode page = json(http.get("/api/queues/REPORTS/schedules"));
            assertThat(page.path("total").asLong()).isEqualTo(1);
            JsonNode nightly = page.path("schedules").get(0);
            assertThat(nightly.path("id").asString()).isEqualTo("nightly");
            assertThat(nightly.path("expression").asString()).isEqualTo("0 0 2 * * *");
            assertThat(nightly.path("zone").asString()).isEqualTo("Europe/Berlin");
            assertThat(nightly.path("paused").asBoolean()).isFalse();
            assertThat(nightly.path("nextTickInMillis").asLong()).isPositive();

            assertThat(http.post("/api/queues/REPORTS/schedules/pause", "{\"id\":\"nightly\"}").statusCode()).isEqualTo(200);
            assertThat(this.schedules.get("REPORTS", "nightly").orElseThrow().paused()).isTrue();
            assertThat(json(http.get("/api/queues/REPORTS/schedules")).path("schedules").get(0).path("paused").asBoolean())
                    .isTrue();
            assertThat(http.post("/api/queues/REPORTS/schedules/resume", "{\"id\":\"nightly\"}").statusCode()).isEqualTo(200);
            assertThat(this.schedules.get("REPORTS", "nightly").orElseThrow().paused()).isFalse();
            HttpResponse<String> triggered = http.post("/api/queues/REPORTS/schedules/trigger", "{\"id\":\"nightly\"}");
            assertThat(json(triggered).path("message").asString()).contains("runs now");

            assertRefused(http.post("/api/queues/REPORTS/schedules/pause", "{\"id\":\"nope\"}"), 400, "no schedule 'nope'");
            assertRefused(http.post("/api/queues/REPORTS/schedules/explode", "{\"id\":\"nightly\"}"), 404,
                    "no schedule action 'explode'");
            assertRefused(http.post("/api/queues/REPORTS/schedules/pause", "{}"), 400, "id");
            assertRefused(http.get("/api/queues/REPORTS/schedules?limit=0"), 400, "limit");
            assertThat(this.schedules.get("REPORTS", "nightly").orElseThrow().paused()).isFalse();
        } finally {
            this.schedules.remove("REPORTS", "nightly");
        }
    }

    /**
     * The queue page's charts read the last hour from the activity counts in Redis: 60 minutes of the Redis clock, the
     * oldest first, with what was handled and failed once the instance added its counts (flushed here rather than at
     * the next minute).
     */
    @Test
    void theLastHourShowsWhatWasHandledAndFailedPerMinute() {
        this.admin.client(DashQueues.EMAILS).flushActivity();
        Http http = http();
        JsonNode before = json(http.get("/api/queues/EMAILS/activity"));
        this.emails.failFor.add("bounce@example.com");
        for (int i = 0; i < 3; i++) {
            this.template.send(DashQueues.EMAILS, new Email("ok@example.com", "activity-" + i), Duration.ZERO);
        }
        this.template.send(DashQueues.EMAILS, new Email("bounce@example.com", "activity"), Duration.ZERO);
        await().atMost(DEADLINE).until(() -> this.emails.delivered.size() == 3 && this.admin.stats(DashQueues.EMAILS).dead() == 1
                && this.admin.stats(DashQueues.EMAILS).inFlight() == 0);
        this.admin.client(DashQueues.EMAILS).flushActivity();

        JsonNode after = json(http.get("/api/queues/EMAILS/activity"));
        assertThat(after.path("queue").asString()).isEqualTo("EMAILS");
        JsonNode minutes = after.path("minutes");
        assertThat(minutes.size()).isEqualTo(60);
        for (int i = 1; i < minutes.size(); i++) {
            assertThat(Instant.parse(minutes.get(i).path("minute").asString()))
                    .isEqualTo(Instant.parse(minutes.get(i - 1).path("minute").asString()).plusSeconds(60));
        }
        assertThat(total(after, "handled") - total(before, "handled")).isEqualTo(3);
        assertThat(total(after, "deadLettered") - total(before, "deadLettered")).isEqualTo(1);
        assertThat(total(after, "failed") - total(before, "failed")).isEqualTo(1);
        assertThat(total(after, "started") - total(before, "started")).isEqualTo(4);
        for (JsonNode minute : minutes) {
            assertThat(minute.path("averageLatenessMs").asLong()).isBetween(0L, minute.path("maxLatenessMs").asLong());
        }
        assertThat(http.get("/api/queues/NOPE/activity").statusCode()).isEqualTo(404);
    }

    private static long total(JsonNode activity, String field) {
        long sum = 0;
        for (JsonNode minute : activity.path("minutes")) {
            sum += minute.path(field).asLong();
        }
        return sum;
    }
}
