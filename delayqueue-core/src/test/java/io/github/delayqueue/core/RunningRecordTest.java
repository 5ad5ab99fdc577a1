package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.history.MessageStatus;
import io.github.delayqueue.core.history.RunningMessage;
import io.github.delayqueue.core.protocol.ClaimLimits;
import io.github.delayqueue.core.protocol.GroupLimits;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.Scripts;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * The running records a claim writes for a consumer that keeps the history, at the script level: what they hold,
 * which progress writes they take (only the current delivery's, any JSON kept whole), which cancels turn them into
 * cancelled records (only of that delivery), and a claim without the history writes none.
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

    private static QueueOps.ClaimResult claim(QueueOps ops, int limit, long leaseMs, int maxAttempts, String instance) {
        return ops.claim(limit, leaseMs, maxAttempts, 1_000, Duration.ofDays(1).toMillis(), 1_000, ClaimLimits.NONE,
                false, GroupLimits.NONE, false, 0, instance);
    }

    /** Records in the records hash (running ones are there only, not in history-at). */
    /** Claims the one message sent, due in the millisecond after its send (a fast machine claims in the same one). */
    private static QueueOps.Claimed claimOne(QueueOps ops, long leaseMs, int maxAttempts) {
        List<QueueOps.Claimed> claimed = new java.util.ArrayList<>();
        await(() -> {
            claimed.addAll(claim(ops, 10, leaseMs, maxAttempts, INSTANCE).messages());
            return !claimed.isEmpty();
        });
        assertThat(claimed).hasSize(1);
        return claimed.get(0);
    }

    private long records(QueueOps ops) {
        return redis.redisson().getMap(ops.keys().sibling("history"), StringCodec.INSTANCE).size();
    }

    /** Settled records: those history-at orders, pages and trims. */
    private long settled(QueueOps ops) {
        return redis.redisson().getScoredSortedSet(ops.keys().sibling("history-at"), StringCodec.INSTANCE).size();
    }

    @Test
    void aClaimWritesTheRunningRecordAndOnlyItsDeliveryWritesProgress() {
        String queue = "running-progress";
        QueueOps ops = ops(queue);
        client.send(queue, "x", Duration.ZERO, SendOptions.id("job"));
        QueueOps.Claimed claimed = claimOne(ops, 60_000, 5);

        RunningMessage running = client.status(queue, "job").running();
        assertThat(running.instance()).isEqualTo(INSTANCE);
        assertThat(running.attempt()).isEqualTo(1);
        assertThat(running.progress()).isNull();

        // any JSON is kept whole, even one holding the record's own field names
        String tricky = "{\"a\":1,\"p\":\",\\\"p\\\":\",\"t\":0,\"x\":\",\\\"t\\\":0\"}";
        assertThat(ops.progressAsync("job", claimed.member(), 1, tricky).toCompletableFuture().join()).isTrue();
        assertThat(client.status(queue, "job").running().progress()).isEqualTo(tricky);
        assertThat(ops.progressAsync("job", claimed.member(), 1, "[1,2]").toCompletableFuture().join()).isTrue();
        assertThat(client.status(queue, "job").running().progress()).isEqualTo("[1,2]");

        // another attempt's delivery, or another member, writes nothing
        assertThat(ops.progressAsync("job", claimed.member(), 2, "3").toCompletableFuture().join()).isFalse();
        assertThat(ops.progressAsync("job", claimed.member() + "x", 1, "3").toCompletableFuture().join()).isFalse();
        assertThat(client.status(queue, "job").running().progress()).isEqualTo("[1,2]");

        // a cancel turns it into a cancelled record of that delivery, its progress kept
        assertThat(client.cancel(queue, "job")).isTrue();
        MessageStatus cancelled = client.status(queue, "job");
        assertThat(cancelled.state()).isEqualTo(MessageStatus.State.CANCELLED);
        assertThat(cancelled.settled().instance()).isEqualTo(INSTANCE);
        assertThat(cancelled.settled().attempts()).isEqualTo(1);
        assertThat(cancelled.settled().progress()).isEqualTo("[1,2]");
        assertThat(ops.progressAsync("job", claimed.member(), 1, "4").toCompletableFuture().join())
                .as("nothing in flight any more").isFalse();
        assertThat(settled(ops)).as("the cancelled record is a settled one").isEqualTo(1);
    }

    @Test
    void aStaleRunningRecordIsNeverTakenForTheDeliveryUnderWay() {
        String queue = "running-stale";
        QueueOps ops = ops(queue);
        client.send(queue, "x", Duration.ZERO, SendOptions.id("job"));
        claimOne(ops, 1, 1);
        // its lease runs out on its last attempt: the next claim dead-letters it, the running record stays behind
        await(() -> {
            claim(ops, 10, 1, 1, INSTANCE);
            return client.deadLetters(queue, 10).size() == 1;
        });
        assertThat(client.status(queue, "job").state()).isEqualTo(MessageStatus.State.UNKNOWN);
        assertThat(records(ops)).as("the claim that dead-lettered it deleted its running record").isZero();
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
    void aFullBatchGetsItsRecordsAndAClaimWithoutTheHistoryWritesNone() {
        QueueOps plain = ops("running-none");
        for (int i = 0; i < 10; i++) {
            client.send("running-none", "x", Duration.ZERO, SendOptions.id("m-" + i));
        }
        List<QueueOps.Claimed> none = new java.util.ArrayList<>();
        await(() -> {
            none.addAll(claim(plain, 1_000, 60_000, 5, null).messages());
            return none.size() == 10;
        });
        assertThat(records(plain)).isZero();

        String queue = "running-batch";
        QueueOps ops = ops(queue);
        for (int i = 0; i < 1_000; i++) {
            client.send(queue, "x", Duration.ZERO, SendOptions.id("m-" + i));
        }
        int claimed = 0;
        for (int call = 0; call < 1_000 && claimed < 1_000; call++) {
            claimed += claim(ops, 1_000, 60_000, 5, INSTANCE).messages().size();
        }
        assertThat(claimed).isEqualTo(1_000);
        assertThat(records(ops)).isEqualTo(1_000);
        assertThat(settled(ops)).as("running records are not in the history's pages, count or trims").isZero();
        assertThat(client.status(queue, "m-999").running().instance()).isEqualTo(INSTANCE);
    }

    private static void await(java.util.concurrent.Callable<Boolean> condition) {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(condition);
    }
}
