package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.delayqueue.testing.RedisProcesses;
import io.github.delayqueue.testing.TestRedis;

/**
 * {@link ClientOptions.Builder#replicasRequired} false (the starter's default, issue 31 item 9): sends wait for the
 * replica while the master has one that acknowledges, and neither fail nor stall while it has none. On a master and a
 * replica of this test's own (the replica is killed); sends start without waiting until the background probe finds
 * the replica. A send that waited each time for the replica that is gone would take the timeout every time; one that
 * failed would throw {@link NotReplicatedException} (what {@code replicasRequired(true)} does).
 */
class ReplicaWaitTest {

    /** The replica timeout of these tests: a send that waited for a replica that is gone takes at least this long. */
    private static final Duration TIMEOUT = Duration.ofMillis(300);

    @Test
    void sendsWaitWhileTheReplicaAcknowledgesAndNeitherFailNorStallWhileItIsDown() {
        try (RedisProcesses servers = new RedisProcesses()) {
            int master = TestRedis.freePort();
            int replica = TestRedis.freePort();
            servers.start(master, false, "repl-diskless-sync yes", "repl-diskless-sync-delay 0");
            servers.start(replica, false, "replicaof 127.0.0.1 " + master);
            awaitInSync(replica);
            RedissonClient redisson = singleServer(master);
            try {
                DelayQueueClient client = DelayQueueClient.create(redisson, ClientOptions.builder()
                        .keyPrefix(TestRedis.uniquePrefix()).waitForReplicas(1, TIMEOUT).replicasRequired(false).build());
                client.send("replicated", "first", Duration.ofHours(1)); // starts the probe
                await("sends wait for the replica").atMost(Duration.ofSeconds(20)).until(() -> sendsWait(client, master));

                client.send("replicated", "to cancel", Duration.ofHours(1), SendOptions.id("cancelled"));
                servers.kill(replica);
                // the first write after the kill (a versioned cancel, as the outbox's relay writes) waits the timeout
                // for the replica that is gone and returns, applied: with replicas required it would throw
                assertThat(client.applyVersioned("replicated", List.of(VersionedIntent.cancel("cancelled", 1)),
                        Duration.ofMinutes(1))).containsExactly(VersionedIntent.Outcome.APPLIED);
                assertThat(client.message("replicated", "cancelled")).isEmpty();
                // every send returns, written, and none waits for the replica that is gone (a send that waited each
                // time would take the timeout, 300 ms, every time)
                List<Long> millis = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    long started = System.nanoTime();
                    client.send("replicated", "while-down-" + i, Duration.ofHours(1), SendOptions.id("down-" + i));
                    millis.add((System.nanoTime() - started) / 1_000_000);
                }
                System.out.println("replica-down send_ms=" + millis);
                assertThat(millis.stream().filter(ms -> ms >= TIMEOUT.toMillis()).count())
                        .as("sends that waited the replica timeout while the replica was down: %s", millis)
                        .isLessThanOrEqualTo(1);
                for (int i = 0; i < 40; i++) {
                    assertThat(client.message("replicated", "down-" + i)).isPresent();
                }

                servers.restart(replica);
                awaitInSync(replica);
                await("sends wait for the replica again").atMost(Duration.ofSeconds(30))
                        .until(() -> sendsWait(client, master));
            } finally {
                redisson.shutdown();
            }
        }
    }

    @Test
    void onAMasterWithoutReplicaNoSendWaits() {
        try (RedisProcesses servers = new RedisProcesses()) {
            int master = TestRedis.freePort();
            servers.start(master, false);
            RedissonClient redisson = singleServer(master);
            try {
                DelayQueueClient client = DelayQueueClient.create(redisson, ClientOptions.builder()
                        .keyPrefix(TestRedis.uniquePrefix()).waitForReplicas(1, TIMEOUT).replicasRequired(false).build());
                List<Long> millis = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    long started = System.nanoTime();
                    client.sendAll("alone", List.of(SendRequest.of("m-" + i, Duration.ofHours(1))));
                    client.send("alone", "s-" + i, Duration.ofHours(1));
                    millis.add((System.nanoTime() - started) / 1_000_000);
                }
                assertThat(millis).as("a send and a sendAll, 40 times").allMatch(ms -> ms < TIMEOUT.toMillis());
                assertThat(client.stats("alone").pending()).isEqualTo(80);
            } finally {
                redisson.shutdown();
            }
        }
    }

    /** Whether three sends in a row each ran a WAIT on the master (a probe runs at most once a second). */
    private static boolean sendsWait(DelayQueueClient client, int master) {
        for (int i = 0; i < 3; i++) {
            long before = waitCalls(master);
            client.send("replicated", "probe", Duration.ofHours(1));
            if (waitCalls(master) <= before) {
                return false;
            }
        }
        return true;
    }

    private static long waitCalls(int port) {
        String stats = String.valueOf(RedisProcesses.call(port, "INFO", "commandstats"));
        int at = stats.indexOf("cmdstat_wait:calls=");
        if (at < 0) {
            return 0;
        }
        int from = at + "cmdstat_wait:calls=".length();
        int to = stats.indexOf(',', from);
        return Long.parseLong(stats.substring(from, to));
    }

    private static void awaitInSync(int replica) {
        await("replica in sync").atMost(Duration.ofSeconds(20)).until(() -> String
                .valueOf(RedisProcesses.call(replica, "INFO", "replication")).contains("master_link_status:up"));
    }

    private static RedissonClient singleServer(int port) {
        Config config = new Config();
        config.setThreads(2);
        config.setNettyThreads(4);
        config.useSingleServer().setAddress("redis://127.0.0.1:" + port).setConnectionMinimumIdleSize(2)
                .setSubscriptionConnectionMinimumIdleSize(1);
        return Redisson.create(config);
    }
}
