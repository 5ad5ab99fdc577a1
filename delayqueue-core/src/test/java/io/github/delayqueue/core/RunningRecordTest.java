package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.history.MessageStatus;
import io.github.delayqueue.core.history.RunningMessage;
import io.github.delayqueue.core.protocol.ClaimLimits;
import io.github.delayqueue.core.protocol.GroupLimits;
import io.github.delayqueue.core.protocol.HistoryRecord;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.Scripts;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * The running records of deliveries under way, at the script level (running.lua): a claim writes none; the engine's
 * write is kept only for the current delivery, with any progress JSON whole; a cancel turns the current delivery's
 * record into a cancelled one and deletes a stale one; a claim that dead-letters a message deletes its record.
 */
@ExtendWith(RedisExtension.class)
class RunningRecordTest {

    private static final String INSTANCE = "4242@worker-7";

    private final RedisContext redis;
    private DelayQueueClient client;

    RunningRecordTest(RedisContext redis) {
        this.redis = redis;
    }

    @BeforeEach
    void setUp() {
        client = redis.client();
    }

    private QueueOps ops(String queue) {
        return new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
    }

    private static QueueOps.ClaimResult claim(QueueOps ops, int limit, long leaseMs, int maxAttempts) {
        return ops.claim(limit, leaseMs, maxAttempts, 1_000, Duration.ofDays(1).toMillis(), 1_000, ClaimLimits.NONE,
                false, GroupLimits.NONE, false, 0, INSTANCE);
    }

    /** Claims the one message sent, due in the millisecond after its send (a fast machine claims in the same one). */
    private static QueueOps.Claimed claimOne(QueueOps ops, long leaseMs, int maxAttempts) {
        List<QueueOps.Claimed> claimed = new ArrayList<>();
        await(() -> {
            claimed.addAll(claim(ops, 10, leaseMs, maxAttempts).messages());
            return !claimed.isEmpty();
        });
        assertThat(claimed).hasSize(1);
        return claimed.get(0);
    }

    /** running.lua for one delivery: true if it was written. */
    private static boolean write(QueueOps ops, QueueOps.Claimed claimed, int attempt, String progress) {
        return ops.running(List.of(claimed.id(), claimed.member(), Integer.toString(attempt),
                HistoryRecord.writeRunning(claimed.dueMs(), claimed.dueMs() + 1, attempt), progress))[0];
    }

    /** Records in the records hash (running ones are there only, not in history-at). */
    private long records(QueueOps ops) {
        return redis.redisson().getMap(ops.keys().sibling("history"), StringCodec.INSTANCE).size();
    }

    /** Settled records: those history-at orders, pages and trims. */
    private long settled(QueueOps ops) {
        return redis.redisson().getScoredSortedSet(ops.keys().sibling("history-at"), StringCodec.INSTANCE).size();
    }

    @Test
    void onlyTheCurrentDeliveryWritesItsRecordAndACancelKeepsIt() {
        String queue = "running-progress";
        QueueOps ops = ops(queue);
        client.send(queue, "x", Duration.ZERO, SendOptions.id("job"));
        QueueOps.Claimed claimed = claimOne(ops, 60_000, 5);
        assertThat(client.status(queue, "job").running()).as("a claim writes no running record").isNull();

        assertThat(write(ops, claimed, 1, "")).isTrue();
        RunningMessage running = client.status(queue, "job").running();
        assertThat(running.instance()).isEqualTo(HistoryRecord.INSTANCE);
        assertThat(running.attempt()).isEqualTo(1);
        assertThat(running.claimedAt().toEpochMilli()).isEqualTo(claimed.dueMs() + 1);
        assertThat(running.progress()).isNull();

        // any JSON is kept whole, even one holding the record's own field names
        String tricky = "{\"a\":1,\"p\":\",\\\"p\\\":\",\"t\":0,\"x\":\",\\\"t\\\":0\"}";
        assertThat(write(ops, claimed, 1, tricky)).isTrue();
        assertThat(client.status(queue, "job").running().progress()).isEqualTo(tricky);
        assertThat(write(ops, claimed, 1, "[1,2]")).isTrue();
        assertThat(client.status(queue, "job").running().progress()).isEqualTo("[1,2]");

        // another attempt's delivery writes nothing
        assertThat(write(ops, claimed, 2, "3")).isFalse();
        assertThat(client.status(queue, "job").running().progress()).isEqualTo("[1,2]");

        // a cancel turns it into a cancelled record of that delivery, its progress kept
        assertThat(client.cancel(queue, "job")).isTrue();
        MessageStatus cancelled = client.status(queue, "job");
        assertThat(cancelled.state()).isEqualTo(MessageStatus.State.CANCELLED);
        assertThat(cancelled.settled().instance()).isEqualTo(HistoryRecord.INSTANCE);
        assertThat(cancelled.settled().attempts()).isEqualTo(1);
        assertThat(cancelled.settled().progress()).isEqualTo("[1,2]");
        assertThat(write(ops, claimed, 1, "4")).as("nothing in flight any more").isFalse();
        assertThat(settled(ops)).as("the cancelled record is a settled one").isEqualTo(1);
    }

