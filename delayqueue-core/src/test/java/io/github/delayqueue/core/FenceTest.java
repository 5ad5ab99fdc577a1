package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.redisson.api.RScoredSortedSet;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.Scripts;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * Fences between a message's member and its envelope, and between two deliveries of one message: a member whose sequence
 * number is not its envelope's is never delivered, and a settle sent again (its first run's reply lost) cannot take
 * the lease of the delivery that came after it.
 */
@ExtendWith(RedisExtension.class)
class FenceTest {

    private static final long KEEP_DEAD_MS = Duration.ofDays(14).toMillis();

    private final RedisContext redis;
    private DelayQueueClient client;

    FenceTest(RedisContext redis) {
        this.redis = redis;
    }

    @BeforeEach
    void setUp() {
        client = redis.client();
    }

    private QueueOps ops(String queue) {
        return new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
    }

    private RScoredSortedSet<String> zset(String key) {
        return redis.redisson().getScoredSortedSet(key, StringCodec.INSTANCE);
    }

    /**
     * A member "~<seq8><id>" left in the delayed set with another sequence number than its id's envelope (no script
     * writes one; a hand edit, or another tool, can; the check compares for inequality, older or newer alike) names the id, so a claim would fetch the live envelope by it and
     * deliver the message at the stray's due time, an hour early. The claim drops it instead: the message stays
     * pending at its own due time, unattempted.
     */
    @Test
    void aStrayMemberWithAnotherSequenceNumberDoesNotDeliverTheMessageEarly() {
        String queue = "stray";
        QueueKeys keys = QueueKeys.of(redis.prefix(), queue);
        RScoredSortedSet<String> delayed = zset(keys.keys().get(1).toString());
        // another sequence number than the send's: "00000001" in the base-64 alphabet ('-' is 0, '0' is 1, '1' is 2)
        // is 64^7 + 64^6 + ... + 64 + 2, above any number this queue's counter has reached: newer, not older
        String stray = "~00000001" + "s:1";
        delayed.add(Instant.now().minusSeconds(60).toEpochMilli(), stray);
        client.send(queue, "later", Duration.ofHours(1), SendOptions.id("s:1"));
        String real = delayed.valueRange(0, -1).stream().filter(m -> !m.equals(stray)).findFirst().orElseThrow();
        double due = delayed.getScore(real);

        QueueOps.ClaimResult result = ops(queue).claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE);

