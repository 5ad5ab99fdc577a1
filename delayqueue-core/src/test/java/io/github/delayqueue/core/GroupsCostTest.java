package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.delayqueue.core.protocol.ClaimLimits;
import io.github.delayqueue.core.protocol.GroupLimits;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.Scripts;
import io.github.delayqueue.testing.RedisProcesses;
import io.github.delayqueue.testing.TestRedis;

/**
 * A group at its limit is passed over without reading its messages: a claim costs the same Redis commands with
 * 100,000 of the group's messages due as with 10. Counted by INFO commandstats on a Redis server of this test's own
 * (no other test's commands in the count), in commands rather than time, so a loaded machine cannot make it flaky.
 */
class GroupsCostTest {

    private static final GroupLimits ONE_PER_HOUR = GroupLimits.of(RateLimit.parse("1/1h"), 0, 0, 1);
    private static final GroupLimits ONE_IN_FLIGHT = GroupLimits.of(null, 1, 0, 1);

    @Test
    void aClaimPassesOverAGroupAtItsLimitWhateverItsBacklog() {
        onOwnServer((port, redisson, client) -> {
            String prefix = client.options().keyPrefix();
            for (GroupLimits limits : List.of(ONE_PER_HOUR, ONE_IN_FLIGHT)) {
                TreeMap<String, Long> small = claimCommands(client, redisson, port, prefix, "small-" + limits.maxInFlight(),
                        10, limits);
                TreeMap<String, Long> big = claimCommands(client, redisson, port, prefix, "big-" + limits.maxInFlight(),
                        100_000, limits);
                // the same commands, the same number of times: nothing per message of the group at its limit
                assertThat(big).as("claim with a group of 100,000 at its limit (%s)", limits).isEqualTo(small);
            }
        });
    }

    /**
     * A queue without groups pays nothing for them: an ungrouped send, claim and ack run exactly the Redis commands they
     * ran before groups existed (the maps below, counted the same way on the release before groups; the ack runs two
     * fewer since), by name and number, for a queue already holding a message. Groups' own upkeep runs on the pollers'
     * periodic pass (QueueOps.markGroups), not here.
     */
    @Test
    void anUngroupedSendClaimAndAckRunTheCommandsTheyRanBeforeGroups() {
        onOwnServer((port, redisson, client) -> {
            QueueOps ops = new QueueOps(new Scripts(redisson), QueueKeys.of(client.options().keyPrefix(), "plain"));
            client.sendAt("plain", "warm", Instant.now().minusSeconds(1)); // the scripts loaded, the queue not empty
            TreeMap<String, Long> send = counted(port, () -> client.sendAt("plain", "x", Instant.now().minusSeconds(1)));
            List<QueueOps.Claimed> claimed = new ArrayList<>();
            TreeMap<String, Long> claim = counted(port, () -> claimed.addAll(
                    ops.claim(10, 60_000, 5, 100, Duration.ofDays(1).toMillis(), 1000).messages()));
            assertThat(claimed).hasSize(2);
            List<QueueOps.Settlement> acks = new ArrayList<>();
            for (QueueOps.Claimed message : claimed) {
                acks.add(new QueueOps.Settlement(QueueOps.SettleOp.ACK, message.member(), message.attempt(), 0, null, true));
            }
            TreeMap<String, Long> ack = counted(port, () -> ops.settle(acks));
            // counted by this test's own code on main @ 3d43f9b (the release before groups): the same maps
            assertThat(send).hasToString("{hexists=1, hset=1, incrby=1, time=1, zadd=1, zcount=1}");
            assertThat(claim).hasToString("{hexists=1, hget=1, hmget=2, hset=1, time=1, zadd=1, zcard=1, zmscore=1, "
                    + "zrange=2, zrangebyscore=4, zrem=1}");
            // before groups the ack also ran an HDEL of the last error and a ZRANGE of the head: both cut since (issue 37)
            assertThat(ack).hasToString("{hdel=3, hmget=1, time=1, zmscore=1, zrem=1}");
        });
    }

    /**
     * The stats of a queue without groups run exactly the Redis commands they ran before {@code throttled} counted the
     * groups' held messages (the maps below, counted the same way on main @ 9925730), and one ZCARD more since they
     * count the history's records: without limits, and with a queue-wide cap that holds due messages back (the paused
     * check then runs).
     */
    @Test
    void anUngroupedStatsRunsTheCommandsItRanBeforeThrottledCountedGroups() {
        onOwnServer((port, redisson, client) -> {
            QueueOps ops = new QueueOps(new Scripts(redisson), QueueKeys.of(client.options().keyPrefix(), "plain"));
            for (int i = 0; i < 3; i++) {
                client.sendAt("plain", "m" + i, Instant.now().minusSeconds(1));
            }
            client.stats("plain"); // the script loaded
            TreeMap<String, Long> plain = counted(port, () -> assertThat(client.stats("plain").ready()).isEqualTo(3));
            assertThat(ops.claim(10, 60_000, 5, 100, Duration.ofDays(1).toMillis(), 1000, ClaimLimits.of(null, 1, 0, 1))
                    .messages()).hasSize(1);
            TreeMap<String, Long> capped = counted(port, () -> assertThat(client.stats("plain").flow().throttled())
                    .isEqualTo(2));
            assertThat(plain).hasToString("{hget=1, hmget=1, time=1, zcard=4, zcount=1, zrange=1, zscore=1}");
            assertThat(capped).hasToString("{hexists=1, hget=1, hmget=1, time=1, zcard=5, zcount=1, zrange=1, zscore=1}");
        });
    }

