package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.QueueRoute;
import io.github.delayqueue.core.sets.Chain;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.core.sets.SetStatus;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * Job sets: callbacks sent exactly once and never early, members added from inside a running member, dead members
 * requeued by hand, chains, marks left by an instance that died between its settle and the forward, and bad input.
 * The partitioned and Cluster variants run every test again.
 */
@ExtendWith(RedisExtension.class)
class JobSetTest {

    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final RetryPolicy ONCE = new RetryPolicy(1, Duration.ofMillis(10), 1, Duration.ofMillis(10), 0);

    private final RedisContext redis;
    private DelayQueueClient client;
    private final List<DelayQueueConsumer> consumers = new CopyOnWriteArrayList<>();
    /** Callback messages handled, per queue: their headers. */
    private final Map<String, List<Map<String, String>>> callbacks = new ConcurrentHashMap<>();

    JobSetTest(RedisContext redis) {
        this.redis = redis;
    }

    ClientOptions.Builder clientOptions() {
        return ClientOptions.builder().keyPrefix(redis.prefix());
    }

    @BeforeEach
    void setUp() {
        client = DelayQueueClient.create(redis.redisson(), clientOptions().build());
    }

    @AfterEach
    void tearDown() {
        consumers.forEach(DelayQueueConsumer::stop);
    }

    private void consume(DelayQueueClient on, String queue, MessageHandler<String> handler, ConsumerOptions options) {
        DelayQueueConsumer consumer = on.newConsumer(queue, String.class, handler, options);
        consumers.add(consumer);
        consumer.start();
    }

    private void consume(String queue, MessageHandler<String> handler) {
        consume(client, queue, handler, ConsumerOptions.builder().retry(ONCE).concurrency(4).build());
    }

    /** Records the callbacks that reach {@code queue}. */
    private List<Map<String, String>> callbackQueue(String queue) {
        List<Map<String, String>> seen = callbacks.computeIfAbsent(queue, q -> new CopyOnWriteArrayList<>());
        consume(queue, (payload, context) -> seen.add(context.headers()));
        return seen;
    }

