package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.protocol.Envelope;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.Scripts;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/** Leases: crash recovery, fencing of stale acks, slow handlers kept, hung handlers given up. */
@ExtendWith(RedisExtension.class)
class LeaseTest {

    private static final long KEEP_DEAD_MS = Duration.ofDays(14).toMillis();

    private final RedisContext redis;
    private DelayQueueClient client;
    private DelayQueueConsumer consumer;

    LeaseTest(RedisContext redis) {
        this.redis = redis;
    }

    @BeforeEach
    void setUp() {
        client = redis.client();
    }

    @AfterEach
    void tearDown() {
        if (consumer != null) {
            consumer.stop();
        }
    }

    /**
     * A send with no delay is due at the Redis clock rounded up to the millisecond, so a claim in the same
     * millisecond finds nothing yet: wait until the messages are due before claiming by hand.
     */
    private void awaitDue(String queue, int count) {
        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).ready() == count);
    }

    private QueueOps ops(String queue) {
        return new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
    }

    @Test
    void claimedButNeverAckedIsRedeliveredAndAStaleAckCannotRemoveIt() throws Exception {
        String queue = "crash";
        client.send(queue, "job", Duration.ZERO, SendOptions.id("job:1"));
        awaitDue(queue, 1);
        // a consumer that claims and then dies: nothing ever acks this delivery
        QueueOps.ClaimResult dead = ops(queue).claim(10, 300, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE);
        assertThat(dead.messages()).hasSize(1);
        QueueOps.Claimed stale = dead.messages().get(0);
        assertThat(stale.attempt()).isEqualTo(1);

        CountDownLatch release = new CountDownLatch(1);
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            attempts.add(context.attempt());
            release.await(10, TimeUnit.SECONDS);
        }, ConsumerOptions.builder().visibilityTimeout(Duration.ofSeconds(5)).build());
        consumer.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> attempts.size() == 1);
        assertThat(attempts).containsExactly(2);
        // the first delivery wakes up and acks: it must not touch the newer delivery
        boolean[] applied = ops(queue).settle(List.of(new QueueOps.Settlement(QueueOps.SettleOp.ACK, stale.member(), 1, 0, null)));
        assertThat(applied).containsExactly(false);
        assertThat(client.stats(queue).inFlight()).isEqualTo(1);

        release.countDown();
        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).inFlight() == 0);
        assertThat(client.stats(queue).pending()).isZero();
        assertThat(attempts).containsExactly(2);
    }

    @Test
    void staleRetryAndExtendAreFencedToo() {
        String queue = "fence";
        client.send(queue, "job", Duration.ZERO, SendOptions.id("f:1"));
        awaitDue(queue, 1);
        QueueOps ops = ops(queue);
        QueueOps.Claimed first = ops.claim(1, 100, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages().get(0);
        await().atMost(Duration.ofSeconds(10)).until(() -> ops.claim(1, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages().size() == 1);

        assertThat(ops.extend(60_000, List.of(first.member(), "1"))).containsExactly(false);
        assertThat(ops.settle(List.of(new QueueOps.Settlement(QueueOps.SettleOp.RETRY, first.member(), 1, 0, "x"),
                new QueueOps.Settlement(QueueOps.SettleOp.DEAD, first.member(), 1, 0, "x")))).containsExactly(false, false);
        QueueStats stats = client.stats(queue);
        assertThat(stats.inFlight()).isEqualTo(1);
        assertThat(stats.dead()).isZero();
    }

    @Test
    void claimReportsDueTimeAttemptAndTheServerClockToTheMicrosecond() {
        String queue = "clock";
        Instant due = Instant.ofEpochMilli(client.stats(queue).serverTime().toEpochMilli() - 5);
        client.sendAt(queue, "job", due, SendOptions.id("c:1:2"));
        client.sendAt(queue, "grüße € 😀\n:5:", due.plusMillis(1), SendOptions.id("c:ü").header("h", "ö:1"));
        client.send(queue, "later", Duration.ofHours(1), SendOptions.id("c:2"));
        QueueOps ops = ops(queue);

        QueueOps.ClaimResult result = ops.claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE);
        assertThat(result.messages()).hasSize(2);
        QueueOps.Claimed claimed = result.messages().get(0);
        assertThat(claimed.id()).isEqualTo("c:1:2");
        assertThat(claimed.attempt()).isEqualTo(1);
        assertThat(claimed.dueMs()).isEqualTo(due.toEpochMilli());
        assertThat(Envelope.parse(claimed.envelope()).payload()).isEqualTo("\"job\"");
        // multi-byte UTF-8 and ':' in id, header and payload
        QueueOps.Claimed unicode = result.messages().get(1);
        assertThat(unicode.id()).isEqualTo("c:ü");
        assertThat(unicode.dueMs()).isEqualTo(due.toEpochMilli() + 1);
        Envelope envelope = Envelope.parse(unicode.envelope());
        assertThat(envelope.payload()).isEqualTo("\"grüße € 😀\\n:5:\"");
        assertThat(envelope.headers()).containsEntry("h", "ö:1");
        long serverMicros = client.stats(queue).serverTime().toEpochMilli() * 1000;
        assertThat(result.serverNowMicros()).isBetween(serverMicros - 5_000_000, serverMicros + 1_000);
        assertThat(result.nextEventMs()).as("the in-flight lease ends before the later message is due")
                .isBetween(result.serverNowMs() + 59_000, result.serverNowMs() + 60_000);
        // the sub-millisecond digits are real: not all of several claims land on a whole millisecond
        boolean fraction = false;
        for (int i = 0; i < 20 && !fraction; i++) {
            fraction = ops.claim(0, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).serverNowMicros() % 1000 != 0;
        }
        assertThat(fraction).isTrue();

        assertThat(ops.extend(60_000, List.of(claimed.member(), "1", claimed.member(), "2"))).containsExactly(true, false);
    }

    @Test
    void oneSettleCallAppliesMixedOpsOnIdsWithColonsAndReportsStaleOnes() {
        String queue = "mixed";
        for (String id : List.of("ack:1", "retry:2:x", "dead:3", "stale:4")) {
            client.send(queue, "job " + id, Duration.ZERO, SendOptions.id(id));
        }
        awaitDue(queue, 4);
        QueueOps ops = ops(queue);
        List<QueueOps.Claimed> claimed = ops.claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages();
        assertThat(claimed).extracting(QueueOps.Claimed::id).containsExactly("ack:1", "retry:2:x", "dead:3", "stale:4");
        String reason = "java.lang.IllegalStateException: a: b\nsecond line with : and \"quotes\"";

        boolean[] applied = ops.settle(List.of(
                new QueueOps.Settlement(QueueOps.SettleOp.ACK, claimed.get(0).member(), 1, 0, null),
                new QueueOps.Settlement(QueueOps.SettleOp.RETRY, claimed.get(1).member(), 1, 3_600_000, reason),
                new QueueOps.Settlement(QueueOps.SettleOp.DEAD, claimed.get(2).member(), 1, 0, reason),
                new QueueOps.Settlement(QueueOps.SettleOp.ACK, claimed.get(3).member(), 2, 0, null))); // wrong attempt: stale

        assertThat(applied).containsExactly(true, true, true, false);
        QueueStats stats = client.stats(queue);
        assertThat(stats.inFlight()).as("only the stale ack's message").isEqualTo(1);
        assertThat(stats.pending()).as("the retried one, due in an hour").isEqualTo(1);
        assertThat(stats.dead()).isEqualTo(1);
        assertThat(stats.nextDueAt()).isAfter(stats.serverTime().plus(Duration.ofMinutes(59)));
        DeadLetter letter = client.deadLetters(queue, 10).get(0);
        assertThat(letter.id()).isEqualTo("dead:3");
        assertThat(letter.reason()).isEqualTo(reason);
        assertThat(letter.attempts()).isEqualTo(1);
        assertThat(redis.redisson().getMap(QueueKeys.of(redis.prefix(), queue).keys().get(4).toString(),
                org.redisson.client.codec.StringCodec.INSTANCE).get("retry:2:x")).isEqualTo(reason);
    }

    @Test
    void slowHandlerIsNotRedeliveredWhileItRuns() {
        String queue = "slow";
        AtomicInteger starts = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            starts.incrementAndGet();
            Thread.sleep(5_000); // two and a half visibility timeouts
            finished.incrementAndGet();
            // the keeper extends every third of the lease: an extension must run over a second late to lose it, which
            // a loaded machine does not reach (500 ms leases renewed every 166 ms did)
        }, ConsumerOptions.builder().visibilityTimeout(Duration.ofSeconds(2)).build());
        consumer.start();
        client.send(queue, "slow job", Duration.ZERO);

        await().atMost(Duration.ofSeconds(20)).until(() -> finished.get() == 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> client.stats(queue).inFlight() == 0);
        assertThat(starts.get()).isEqualTo(1);
        assertThat(client.stats(queue).pending()).isZero();
    }

    @Test
    void hungHandlerIsGivenUpAndTheMessageRedelivered() {
        String queue = "hung";
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        CountDownLatch never = new CountDownLatch(1);
        consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            attempts.add(context.attempt());
            if (context.attempt() == 1) {
                while (never.getCount() > 0) { // ignores interrupts: only the timeout can save this message
                    try {
                        never.await();
                    } catch (InterruptedException e) {
                        // keep hanging
                    }
                }
            }
        }, ConsumerOptions.builder().visibilityTimeout(Duration.ofMillis(300)).handlerTimeout(Duration.ofMillis(700))
                .retry(new RetryPolicy(3, Duration.ofMillis(50), 1.0, Duration.ofMillis(50), 0)).build());
        consumer.start();
        client.send(queue, "hangs once", Duration.ZERO);

        await().atMost(Duration.ofSeconds(20)).until(() -> attempts.contains(2));
        await().atMost(Duration.ofSeconds(10)).until(() -> client.stats(queue).inFlight() == 0);
        assertThat(client.stats(queue).pending()).isZero();
        assertThat(client.stats(queue).dead()).isZero();
        never.countDown();
    }

    @Test
    void aRedeliveryToTheSameConsumerDoesNotHideTheDeliveryStillRunning() throws Exception {
        String queue = "same-consumer";
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        // the lease keeper runs every 10 s here, so it cannot renew the lease we expire by hand below
        consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            attempts.add(context.attempt());
            release.await();
        }, ConsumerOptions.builder().visibilityTimeout(Duration.ofSeconds(30)).maxPollInterval(Duration.ofMillis(100))
                .build());
        consumer.start();
        client.send(queue, "long job", Duration.ZERO, SendOptions.id("long:1"));
        await().atMost(Duration.ofSeconds(20)).until(() -> attempts.size() == 1);

        // the lease runs out while the handler still runs (as after a Redis outage longer than the lease):
        // the same consumer claims the message again
        QueueKeys keys = QueueKeys.of(redis.prefix(), queue);
        var inflight = redis.redisson().<String>getScoredSortedSet((String) keys.keys().get(2), StringCodec.INSTANCE);
        String member = inflight.first();
        inflight.add(0, member);
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> attempts.size() == 2);
            assertThat(attempts).containsExactly(1, 2);
            assertThat(consumer.activeHandlers()).as("both deliveries are tracked (timeouts, shutdown)").isEqualTo(2);
        } finally {
            release.countDown();
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> consumer.activeHandlers() == 0);
        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).inFlight() == 0);
        assertThat(client.stats(queue).pending()).isZero();
    }

    /**
     * settle.lua deletes the last error only for acks of attempt 2 or later (issue 37): an error is written by a retry,
     * which counts an attempt that no later op takes back (a hand-back returns only the claim's own count), so a
     * delivery after a retry is attempt 2 or more, and its ack must still leave no error behind.
     */
    @Test
    void anAckAfterARetryAndAHandBackLeavesNoLastErrorBehind() {
        String queue = "errors";
        client.send(queue, "job", Duration.ZERO, SendOptions.id("e:1"));
        awaitDue(queue, 1);
        QueueOps ops = ops(queue);
        var errors = redis.redisson().getMap(QueueKeys.of(redis.prefix(), queue).keys().get(4).toString(), StringCodec.INSTANCE);
        QueueOps.Claimed first = ops.claim(1, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages().get(0);
        assertThat(ops.settle(List.of(new QueueOps.Settlement(QueueOps.SettleOp.RETRY, first.member(), 1, 0, "boom", true))))
                .containsExactly(true);
        assertThat(errors.containsKey("e:1")).isTrue();
        QueueOps.Claimed second = claimOne(ops);
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(ops.settle(List.of(new QueueOps.Settlement(QueueOps.SettleOp.HAND_BACK, second.member(), 2, 0, null, true))))
                .containsExactly(true);
        QueueOps.Claimed third = claimOne(ops);
        assertThat(third.attempt()).isEqualTo(2);
        assertThat(ops.settle(List.of(new QueueOps.Settlement(QueueOps.SettleOp.ACK, third.member(), 2, 0, null, true))))
                .containsExactly(true);
        assertThat(errors.isExists()).as("the errors hash").isFalse();
        assertThat(client.stats(queue).pending() + client.stats(queue).inFlight()).isZero();
    }

    private QueueOps.Claimed claimOne(QueueOps ops) {
        List<QueueOps.Claimed> got = new CopyOnWriteArrayList<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            got.addAll(ops.claim(1, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages());
            return !got.isEmpty();
        });
        return got.get(0);
    }

    /**
     * settle.lua reads the delayed set's head only when an op moves a member back there (issue 37: acks and dead letters
     * need no head), and before that write: a retry due before the head wakes sleeping consumers, one due after it not.
     */
    @Test
    void aRetryWakesConsumersOnlyWhenDueBeforeTheHead() throws Exception {
        String queue = "wake";
        client.send(queue, "job", Duration.ZERO, SendOptions.id("w:1"));
        awaitDue(queue, 1);
        QueueOps ops = ops(queue);
        QueueOps.Claimed first = ops.claim(1, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages().get(0);
        client.send(queue, "later", Duration.ofHours(1), SendOptions.id("w:2"));
        List<String> published = new CopyOnWriteArrayList<>();
        var channel = redis.redisson().getTopic(QueueKeys.of(redis.prefix(), queue).wakeChannel(), StringCodec.INSTANCE);
        channel.addListener(String.class, (name, message) -> published.add(message));

        assertThat(ops.settle(List.of(new QueueOps.Settlement(QueueOps.SettleOp.RETRY, first.member(), 1, 0, "x", true))))
                .containsExactly(true);
        await().atMost(Duration.ofSeconds(10)).until(() -> published.size() == 1);
        QueueOps.Claimed second = claimOne(ops);
        assertThat(ops.settle(List.of(new QueueOps.Settlement(QueueOps.SettleOp.RETRY, second.member(), 2,
                Duration.ofHours(2).toMillis(), "x", true)))).containsExactly(true);
        channel.publish("marker"); // after the settle on the same server: delivered after any wake-up it published
        await().atMost(Duration.ofSeconds(10)).until(() -> published.contains("marker"));
        assertThat(published).hasSize(2).endsWith("marker");
    }
}