        assertThat(result.messages()).as("delivered an hour early").isEmpty();
        assertThat(delayed.valueRange(0, -1)).as("the stray dropped, the message kept").containsExactly(real);
        assertThat(delayed.getScore(real)).isEqualTo(due);
        assertThat(redis.redisson().getMap(keys.keys().get(3).toString(), StringCodec.INSTANCE).isExists())
                .as("attempts").isFalse();
        QueueStats stats = client.stats(queue);
        assertThat(stats.pending()).isEqualTo(1);
        assertThat(stats.inFlight()).isZero();
        assertThat(client.deadLetters(queue, 10)).isEmpty();
    }

    /**
     * A stray member in flight (an older release's claim, which did not check, took one) whose lease expires on the
     * last attempt leaves; the message it named is not dead-lettered with it, and stays pending at its own due time.
     */
    @Test
    void aStrayMemberWhoseLeaseExpiredOnTheLastAttemptDoesNotBuryTheMessage() {
        String queue = "stray-expired";
        QueueKeys keys = QueueKeys.of(redis.prefix(), queue);
        client.send(queue, "later", Duration.ofHours(1), SendOptions.id("s:2"));
        RScoredSortedSet<String> delayed = zset(keys.keys().get(1).toString());
        RScoredSortedSet<String> inflight = zset(keys.keys().get(2).toString());
        String real = delayed.first();
        String stray = "~00000001" + "s:2"; // another (here a higher) sequence number than the send's
        inflight.add(Instant.now().minusSeconds(60).toEpochMilli(), stray);
        redis.redisson().getMap(keys.keys().get(3).toString(), StringCodec.INSTANCE).put("s:2", "5");

        QueueOps.ClaimResult result = ops(queue).claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE);

        assertThat(result.messages()).isEmpty();
        assertThat(client.deadLetters(queue, 10)).as("dead letters").isEmpty();
        assertThat(inflight.isExists()).as("in flight").isFalse();
        assertThat(delayed.valueRange(0, -1)).containsExactly(real);
        assertThat(client.stats(queue).pending()).isEqualTo(1);
    }

    /**
     * The same for a grouped message: a stray member "|<seq8><group>\31<id>" in the group's pending set beside the
     * real one (both due) is dropped from the group, and the message is delivered once, under its real member.
     */
    @Test
    void aStrayGroupedMemberIsDroppedAndTheMessageDeliveredOnce() {
        String queue = "stray-grouped";
        QueueKeys keys = QueueKeys.of(redis.prefix(), queue);
        String messages = keys.keys().get(0).toString();
        RScoredSortedSet<String> pending = zset(messages.substring(0, messages.length() - "messages".length()) + "g:G:p");
        client.sendAt(queue, "now", Instant.now().minusSeconds(1), SendOptions.id("g:1").group("G"));
        String real = pending.first();
        String stray = "|00000001G\u001fg:1"; // another (here a higher) sequence number than the send's
        pending.add(Instant.now().minusSeconds(60).toEpochMilli(), stray);

        List<QueueOps.Claimed> claimed = ops(queue).claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages();

        assertThat(claimed).extracting(QueueOps.Claimed::member).containsExactly(real);
        assertThat(claimed.get(0).attempt()).isEqualTo(1);
        assertThat(pending.isExists()).as("the group's pending set").isFalse();
        assertThat(ops(queue).settle(List.of(new QueueOps.Settlement(QueueOps.SettleOp.ACK, real, 1, 0, null))))
                .containsExactly(true);
        QueueStats stats = client.stats(queue);
        assertThat(stats.pending() + stats.inFlight()).isZero();
    }

    /**
     * A hand-back or later returns the claim's attempt (attempts k - 1), so the next claim is attempt k again. If the
     * same op runs a second time after that claim (the Settler sends a failed batch again, Redisson sends a command
     * again when its reply has not come: the first run may have applied), it must be stale, not pull the new delivery
     * out of flight (its ack then stale, the message run a third time). For an ungrouped message, a grouped one, and
     * one stored by release 0.1 (envelope format 1).
     */
    @ParameterizedTest
    @CsvSource({ "HAND_BACK,plain", "LATER,plain", "HAND_BACK,grouped", "LATER,grouped", "HAND_BACK,format1",
            "LATER,format1" })
    void aHandBackOrLaterSentAgainCannotTakeTheNextDeliverysLease(QueueOps.SettleOp op, String kind) {
        String queue = "again-" + op + "-" + kind;
        String base = redis.prefix() + ":{" + queue + "}:";
        switch (kind) {
            case "grouped" -> client.sendAt(queue, "job", Instant.now().minusSeconds(1), SendOptions.id("a:1").group("G"));
            case "format1" -> { // as release 0.1 wrote it (EnvelopeFormat1CompatibilityTest)
                long now = Instant.now().toEpochMilli();
                redis.redisson().getMap(base + "messages", StringCodec.INSTANCE).put("a:1",
                        "1:00000000002a:" + now + ":0:\"job\"");
                zset(base + "delayed").add(now - 1000, "00000000002a" + "a:1");
                redis.redisson().getAtomicLong(base + "sequence").set(100);
            }
            default -> client.sendAt(queue, "job", Instant.now().minusSeconds(1), SendOptions.id("a:1"));
        }
        QueueOps ops = ops(queue);
        QueueOps.Claimed first = claimOne(ops);
        long delay = op == QueueOps.SettleOp.HAND_BACK ? first.dueMs() : 0;
        QueueOps.Settlement back = new QueueOps.Settlement(op, first.member(), first.attempt(), delay, null, true);
        assertThat(ops.settle(List.of(back))).containsExactly(true);
        QueueOps.Claimed second = claimOne(ops);
        assertThat(second.attempt()).as("the attempt not counted").isEqualTo(1);
        if (op == QueueOps.SettleOp.HAND_BACK) {
            assertThat(second.dueMs()).as("back at its due time").isEqualTo(first.dueMs());
        }
        assertThat(second.envelope()).as("the envelope but for its sequence number")
                .endsWith(first.envelope().substring(kind.equals("format1") ? 14 : 9));

        assertThat(ops.settle(List.of(back))).as("the same op sent again").containsExactly(false);

        assertThat(ops.settle(List.of(new QueueOps.Settlement(QueueOps.SettleOp.ACK, second.member(), second.attempt(),
                0, null, true)))).as("the second delivery's ack").containsExactly(true);
        QueueStats stats = client.stats(queue);
        assertThat(stats.pending() + stats.inFlight()).isZero();
        assertThat(zset(base + "g:G:i").isExists()).as("the group's in-flight set").isFalse();
        assertThat(zset(base + "g:G:p").isExists()).as("the group's pending set").isFalse();
    }

    /** The same in one settle call of several ops: a hand-back, an ack and a later, sent again after the next claim. */
    @Test
    void aBatchWithHandBacksAndLatersSentAgainIsStaleForEachOfThem() {
        String queue = "again-batch";
        for (String id : List.of("b:1", "b:2", "b:3")) {
            client.sendAt(queue, id, Instant.now().minusSeconds(1), SendOptions.id(id));
        }
        QueueOps ops = ops(queue);
        List<QueueOps.Claimed> first = ops.claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages();
        assertThat(first).extracting(QueueOps.Claimed::id).containsExactly("b:1", "b:2", "b:3");
        List<QueueOps.Settlement> batch = List.of(
                new QueueOps.Settlement(QueueOps.SettleOp.HAND_BACK, first.get(0).member(), 1, first.get(0).dueMs(), null, true),
                new QueueOps.Settlement(QueueOps.SettleOp.ACK, first.get(1).member(), 1, 0, null, true),
                new QueueOps.Settlement(QueueOps.SettleOp.LATER, first.get(2).member(), 1, 0, null, true));
        assertThat(ops.settle(batch)).containsExactly(true, true, true);
        List<QueueOps.Claimed> second = new CopyOnWriteArrayList<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            second.addAll(ops.claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages());
            return second.size() >= 2;
        });
        assertThat(second).extracting(QueueOps.Claimed::id).containsExactly("b:1", "b:3");
        assertThat(second).extracting(QueueOps.Claimed::attempt).containsExactly(1, 1);

        assertThat(ops.settle(batch)).as("the batch sent again").containsExactly(false, false, false);

        assertThat(ops.settle(second.stream().map(c -> new QueueOps.Settlement(QueueOps.SettleOp.ACK, c.member(),
                c.attempt(), 0, null, true)).toList())).containsExactly(true, true);
        QueueStats stats = client.stats(queue);
        assertThat(stats.pending() + stats.inFlight()).isZero();
    }

    private QueueOps.Claimed claimOne(QueueOps ops) {
        List<QueueOps.Claimed> got = new CopyOnWriteArrayList<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            got.addAll(ops.claim(1, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages());
            return !got.isEmpty();
        });
        return got.get(0);
    }
}
