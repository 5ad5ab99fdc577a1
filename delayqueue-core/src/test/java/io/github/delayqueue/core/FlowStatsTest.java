package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

import io.github.delayqueue.core.protocol.ClaimLimits;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.Scripts;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;
import io.github.delayqueue.testing.TestRedis;

/**
 * The flow state of {@link QueueStats#flow()} as any application reads it from Redis: one with no consumer and no
 * limits of its own (its own Redisson client) sees the limits the other instances' claims apply, the claim rate,
 * the throttled backlog, the hold and the cap. The claims are made by hand with the limits a consumer would pass,
 * so every figure is exact: a rate of one permit a minute frees none while the test reads.
 */
@ExtendWith(RedisExtension.class)
class FlowStatsTest {

    private static final long LEASE = 60_000;

    private final RedisContext redis;
    private final List<RedissonClient> clients = new ArrayList<>();

    FlowStatsTest(RedisContext redis) {
        this.redis = redis;
    }

    @AfterEach
    void tearDown() {
        clients.forEach(RedissonClient::shutdown);
    }

    /** Another application on the same Redis and key prefix: it consumes nothing and knows no limits. */
    private DelayQueueClient observer(ClientOptions.Builder options) {
        RedissonClient own = TestRedis.newClient();
        clients.add(own);
        return DelayQueueClient.create(own, options.keyPrefix(redis.prefix()).build());
    }