    /**
     * A grouped hand-back renumbers the message but runs no ZREM more than a grouped retry (which keeps its member):
     * the old member leaves the group's in-flight set through group_pend itself. It ran one more (a ZREM of the new
     * member from that set, which removed nothing), untrue of benchmarks.md's "none more per op".
     */
    @Test
    void aGroupedHandBackRunsNoZremMoreThanAGroupedRetry() {
        onOwnServer((port, redisson, client) -> {
            QueueOps ops = new QueueOps(new Scripts(redisson), QueueKeys.of(client.options().keyPrefix(), "cost"));
            Instant past = Instant.now().minusSeconds(1);
            for (int i = 0; i < 4; i++) {
                client.sendAt("cost", "m" + i, past, SendOptions.id("m" + i).group("G"));
            }
            List<QueueOps.Claimed> claimed = ops.claim(10, 60_000, 5, 100, Duration.ofDays(14).toMillis(),
                    Integer.MAX_VALUE).messages();
            assertThat(claimed).hasSize(4);
            // the settle script loaded before the counts
            ops.settle(List.of(new QueueOps.Settlement(QueueOps.SettleOp.ACK, claimed.get(0).member(),
                    claimed.get(0).attempt(), 0, null, true)));
            QueueOps.Claimed h = claimed.get(1);
            QueueOps.Claimed r = claimed.get(2);
            TreeMap<String, Long> handBack = counted(port, () -> assertThat(ops.settle(List.of(new QueueOps.Settlement(
                    QueueOps.SettleOp.HAND_BACK, h.member(), h.attempt(), h.dueMs(), null)))).containsExactly(true));
            TreeMap<String, Long> retry = counted(port, () -> assertThat(ops.settle(List.of(new QueueOps.Settlement(
                    QueueOps.SettleOp.RETRY, r.member(), r.attempt(), 0, "x")))).containsExactly(true));
            assertThat(handBack.getOrDefault("zrem", 0L)).as("ZREMs of a grouped hand-back")
                    .isEqualTo(retry.getOrDefault("zrem", 0L)).isPositive();
        });
    }

    /**
     * Sends {@code backlog} messages of group G, all due; a first claim takes one and puts G at its limit; then a
     * message of group H is sent and one claim is counted: the commands it ran, by name.
     */
    private static TreeMap<String, Long> claimCommands(DelayQueueClient client, RedissonClient redisson, int port,
            String prefix, String queue, int backlog, GroupLimits limits) {
        List<SendRequest> batch = new ArrayList<>();
        for (int i = 0; i < backlog; i++) {
            // due a second ago: a claim in the millisecond of the send would not see it due yet (never early)
            batch.add(SendRequest.at("g", Instant.now().minusSeconds(1), SendOptions.none().group("G")));
            if (batch.size() == 10_000 || i == backlog - 1) {
                client.sendAll(queue, batch);
                batch.clear();
            }
        }
        QueueOps ops = new QueueOps(new Scripts(redisson), QueueKeys.of(prefix, queue));
        assertThat(claim(ops, limits).messages()).hasSize(1); // G at its limit: an hour to its next permit, or its cap
        client.sendAt(queue, "h", Instant.now().minusSeconds(1), SendOptions.none().group("H"));
        List<QueueOps.Claimed> measured = new ArrayList<>();
        TreeMap<String, Long> calls = counted(port, () -> measured.addAll(claim(ops, limits).messages()));
        assertThat(measured).extracting(QueueOps.Claimed::envelope).allMatch(e -> e.endsWith("\"h\""));
        assertThat(measured).hasSize(1);
        assertThat(client.stats(queue).pending()).isEqualTo(backlog - 1);
        return calls;
    }

    /** A body run against a Redis server of the test's own (no other test's commands in its counts). */
    interface OnServer {
        void run(int port, RedissonClient redisson, DelayQueueClient client);
    }

    static void onOwnServer(OnServer body) {
        try (RedisProcesses servers = new RedisProcesses()) {
            int port = TestRedis.freePort();
            servers.start(port, false);
            Config config = new Config();
            config.useSingleServer().setAddress("redis://127.0.0.1:" + port).setPingConnectionInterval(0);
            RedissonClient redisson = Redisson.create(config);
            try {
                body.run(port, redisson, DelayQueueClient.create(redisson, ClientOptions.builder()
                        .keyPrefix(TestRedis.uniquePrefix()).build()));
            } finally {
                redisson.shutdown();
            }
        }
    }

    /** The commands {@code action} made the server run, by name (statistics reset just before it). */
    static TreeMap<String, Long> counted(int port, Runnable action) {
        RedisProcesses.call(port, "CONFIG", "RESETSTAT");
        action.run();
        return commands(String.valueOf(RedisProcesses.call(port, "INFO", "commandstats")));
    }

    private static QueueOps.ClaimResult claim(QueueOps ops, GroupLimits limits) {
        return ops.claim(100, 60_000, 5, 100, Duration.ofDays(1).toMillis(), 1000, ClaimLimits.NONE, false, limits);
    }

    /** The calls of every command INFO commandstats lists, but the test's own (CONFIG, INFO) and the script call's. */
    private static TreeMap<String, Long> commands(String info) {
        TreeMap<String, Long> calls = new TreeMap<>();
        for (String line : info.split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String name = line.substring("cmdstat_".length(), line.indexOf(':'));
            if (name.startsWith("config") || name.equals("info") || name.startsWith("eval") || name.startsWith("script")
                    || name.equals("ping")) {
                continue;
            }
            int at = line.indexOf("calls=") + "calls=".length();
            calls.put(name, Long.parseLong(line, at, line.indexOf(',', at), 10));
        }
        return calls;
    }
}