    @Test
    void aStaleRunningRecordIsNeverTakenForTheDeliveryUnderWay() {
        String queue = "running-stale";
        QueueOps ops = ops(queue);
        client.send(queue, "x", Duration.ZERO, SendOptions.id("job"));
        QueueOps.Claimed claimed = claimOne(ops, 1, 1);
        write(ops, claimed, 1, "");
        // its lease runs out on its last attempt: the next claim (of a consumer that keeps the history) dead-letters
        // it and deletes its running record, which nothing would replace
        await(() -> {
            claim(ops, 10, 1, 1);
            return client.deadLetters(queue, 10).size() == 1;
        });
        assertThat(client.status(queue, "job").state()).isEqualTo(MessageStatus.State.UNKNOWN);
        assertThat(records(ops)).isZero();
        // requeued by hand (attempts start again) beside a running record of another delivery (as one left by a
        // consumer that kept the history when a consumer that keeps none settled the message), then cancelled: the
        // stale record is deleted, never turned into that cancel's record
        assertThat(client.requeueAllDeadLetters(queue)).isEqualTo(1);
        redis.redisson().getMap(ops.keys().sibling("history"), StringCodec.INSTANCE).put("job",
                "{\"v\":1,\"o\":\"running\",\"d\":1,\"c\":2,\"a\":7,\"i\":\"gone@host\",\"t\":0}");
        assertThat(client.status(queue, "job").state()).isEqualTo(MessageStatus.State.PENDING);
        assertThat(client.cancel(queue, "job")).isTrue();
        assertThat(client.status(queue, "job").state()).isEqualTo(MessageStatus.State.UNKNOWN);
        assertThat(records(ops)).isZero();
    }

    @Test
    void aBatchOfRecordsIsWrittenInOneCall() {
        String queue = "running-batch";
        QueueOps ops = ops(queue);
        for (int i = 0; i < 600; i++) {
            client.send(queue, "x", Duration.ZERO, SendOptions.id("m-" + i));
        }
        List<QueueOps.Claimed> claimed = new ArrayList<>();
        await(() -> {
            claimed.addAll(claim(ops, 1_000, 60_000, 5).messages());
            return claimed.size() == 600;
        });
        assertThat(records(ops)).as("claims write nothing of the history").isZero();
        List<String> args = new ArrayList<>();
        for (QueueOps.Claimed message : claimed) {
            args.addAll(List.of(message.id(), message.member(), Integer.toString(message.attempt()),
                    HistoryRecord.writeRunning(message.dueMs(), message.dueMs(), message.attempt()), ""));
        }
        boolean[] written = ops.running(args);
        assertThat(written).hasSize(600).containsOnly(true);
        assertThat(records(ops)).isEqualTo(600);
        assertThat(settled(ops)).as("running records are not in the history's pages, count or trims").isZero();
    }

    private static void await(Callable<Boolean> condition) {
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(condition);
    }
}