    private static List<SendRequest> messages(String prefix, int count) {
        List<SendRequest> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(SendRequest.of(prefix + i, Duration.ZERO, SendOptions.id(prefix + i)));
        }
        return out;
    }

    @Test
    void successAndCompleteAreSentOnceWhenEveryMemberIsAcknowledged() throws Exception {
        Set<String> handled = ConcurrentHashMap.newKeySet();
        AtomicInteger handledWhenSuccess = new AtomicInteger(-1);
        List<Map<String, String>> done = new CopyOnWriteArrayList<>();
        consume("done", (payload, context) -> {
            handledWhenSuccess.compareAndSet(-1, handled.size());
            done.add(context.headers());
        });
        consume("mails", (payload, context) -> handled.add(payload));
        consume("texts", (payload, context) -> handled.add(payload));
        String set = client.sendSet(JobSet.builder()
                .add("mails", messages("m", 300))
                .add("texts", messages("t", 200))
                .onSuccess("done", SendRequest.of("report", Duration.ZERO, SendOptions.none().header("campaign", "42")))
                .onComplete("done", SendRequest.of("closed", Duration.ZERO))
                .build());
        await().atMost(BOUND).until(() -> done.size() == 2);
        Thread.sleep(500); // a second send would come within this
        assertThat(done).hasSize(2);
        assertThat(handledWhenSuccess.get()).as("members handled when the first callback ran").isEqualTo(500);
        assertThat(done).extracting(h -> h.get(JobSet.EVENT_HEADER)).containsExactlyInAnyOrder("success", "complete");
        assertThat(done).allSatisfy(h -> assertThat(h).containsEntry(JobSet.SET_ID_HEADER, set));
        assertThat(done).filteredOn(h -> "success".equals(h.get(JobSet.EVENT_HEADER)))
                .allSatisfy(h -> assertThat(h).containsEntry("campaign", "42"));
        SetStatus status = client.setStatus(set).orElseThrow();
        assertThat(status.total()).isEqualTo(500);
        assertThat(status.acknowledged()).isEqualTo(500);
        assertThat(status.pending()).isZero();
        assertThat(status.dead()).isZero();
        assertThat(status.sealed()).isTrue();
        assertThat(status.complete()).isTrue();
        assertThat(status.successSent()).isTrue();
        assertThat(status.completeSent()).isTrue();
        assertThat(status.expiresAt()).isAfter(status.createdAt().plus(JobSet.DEFAULT_RETENTION.minusMinutes(1)));
    }

    @Test
    void aMemberHandledOnSeveralInstancesWithRetriesCountsOnce() throws Exception {
        String queue = "busy";
        Set<String> handled = ConcurrentHashMap.newKeySet();
        List<Map<String, String>> done = callbackQueue("busy-done");
        String set = client.sendSet(JobSet.builder()
                .add(queue, messages("b", 2_000))
                .onSuccess("busy-done", SendRequest.of("ok", Duration.ZERO))
                .build());
        RetryPolicy retries = new RetryPolicy(5, Duration.ofMillis(5), 1, Duration.ofMillis(5), 0);
        for (int i = 0; i < 3; i++) {
            DelayQueueClient instance = DelayQueueClient.create(redis.redisson(), clientOptions().build());
            consume(instance, queue, (payload, context) -> {
                if (context.attempt() == 1 && ThreadLocalRandom.current().nextInt(10) == 0) { // retried, never dead
                    throw new IllegalStateException("flaky");
                }
                handled.add(payload);
            }, ConsumerOptions.builder().retry(retries).concurrency(8).build());
        }
        await().atMost(BOUND).until(() -> done.size() == 1);
        assertThat(handled).hasSize(2_000);
        Thread.sleep(500);
        assertThat(done).hasSize(1);
        assertThat(client.setStatus(set).orElseThrow().acknowledged()).isEqualTo(2_000);
    }

    @Test
    void aDeadMemberSendsItsDeathAndCompletesTheSetAndOnceRequeuedAndHandledTheSuccess() throws Exception {
        List<Map<String, String>> done = callbackQueue("d-done");
        Set<String> failing = ConcurrentHashMap.newKeySet();
        failing.add("x1");
        consume("work", (payload, context) -> {
            if (failing.contains(payload)) {
                throw new IllegalStateException("boom");
            }
        });
        String set = client.sendSet(JobSet.builder()
                .add("work", messages("x", 5))
                .onSuccess("d-done", SendRequest.of("ok", Duration.ZERO))
                .onComplete("d-done", SendRequest.of("closed", Duration.ZERO))
                .onDeath("d-done", SendRequest.of("died", Duration.ZERO))
                .build());
        await().atMost(BOUND).until(() -> done.size() == 2);
        assertThat(done).extracting(h -> h.get(JobSet.EVENT_HEADER)).containsExactlyInAnyOrder("death", "complete");
        assertThat(done).filteredOn(h -> "death".equals(h.get(JobSet.EVENT_HEADER)))
                .allSatisfy(h -> assertThat(h).containsEntry(JobSet.MEMBER_HEADER, "work:x1"));
        SetStatus status = client.setStatus(set).orElseThrow();
        assertThat(status.dead()).isEqualTo(1);
        assertThat(status.acknowledged()).isEqualTo(4);
        assertThat(status.deadMembers()).containsExactly(new SetStatus.Member("work", "x1"));
        assertThat(status.successSent()).isFalse();

        failing.clear();
        assertThat(client.requeueAllDeadLetters("work")).isEqualTo(1);
        await().atMost(BOUND).until(() -> done.size() == 3);
        assertThat(done.get(2)).containsEntry(JobSet.EVENT_HEADER, "success");
        status = client.setStatus(set).orElseThrow();
        assertThat(status.dead()).isZero();
        assertThat(status.acknowledged()).isEqualTo(5);
        assertThat(status.deadMembers()).isEmpty();
        Thread.sleep(500);
        assertThat(done).hasSize(3); // complete and death once each
    }

    @Test
    void membersAddedFromInsideARunningMemberHoldTheSetOpen() throws Exception {
        Set<String> handled = ConcurrentHashMap.newKeySet();
        List<Integer> handledAtCallback = new CopyOnWriteArrayList<>();
        consume("g-done", (payload, context) -> handledAtCallback.add(handled.size()));
        consume("grow", (payload, context) -> {
            if (payload.startsWith("parent")) {
                String set = JobSet.setOf(context);
                // children with ids derived from the parent's: a retried parent adds the same ones again
                List<SendRequest> children = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    children.add(SendRequest.of("child", Duration.ofMillis(300),
                            SendOptions.id(context.id() + "/child-" + i)));
                }
                client.addToSet(set, "grow", children);
                Thread.sleep(100);
            }
            handled.add(context.id());
        });
        String set = client.sendSet(JobSet.builder()
                .add("grow", List.of(SendRequest.of("parent", Duration.ZERO, SendOptions.id("p1")),
                        SendRequest.of("leaf", Duration.ZERO, SendOptions.id("l1")),
                        SendRequest.of("leaf", Duration.ZERO, SendOptions.id("l2")),
                        SendRequest.of("leaf", Duration.ZERO, SendOptions.id("l3"))))
                .onSuccess("g-done", SendRequest.of("ok", Duration.ZERO))
                .build());
        await().atMost(BOUND).until(() -> handledAtCallback.size() == 1);
        // the children are due 300 ms after the parent returned: a set that completed in between would call back early
        assertThat(handledAtCallback).containsExactly(7);
        assertThat(handled).containsExactlyInAnyOrder("p1", "l1", "l2", "l3", "p1/child-0", "p1/child-1", "p1/child-2");
        SetStatus status = client.setStatus(set).orElseThrow();
        assertThat(status.total()).isEqualTo(7);
        assertThat(status.acknowledged()).isEqualTo(7);
    }

    @Test
    void aChildSetCountsAsOneMemberOfItsParent() throws Exception {
        Set<String> inner = ConcurrentHashMap.newKeySet();
        // each success callback handled, and how many inner members had been handled by then: the two callbacks are
        // sent one straight after the other and handled on 4 threads, so the order they are handled in says nothing
        List<String> done = new CopyOnWriteArrayList<>();
        Map<String, Integer> innerHandledAtCallback = new ConcurrentHashMap<>();
        consume("c-done", (payload, context) -> {
            String of = context.headers().get(JobSet.SET_ID_HEADER);
            innerHandledAtCallback.putIfAbsent(of, inner.size());
            done.add(of);
        });
        consume("outer", (payload, context) -> {
            if (payload.equals("spawn")) {
                client.sendSet(JobSet.builder().id(JobSet.setOf(context) + "-child")
                        .parent(JobSet.setOf(context))
                        .add("inner", messages("i", 20))
                        .onSuccess("c-done", SendRequest.of("child-ok", Duration.ZERO))
                        .build());
            }
        });
        consume("inner", (payload, context) -> {
            Thread.sleep(20);
            inner.add(payload);
        });
        String set = client.sendSet(JobSet.builder().id("parent-" + System.nanoTime())
                .add("outer", List.of(SendRequest.of("spawn", Duration.ZERO, SendOptions.id("s"))))
                .onSuccess("c-done", SendRequest.of("parent-ok", Duration.ZERO))
                .build());
        await().atMost(BOUND).until(() -> done.size() == 2);
        assertThat(done).containsExactlyInAnyOrder(set + "-child", set);
        // neither callback before the child's last member: the parent's waits for its child set as a whole
        assertThat(innerHandledAtCallback).containsEntry(set + "-child", 20).containsEntry(set, 20);
        assertThat(client.setStatus(set).orElseThrow().total()).isEqualTo(2);
        assertThat(client.setStatus(set + "-child").orElseThrow().parent()).isEqualTo(set);
        Thread.sleep(500);
        assertThat(done).hasSize(2);
    }

    @Test
    void aChainRunsEachStepOnceAfterTheOneBefore() throws Exception {
        List<String> order = new CopyOnWriteArrayList<>();
        AtomicInteger failures = new AtomicInteger();
        consume("step-a", (payload, context) -> order.add(payload));
        consume("step-b", (payload, context) -> {
            if (failures.getAndIncrement() == 0) {
                throw new IllegalStateException("first attempt fails");
            }
            order.add(payload);
        }, ConsumerOptions.builder().retry(new RetryPolicy(3, Duration.ofMillis(10), 1,
                Duration.ofMillis(10), 0)).build());
        consume("step-c", (payload, context) -> order.add(payload));
        List<String> ids = client.sendChain(Chain.of("step-a", SendRequest.of("A", Duration.ZERO))
                .then("step-b", SendRequest.of("B", Duration.ZERO))
                .then("step-c", SendRequest.of("C", Duration.ofMillis(50))));
        assertThat(ids).hasSize(3);
        await().atMost(BOUND).until(() -> order.size() == 3);
        assertThat(order).containsExactly("A", "B", "C");
        Thread.sleep(500);
        assertThat(order).hasSize(3);
    }

    private void consume(String queue, MessageHandler<String> handler, ConsumerOptions options) {
        consume(client, queue, handler, options);
    }

    @Test
    void marksLeftByAnInstanceThatDiedBeforeItsForwardAreForwardedByThePeriodicPass() throws Exception {
        List<Map<String, String>> done = callbackQueue("l-done");
        String set = client.sendSet(JobSet.builder()
                .add("lost", messages("q", 3))
                .onSuccess("l-done", SendRequest.of("ok", Duration.ZERO))
                .build());
        // an instance claims and acknowledges the members, then dies before forwarding: the settle alone
        QueueRoute route = io.github.delayqueue.core.internal.ClientAccess.route(client, "lost");
        int acked = 0;
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (acked < 3 && System.nanoTime() < deadline) {
            for (QueueOps part : route.parts()) {
                for (QueueOps.Claimed c : part.claim(10, 60_000, 5, 100, Duration.ofDays(1).toMillis(), 1000).messages()) {
                    part.settle(List.of(new QueueOps.Settlement(QueueOps.SettleOp.ACK, c.member(), c.attempt(), 0,
                            null, false, null, 0, set)));
                    acked++;
                }
            }
            Thread.sleep(5);
        }
        assertThat(acked).isEqualTo(3);
        assertThat(client.setStatus(set).orElseThrow().acknowledged()).isZero();
        // the instance died a minute ago: its marks are as old (the periodic pass leaves marks younger than 10 s to
        // the settler that wrote them)
        for (QueueOps part : route.parts()) {
            var marks = redis.redisson().<String>getScoredSortedSet(
                    io.github.delayqueue.core.protocol.SetScript.marksKey(part.keys()),
                    org.redisson.client.codec.StringCodec.INSTANCE);
            for (String mark : marks.readAll()) {
                marks.add(System.currentTimeMillis() - 60_000, mark);
            }
        }
        // a consumer of the queue starts: its periodic pass finds the marks and forwards them
        consume(client, "lost", (payload, context) -> { }, ConsumerOptions.builder()
                .maxPollInterval(Duration.ofMillis(100)).build());
        await().atMost(BOUND).until(() -> done.size() == 1);
        assertThat(client.setStatus(set).orElseThrow().acknowledged()).isEqualTo(3);
    }

    @Test
    void badInputIsRefusedAndWritesNothing() {
        assertThatThrownBy(() -> JobSet.builder().build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one member");
        assertThatThrownBy(() -> JobSet.builder().id("a{b}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("set id");
        assertThatThrownBy(() -> JobSet.builder().id("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JobSet.builder().retention(Duration.ofSeconds(5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retention");
        assertThatThrownBy(() -> JobSet.builder().onSuccess("q", SendRequest.of("x", Duration.ZERO,
                SendOptions.id("i").withDedupWindow(Duration.ofMinutes(1))))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dedup window");
        assertThatThrownBy(() -> JobSet.builder().add("bad queue", messages("x", 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SendOptions.none().header(JobSet.SET_HEADER, "s"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reserved");
        assertThatThrownBy(() -> client.addToSet("no-such-set", "q", messages("x", 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no job set");
        assertThat(client.stats("q").pending()).isZero();
        assertThatThrownBy(() -> client.sendSet(JobSet.builder().add("q", messages("x", 1)).parent("no-parent").build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no job set");
        // a member that cannot be sent: nothing written, no set created
        assertThatThrownBy(() -> client.sendSet(JobSet.builder().id("bad-member")
                .add("q", List.of(SendRequest.of("x", Duration.ofMillis(-1)))).build()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(client.setStatus("bad-member")).isEmpty();
        assertThat(client.stats("q").pending()).isZero();
        assertThatThrownBy(() -> client.setStatus("x", -1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(client.setStatus("never-sent")).isEmpty();
        assertThatThrownBy(() -> client.sendChain(Chain.of("q", SendRequest.of("a", Duration.ZERO, SendOptions.id("same")))
                .then("q", SendRequest.of("b", Duration.ZERO, SendOptions.id("same")))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("same id");
    }

    @Test
    void aCompleteSetTakesNoMoreMembers() {
        List<Map<String, String>> done = callbackQueue("x-done");
        consume("xq", (payload, context) -> { });
        String set = client.sendSet(JobSet.builder().add("xq", messages("a", 2))
                .onComplete("x-done", SendRequest.of("closed", Duration.ZERO)).build());
        await().atMost(BOUND).until(() -> done.size() == 1);
        assertThatThrownBy(() -> client.addToSet(set, "xq", messages("late", 1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("complete");
    }

    @Test
    void aPreparedSetReplayedStepByStepAsAnOutboxDoesCallsBackOnceAndNotBeforeItsSeal() throws Exception {
        List<Map<String, String>> done = callbackQueue("o-done");
        Set<String> handled = ConcurrentHashMap.newKeySet();
        consume("o-work", (payload, context) -> handled.add(payload));
        PreparedSet prepared = client.prepareSet(JobSet.builder().add("o-work", messages("o", 10))
                .onSuccess("o-done", SendRequest.of("ok", Duration.ZERO)).build());
        assertThat(client.setStatus(prepared.id())).as("nothing written by the prepare").isEmpty();
        // the opening stored as text, the members as outbox rows restored, each step twice (a relay after a crash)
        String opening = prepared.opening();
        assertThat(client.openSet(opening)).isEqualTo(prepared.id());
        assertThat(client.openSet(opening)).isEqualTo(prepared.id());
        for (PreparedSend batch : prepared.sends()) {
            client.send(client.restore(batch.queue(), batch.messages()));
            client.send(client.restore(batch.queue(), batch.messages()));
        }
        await().atMost(BOUND).until(() -> handled.size() == 10);
        Thread.sleep(300);
        assertThat(done).as("no callback before the seal").isEmpty();
        assertThat(client.setStatus(prepared.id()).orElseThrow().acknowledged()).isEqualTo(10);
        client.sealSet(prepared.id());
        client.sealSet(prepared.id());
        await().atMost(BOUND).until(() -> done.size() == 1);
        Thread.sleep(300);
        assertThat(done).hasSize(1);
        assertThat(client.setStatus(prepared.id()).orElseThrow().total()).isEqualTo(10);

        assertThatThrownBy(() -> client.openSet("not an opening")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("opening");
        assertThatThrownBy(() -> client.openSet(opening.replace("set1", "set9")))
                .isInstanceOf(IllegalArgumentException.class);
        client.sealSet("never-opened"); // a seal of a set that is not there is left alone
        assertThat(client.setStatus("never-opened")).isEmpty();
        DelayQueueClient other = DelayQueueClient.create(redis.redisson(), clientOptions().build());
        assertThatThrownBy(() -> other.send(prepared)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("another client");
    }

    @Test
    void aCancelledMemberCompletesTheSetAtOnceButNeverMakesItSucceed() throws Exception {
        List<Map<String, String>> done = callbackQueue("k-done");
        consume("k-work", (payload, context) -> { });
        String set = client.sendSet(JobSet.builder()
                .add("k-work", List.of(SendRequest.of("now", Duration.ZERO, SendOptions.id("now")),
                        SendRequest.of("later", Duration.ofHours(1), SendOptions.id("later"))))
                .onSuccess("k-done", SendRequest.of("ok", Duration.ZERO))
                .onComplete("k-done", SendRequest.of("closed", Duration.ZERO))
                .build());
        await().atMost(BOUND).until(() -> client.setStatus(set).orElseThrow().acknowledged() == 1);
        long start = System.nanoTime();
        assertThat(client.cancel("k-work", "later")).isTrue();
        await().atMost(BOUND).until(() -> done.size() == 1);
        // forwarded by the cancel itself, not by a periodic pass that waits for marks older than 10 s
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(9));
        assertThat(done.get(0)).containsEntry(JobSet.EVENT_HEADER, "complete");
        SetStatus status = client.setStatus(set).orElseThrow();
        assertThat(status.cancelled()).isEqualTo(1);
        assertThat(status.complete()).isTrue();
        assertThat(status.successSent()).isFalse();
        assertThat(client.cancel("k-work", "later")).isFalse();
    }

    @Test
    void aSealWhoseCallbackCannotBeSentFailsAndASecondSealSendsIt() throws Exception {
        Set<String> handled = ConcurrentHashMap.newKeySet();
        consume("f-work", (payload, context) -> handled.add(payload));
        List<Map<String, String>> done = callbackQueue("f-done");
        PreparedSet prepared = client.prepareSet(JobSet.builder().add("f-work", messages("f", 3))
                .onSuccess("f-done", SendRequest.of("ok", Duration.ZERO)).build());
        client.openSet(prepared.opening());
        for (PreparedSend batch : prepared.sends()) {
            client.send(batch);
        }
        await().atMost(BOUND).until(() -> client.setStatus(prepared.id()).orElseThrow().acknowledged() == 3);
        // the callback's queue cannot take a message: its messages key is of another type
        String messagesKey = (String) io.github.delayqueue.core.internal.ClientAccess.route(client, "f-done")
                .part(0).keys().keys().get(0);
        List<String> keys = new ArrayList<>();
        for (QueueOps part : io.github.delayqueue.core.internal.ClientAccess.route(client, "f-done").parts()) {
            keys.add((String) part.keys().keys().get(0));
        }
        for (String key : keys) {
            redis.redisson().getBucket(key, org.redisson.client.codec.StringCodec.INSTANCE).set("not a hash");
        }
        assertThatThrownBy(() -> client.sealSet(prepared.id())).isInstanceOf(DelayQueueException.class)
                .hasMessageContaining("seal it again");
        assertThat(client.setStatus(prepared.id()).orElseThrow().callbacksDue()).isEqualTo(1);
        for (String key : keys) {
            redis.redisson().getBucket(key).delete();
        }
        assertThat(messagesKey).isNotEmpty();
        client.sealSet(prepared.id());
        await().atMost(BOUND).until(() -> done.size() == 1);
        assertThat(client.setStatus(prepared.id()).orElseThrow().settled()).isTrue();
    }

    @Test
    void aSetSentAgainAfterItCompletedIsLeftAsItIs() throws Exception {
        List<Map<String, String>> done = callbackQueue("r-done");
        consume("r-work", (payload, context) -> { });
        PreparedSet prepared = client.prepareSet(JobSet.builder().id("again-" + System.nanoTime())
                .add("r-work", messages("r", 2)).onComplete("r-done", SendRequest.of("closed", Duration.ZERO)).build());
        client.send(prepared);
        await().atMost(BOUND).until(() -> done.size() == 1);
        // an outbox relay replaying after a lost reply: nothing new, nothing fails
        assertThat(client.openSet(prepared.opening())).isEqualTo(prepared.id());
        client.sealSet(prepared.id());
        Thread.sleep(300);
        assertThat(done).hasSize(1);
        assertThat(client.setStatus(prepared.id()).orElseThrow().total()).isEqualTo(2);
    }

    @Test
    void aCancelledMemberAddedAgainIsPendingAgainSoTheSetWaitsForIt() throws Exception {
        List<Map<String, String>> done = callbackQueue("a-done");
        Set<String> handled = ConcurrentHashMap.newKeySet();
        consume("a-work", (payload, context) -> handled.add(context.id()));
        String set = client.sendSet(JobSet.builder()
                .add("a-work", List.of(SendRequest.of("a", Duration.ofMillis(300), SendOptions.id("a")),
                        SendRequest.of("b", Duration.ofHours(1), SendOptions.id("b"))))
                .onSuccess("a-done", SendRequest.of("ok", Duration.ZERO))
                .build());
        assertThat(client.cancel("a-work", "b")).isTrue();
        await().atMost(BOUND).until(() -> client.setStatus(set).orElseThrow().cancelled() == 1);
        client.addToSet(set, "a-work", List.of(SendRequest.of("b", Duration.ofSeconds(2), SendOptions.id("b"))));
        assertThat(client.setStatus(set).orElseThrow().pending()).isGreaterThanOrEqualTo(1);
        await().atMost(BOUND).until(() -> done.size() == 1);
        assertThat(handled).contains("a", "b"); // the success waited for the member sent again
        assertThat(client.setStatus(set).orElseThrow().acknowledged()).isEqualTo(2);
    }

    @Test
    void aSetIsKeptPastItsRetentionUntilItsLatestMemberIsDue() {
        String set = client.sendSet(JobSet.builder().retention(Duration.ofMinutes(1))
                .add("k2-work", List.of(SendRequest.of("late", Duration.ofHours(2)))).build());
        SetStatus status = client.setStatus(set).orElseThrow();
        assertThat(Duration.between(status.createdAt(), status.expiresAt())).isGreaterThan(Duration.ofHours(2));
        long ttl = redis.redisson().getKeys().remainTimeToLive(redis.prefix() + ":set:{" + set + "}:state");
        assertThat(ttl).isGreaterThan(Duration.ofHours(2).toMillis());
    }

    @Test
    void aHandlerPassesItsHeadersOnWithoutTheSetTheyName() {
        Map<String, String> memberHeaders = Map.of(JobSet.SET_HEADER, "s1", "traceparent", "00-abc");
        assertThat(SendOptions.none().withHeaders(memberHeaders).headers()).containsOnlyKeys("traceparent");
    }

    @Test
    void callbacksGivenOneIdInSeveralSetsAreEachTheirSetsOwn() throws Exception {
        List<Map<String, String>> done = callbackQueue("i-done");
        consume("i-work", (payload, context) -> { });
        for (int i = 0; i < 3; i++) {
            client.sendSet(JobSet.builder().add("i-work", messages("i" + i + "-", 1))
                    .onSuccess("i-done", SendRequest.of("ok", Duration.ZERO, SendOptions.id("notify"))).build());
        }
        await().atMost(BOUND).until(() -> done.size() == 3);
        Thread.sleep(300);
        assertThat(done).hasSize(3);
    }

    @Test
    void aChainSentAgainRunsEachStepOnce() throws Exception {
        List<String> order = new CopyOnWriteArrayList<>();
        consume("c2-a", (payload, context) -> order.add(payload));
        consume("c2-b", (payload, context) -> order.add(payload));
        Chain chain = Chain.of("c2-a", SendRequest.of("A", Duration.ZERO)).then("c2-b", SendRequest.of("B", Duration.ZERO))
                .id("chain-" + System.nanoTime());
        client.sendChain(chain);
        await().atMost(BOUND).until(() -> order.size() == 2);
        client.sendChain(chain);
        Thread.sleep(500);
        assertThat(order).containsExactly("A", "B");
    }

    @Test
    void anOpeningInPartsOpensTheWholeSetFromAnyPartInAnyOrder() throws Exception {
        List<Map<String, String>> done = callbackQueue("p-done");
        consume("p-work", (payload, context) -> { });
        List<SendRequest> members = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            members.add(SendRequest.of("x", Duration.ZERO, SendOptions.id("member-with-a-long-id-" + "x".repeat(40) + i)));
        }
        PreparedSet prepared = client.prepareSet(JobSet.builder().add("p-work", members)
                .onSuccess("p-done", SendRequest.of("ok", Duration.ZERO)).build());
        List<String> parts = prepared.openings(1_024);
        assertThat(parts).hasSizeGreaterThan(3).allSatisfy(part -> assertThat(part.length()).isLessThanOrEqualTo(1_024));
        // the last part first: it creates the set with all 60 counted, so that no callback can come early
        for (int i = parts.size() - 1; i >= 0; i--) {
            client.openSet(parts.get(i));
        }
        client.openSet(parts.get(0));
        assertThat(client.setStatus(prepared.id()).orElseThrow().total()).isEqualTo(60);
        for (PreparedSend batch : prepared.sends()) {
            client.send(batch);
        }
        client.sealSet(prepared.id());
        await().atMost(BOUND).until(() -> done.size() == 1);
        assertThat(client.setStatus(prepared.id()).orElseThrow().acknowledged()).isEqualTo(60);
        assertThat(prepared.openings(10)).as("one member a part, whatever the header").hasSize(60);
        assertThatThrownBy(() -> prepared.openings(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
