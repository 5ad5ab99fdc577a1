package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.core.protocol.ClaimLimits;
import io.github.delayqueue.core.protocol.GroupLimits;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.Scripts;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * {@link QueueFlow#throttled()} of a queue with group limits: a due grouped message whose group a claim would not read
 * now (its next permit or hold ahead, or at its in-flight cap) is throttled, and counted in
 * {@link QueueFlow#throttledByGroups()}; the due messages of the groups whose turn has come are not, so
 * {@code ready - throttled} stays the due messages a consumer with a free slot would take at once. The claims are
 * made by hand with the limits a consumer would pass, so every count is exact: a permit a minute frees none while the
 * test reads. Before, {@code throttled} counted the queue-wide limits only, and every message below read 0.
 */
@ExtendWith(RedisExtension.class)
class FlowGroupsStatsTest {

    private static final long LEASE = 60_000;

    private final RedisContext redis;

    FlowGroupsStatsTest(RedisContext redis) {
        this.redis = redis;
    }

    private void send(String queue, String prefix, int messages, String group) {
        List<SendRequest> batch = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            SendOptions options = SendOptions.id(prefix + i);
            batch.add(SendRequest.of("m", Duration.ZERO, group == null ? options : options.group(group)));
        }
        redis.client().sendAll(queue, batch);
    }

    private QueueOps ops(String queue) {
        return new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
    }

    private static QueueOps.ClaimResult claim(QueueOps ops, int limit, ClaimLimits flow, GroupLimits groups) {
        return ops.claim(limit, LEASE, 5, 100, 60_000, 1_000, flow, false, groups);
    }

    private QueueStats readyStats(String queue, long ready) {
        // due times round up to the next millisecond
        await().until(() -> redis.client().stats(queue).ready() == ready);
        return redis.client().stats(queue);
    }

    @Test
    void aGroupAtItsRateLimitHasItsDueMessagesThrottledAndAGroupWhoseTurnCameHasNot() {
        String queue = "throttled-group-rate";
        send(queue, "a", 10, "A");
        readyStats(queue, 10);
        QueueOps ops = ops(queue);
        // a burst of 2 per group at one a minute: A's next permit is a minute away
        GroupLimits limits = GroupLimits.of(RateLimit.parse("1/1m").withBurst(2), 0, 0, 1);
        assertThat(claim(ops, 10, ClaimLimits.NONE, limits).messages()).hasSize(2);

        QueueStats stats = readyStats(queue, 8);
        assertThat(stats.flow().throttled()).isEqualTo(8); // old code: 0 (no queue-wide limit)
        assertThat(stats.flow().throttledByGroups()).isEqualTo(8);
        // the flow view is there for a queue with group limits only while a group holds due messages back
        assertThat(stats.flow()).isNotEqualTo(QueueFlow.NONE);
        assertThat(stats.flow().rateLimit()).isNull();

        // B, never claimed, and ungrouped messages: due, and a claim would take them at once
        send(queue, "b", 3, "B");
        send(queue, "u", 4, null);
        stats = readyStats(queue, 15);
        assertThat(stats.flow().throttled()).isEqualTo(8);
        assertThat(stats.flow().throttledByGroups()).isEqualTo(8);
        assertThat(stats.ready() - stats.flow().throttled()).isEqualTo(7);

        // a pause is not a limit: 0 while paused, groups too
        redis.client().pause(queue);
        assertThat(redis.client().stats(queue).flow().throttled()).isZero();
        assertThat(redis.client().stats(queue).flow().throttledByGroups()).isZero();
        redis.client().resume(queue);
        assertThat(redis.client().stats(queue).flow().throttled()).isEqualTo(8);
    }

    @Test
    void aGroupAtItsInFlightCapHasItsDueMessagesThrottledUntilASettleFreesAPlace() {
        String queue = "throttled-group-cap";
        send(queue, "a", 6, "A");
        readyStats(queue, 6);
        QueueOps ops = ops(queue);
        GroupLimits limits = GroupLimits.of(null, 2, 0, 1);
        List<QueueOps.Claimed> claimed = claim(ops, 10, ClaimLimits.NONE, limits).messages();
        assertThat(claimed).hasSize(2);
        // the claim that reached the cap marks the group: the next claim passes it over
        assertThat(claim(ops, 10, ClaimLimits.NONE, limits).messages()).isEmpty();

        QueueStats stats = readyStats(queue, 4);
        assertThat(stats.inFlight()).isEqualTo(2);
        assertThat(stats.flow().throttled()).isEqualTo(4);
        assertThat(stats.flow().throttledByGroups()).isEqualTo(4);

        // an ack frees a place: the group's turn has come again, nothing is held
        QueueOps.Claimed first = claimed.get(0);
        assertThat(ops.settle(List.of(new QueueOps.Settlement(QueueOps.SettleOp.ACK, first.member(), first.attempt(), 0,
                null)))[0]).isTrue();
        QueueFlow flow = redis.client().stats(queue).flow();
        assertThat(flow.throttled()).isZero();
        assertThat(flow).isEqualTo(QueueFlow.NONE);
    }

    @Test
    void aGroupsSlowDownHoldThrottlesItsDueMessagesOnly() {
        String queue = "throttled-group-hold";
        send(queue, "a", 5, "A");
        send(queue, "b", 2, "B");
        readyStats(queue, 7);
        QueueOps ops = ops(queue);
        ops.holdGroup(60_000, "A");
        QueueStats stats = redis.client().stats(queue);
        assertThat(stats.ready()).isEqualTo(7);
        assertThat(stats.flow().throttled()).isEqualTo(5);
        assertThat(stats.flow().throttledByGroups()).isEqualTo(5);
        assertThat(stats.flow().holdUntil()).isNull(); // a group's hold, not the queue's
    }

    @Test
    void theQueueWideLimitsThrottleWhatTheGroupsLetGoBeyondTheirRoom() {
        String queue = "throttled-group-and-queue";
        send(queue, "a", 10, "A");
        readyStats(queue, 10);
        QueueOps ops = ops(queue);
        ClaimLimits flow = ClaimLimits.of(null, 5, 0, 1); // at most 5 in flight, queue-wide
        GroupLimits groups = GroupLimits.of(RateLimit.parse("1/1m").withBurst(2), 0, 0, 1);
        assertThat(claim(ops, 10, flow, groups).messages()).hasSize(2);
        send(queue, "b", 3, "B");
        send(queue, "u", 4, null);

        QueueStats stats = readyStats(queue, 15);
        // A's 8 by its group's limit; of the 7 a claim could read, the cap leaves room for 3
        assertThat(stats.flow().throttledByGroups()).isEqualTo(8);
        assertThat(stats.flow().throttled()).isEqualTo(8 + 4);
        assertThat(stats.flow().maxInFlight()).isEqualTo(5);

        // a queue-wide hold holds them all
        ops.hold(60_000);
        QueueFlow held = redis.client().stats(queue).flow();
        assertThat(held.throttled()).isEqualTo(15);
        assertThat(held.throttledByGroups()).isEqualTo(8);
    }

    @Test
    void aPartitionedQueueSumsWhatEachPartitionsGroupsHoldBack() {
        String queue = "throttled-group-partitioned";
        int n = 3;
        DelayQueueClient client = DelayQueueClient.create(redis.redisson(),
                ClientOptions.builder().keyPrefix(redis.prefix()).partitions(queue, n).build());
        List<SendRequest> batch = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            batch.add(SendRequest.of("m", Duration.ZERO, SendOptions.id("a" + i).group(i < 9 ? "A" : "B")));
        }
        client.sendAll(queue, batch);
        await().until(() -> client.stats(queue).ready() == 12);
        Scripts scripts = new Scripts(redis.redisson());
        for (int p = 0; p < n; p++) {
            new QueueOps(scripts, QueueKeys.of(redis.prefix(), queue, p, n)).holdGroup(60_000, "A"); // as a slow-down does
        }
        QueueFlow flow = client.stats(queue).flow();
        assertThat(flow.throttled()).isEqualTo(9);
        assertThat(flow.throttledByGroups()).isEqualTo(9);
    }
}