    private void send(String queue, int messages) {
        List<SendRequest> batch = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            batch.add(SendRequest.of("m" + i, Duration.ZERO));
        }
        redis.client().sendAll(queue, batch);
    }

    private static QueueOps.ClaimResult claim(QueueOps ops, int limit, ClaimLimits limits) {
        return ops.claim(limit, LEASE, 5, 100, 60_000, 1_000, limits);
    }

    /**
     * The claim rate counts the claims of the current 10 s window of the Redis clock and a share of the previous one:
     * exactly {@code expected} while the claims and the read fall in one window, less (never more) once it turned.
     */
    private static void assertClaimRate(QueueFlow flow, double expected, long claimMs, long readMs) {
        assertThat(flow.claimsPerSecond()).isNotNull();
        if (claimMs / 10_000 == readMs / 10_000) {
            assertThat(flow.claimsPerSecond()).isCloseTo(expected, org.assertj.core.data.Offset.offset(1e-9));
        } else {
            assertThat(flow.claimsPerSecond()).isPositive().isLessThanOrEqualTo(expected + 1e-9);
        }
    }

    @Test
    void anotherApplicationSeesTheLimitsTheClaimRateTheThrottledBacklogAndTheHold() {
        String queue = "viewed";
        send(queue, 10);
        DelayQueueClient observer = observer(ClientOptions.builder());
        await().until(() -> observer.stats(queue).ready() == 10);
        assertThat(observer.stats(queue).flow()).isEqualTo(QueueFlow.NONE); // nothing claimed under limits yet

        QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
        // one permit a minute, 4 at once after a quiet spell, at most 5 in flight: the claim takes the burst, and the
        // next permit is a minute away
        ClaimLimits limits = ClaimLimits.of(RateLimit.parse("1/1m").withBurst(4), 5, 0, 1);
        QueueOps.ClaimResult claimed = claim(ops, 10, limits);
        assertThat(claimed.messages()).hasSize(4);

        QueueStats stats = observer.stats(queue);
        assertThat(stats.ready()).isEqualTo(6);
        assertThat(stats.inFlight()).isEqualTo(4);
        QueueFlow flow = stats.flow();
        assertThat(flow.rateLimit()).isEqualTo(RateLimit.parse("1/1m").withBurst(4));
        assertThat(flow.rateLimit()).hasToString("1/1m burst 4");
        assertThat(flow.maxInFlight()).isEqualTo(5);
        assertThat(flow.atMaxInFlight()).isFalse();
        // the cap would let one more go, the rate limit none: all six due messages are throttled
        assertThat(flow.throttled()).isEqualTo(6);
        assertThat(flow.holdUntil()).isNull();
        // 4 claimed in the last 10 s: 0.4 a second (less if the 10 s window turned between claim and read)
        assertClaimRate(flow, 0.4, claimed.serverNowMs(), stats.serverTime().toEpochMilli());
        // an application that answers with the stats as JSON (the sample's /queues does) shows the limit as written
        assertThat(tools.jackson.databind.json.JsonMapper.builder().build().writeValueAsString(stats))
                .contains("\"rateLimit\":\"1/1m burst 4\"", "\"throttled\":6");

        // a pause is not a limit: while paused, the pause holds the due messages and throttled says 0
        observer.pause(queue);
        assertThat(observer.stats(queue).flow().throttled()).isZero();
        observer.resume(queue);
        assertThat(observer.stats(queue).flow().throttled()).isEqualTo(6);

        // a handler said "slow down": every due message is held, whatever the limits would let go
        long holdEnd = ops.hold(30_000);
        QueueFlow held = observer.stats(queue).flow();
        assertThat(held.holdUntil()).isEqualTo(Instant.ofEpochMilli(holdEnd));
        assertThat(held.throttled()).isEqualTo(6);

        // a claim without limits leaves the record alone (it reads the hold only: a queue without limits pays nothing)
        assertThat(ops.claim(10, LEASE, 5, 100, 60_000, 1_000).messages()).isEmpty(); // the hold holds it back
        assertThat(observer.stats(queue).flow().rateLimit()).isNotNull();
        // a consumer without limits deletes the record when it starts: the view shows what the claims enforce
        DelayQueueConsumer unlimited = observer.newConsumer(queue, String.class, (payload, context) -> { },
                ConsumerOptions.builder().build());
        unlimited.start();
        try {
            await().until(() -> observer.stats(queue).flow().rateLimit() == null);
        } finally {
            unlimited.stop();
        }
        QueueFlow none = observer.stats(queue).flow();
        assertThat(none.maxInFlight()).isZero();
        assertThat(none.throttled()).isEqualTo(6); // the hold still holds them
        assertThat(none.holdUntil()).isEqualTo(Instant.ofEpochMilli(holdEnd));
        // and a claim with limits records them again
        assertThat(claim(ops, 10, limits).messages()).isEmpty();
        assertThat(observer.stats(queue).flow().rateLimit()).isEqualTo(RateLimit.parse("1/1m").withBurst(4));
    }

    @Test
    void atTheCapEveryDueMessageIsThrottledAndAPartitionedQueueSumsItsPartitions() {
        String queue = "viewed-partitioned";
        int n = 3;
        DelayQueueClient observer = observer(ClientOptions.builder().partitions(queue, n));
        List<SendRequest> batch = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            batch.add(SendRequest.of("m" + i, Duration.ZERO));
        }
        observer.sendAll(queue, batch);
        await().until(() -> observer.stats(queue).ready() == 30); // due times round up to the next millisecond
        // 30/1s with a burst of 3 and 3 in flight, split over 3 partitions: 10/1s, a burst of 1 and 1 in flight each
        RateLimit rate = RateLimit.parse("30/1s").withBurst(3);
        Scripts scripts = new Scripts(redis.redisson());
        int claimed = 0;
        long firstClaimMs = 0;
        for (int p = 0; p < n; p++) {
            QueueOps part = new QueueOps(scripts, QueueKeys.of(redis.prefix(), queue, p, n));
            QueueOps.ClaimResult result = claim(part, 10, ClaimLimits.of(rate, 3, p, n));
            claimed += result.messages().size();
            firstClaimMs = p == 0 ? result.serverNowMs() : firstClaimMs;
        }
        assertThat(claimed).isEqualTo(3); // one each: the cap's share

        QueueStats stats = observer.stats(queue);
        assertThat(stats.inFlight()).isEqualTo(3);
        QueueFlow flow = stats.flow();
        assertThat(flow.rateLimit()).isEqualTo(rate);
        assertThat(flow.maxInFlight()).isEqualTo(3);
        assertThat(flow.atMaxInFlight()).isTrue();
        assertThat(flow.throttled()).isEqualTo(stats.ready()).isEqualTo(27); // every partition at its cap
        assertClaimRate(flow, 0.3, firstClaimMs, stats.serverTime().toEpochMilli());
        assertThat(flow.holdUntil()).isNull();
    }

    @Test
    void aRateLimitWithPermitsFreeThrottlesOnlyTheMessagesBeyondThem() {
        String queue = "viewed-free";
        send(queue, 10);
        DelayQueueClient observer = observer(ClientOptions.builder());
        await().until(() -> observer.stats(queue).ready() == 10);
        QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
        // a burst of 8 at one a minute: a claim of 2 (its consumer's free slots) leaves 6 permits free
        ClaimLimits limits = ClaimLimits.of(RateLimit.parse("1/1m").withBurst(8), 0, 0, 1);
        assertThat(claim(ops, 2, limits).messages()).hasSize(2);
        QueueStats stats = observer.stats(queue);
        assertThat(stats.ready()).isEqualTo(8);
        assertThat(stats.flow().throttled()).isEqualTo(2); // 6 could be claimed at once, 2 wait for permits
        assertThat(stats.flow().maxInFlight()).isZero();
        assertThat(stats.flow().atMaxInFlight()).isFalse();
    }
    @Test
    void aConsumerWithoutLimitsForgetsTheLimitsAndTheClaimCountsSoTheViewIsNoneOnceTheHoldEnds() {
        String queue = "viewed-forgotten";
        send(queue, 3);
        DelayQueueClient observer = observer(ClientOptions.builder());
        await().until(() -> observer.stats(queue).ready() == 3);
        QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
        assertThat(claim(ops, 2, ClaimLimits.of(RateLimit.parse("1/1m").withBurst(2), 5, 0, 1)).messages()).hasSize(2);
        assertThat(observer.stats(queue).flow().claimsPerSecond()).isNotNull(); // the claim counted under limits
        ops.hold(300);

        DelayQueueConsumer unlimited = observer.newConsumer(queue, String.class, (payload, context) -> { },
                ConsumerOptions.builder().build());
        unlimited.start();
        try {
            // no limits, no claim rate (the counts went with them), and once the hold ends, nothing at all
            await().until(() -> observer.stats(queue).flow().equals(QueueFlow.NONE));
        } finally {
            unlimited.stop();
        }
    }

    @Test
    void aRollingDeployThatRemovesTheLimitsShowsNoneSoonAfterTheLastInstanceWithLimitsStops() {
        String queue = "viewed-rolling";
        Duration poll = Duration.ofMillis(200);
        DelayQueueClient old = observer(ClientOptions.builder());
        DelayQueueClient updated = observer(ClientOptions.builder());
        DelayQueueConsumer limited = old.newConsumer(queue, String.class, (payload, context) -> { },
                ConsumerOptions.builder().rateLimit(RateLimit.parse("1/1m")).maxInFlight(1).maxPollInterval(poll).build());
        DelayQueueConsumer unlimited = updated.newConsumer(queue, String.class, (payload, context) -> { },
                ConsumerOptions.builder().maxPollInterval(poll).build());
        limited.start();
        try {
            unlimited.start(); // forgets the limits; the old instance's next claim records them again: on an idle queue,
            // its periodic turn (every 30 poll intervals, 6 s here, taken in turn by the two instances: 12 s)
            await().atMost(Duration.ofSeconds(40)).until(() -> updated.stats(queue).flow().rateLimit() != null);
        } finally {
            limited.stop();
        }
        try {
            // the instance without limits forgets them again on its periodic turn: once it knows it is alone (its next
            // beat, within 5 s), within 30 poll intervals (6 s here); before, it did so only when it started and the
            // old limits stayed in the view for good
            await().atMost(Duration.ofSeconds(40)).until(() -> updated.stats(queue).flow().equals(QueueFlow.NONE));
        } finally {
            unlimited.stop();
        }
    }
}
