package io.github.delayqueue.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.ConstantDelay;
import org.redisson.config.SentinelServersConfig;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.testing.RedisProcesses;
import io.github.delayqueue.testing.TestCluster;
import io.github.delayqueue.testing.TestRedis;
import io.github.delayqueue.testing.TestSentinel;

/**
 * Issue 20: the Redis master that holds a queue fails while producers send and a consumer consumes. On a Redis Cluster
 * of 3 masters and 3 replicas ({@code cluster-node-timeout} 2 s), one cluster for three scenarios, each on a queue whose
 * hash tag lives on another master: the master is SIGKILLed with Redisson's default client settings and no
 * wait-for-replicas; SIGKILLed with the tuned settings ({@link #tune(ClusterServersConfig)}) and wait-for-replicas 1;
 * and failed over by hand ({@code CLUSTER FAILOVER} on its replica). With wait-for-replicas the killed master is
 * started again after the promotion: until it rejoins as a replica, the new master has none, and sends throw. Then through Sentinel (master, replica, three
 * sentinels, {@code down-after-milliseconds} 2 s): the master is SIGKILLed, wait-for-replicas 1; once it is back as a
 * replica, the new master is SIGKILLed, without wait-for-replicas.
 *
 * <p>Each prints a FAULT line: {@code lost} (sends that returned and were never handled), {@code duplicates} (extra
 * handler calls), {@code stall_ms} (the longest time without a delivery from the kill on, while messages were due all
 * along), {@code stall_began_after_kill_ms} (0 when it began with the kill), {@code promoted_ms} (kill to the replica
 * answering as master) and {@code first_delivery_after_promotion_ms}.
 * Asserted: with wait-for-replicas, lost = 0; without it, whatever was lost was acknowledged in the last second before
 * the kill (the replication lag, not the engine).
 */
class FailoverTest {

    private static final int PRODUCERS = 2;

    /** The client settings the starter gives a cluster client (see RedissonConfigFactory) and this test measures. */
    static void tune(ClusterServersConfig servers) {
        servers.setScanInterval(500).setTimeout(3_000).setRetryAttempts(4)
                .setRetryDelay(new ConstantDelay(Duration.ofMillis(250)));
    }

    static void tune(SentinelServersConfig servers) {
        servers.setScanInterval(500).setTimeout(3_000).setRetryAttempts(4)
                .setRetryDelay(new ConstantDelay(Duration.ofMillis(250)));
    }

    @Test
    void aClusterMasterKilledOrFailedOverMidStream() {
        try (TestCluster cluster = TestCluster.startEmbedded(2_000)) {
            List<String> queues = queuesOnDistinctMasters(cluster);
            String prefix = TestRedis.uniquePrefix();

            // 1: as a user gets it without tuning: Redisson's defaults (topology scan every 5 s, retries 1-2 s apart)
            String q1 = queues.get(0);
            int master1 = cluster.masterPortOf("{" + q1 + "}");
            int replica1 = cluster.replicaPortOf(master1).orElseThrow();
 run("cluster-master-killed-redisson-defaults", prefix, q1, 0,
                    () -> cluster.newClient(s -> s.setTimeout(3_000)), () -> cluster.kill(master1),
                    () -> isMaster(replica1), () -> { }, "cluster(3+3,node_timeout=2000ms) client=redisson-defaults(scan=5000ms)");

            // 2: the tuned client and wait-for-replicas 1: nothing acknowledged may be lost
            String q2 = queues.get(1);
            int master2 = cluster.masterPortOf("{" + q2 + "}");
            int replica2 = cluster.replicaPortOf(master2).orElseThrow();
            run("cluster-master-killed", prefix, q2, 1, () -> cluster.newClient(FailoverTest::tune),
                    () -> cluster.kill(master2), () -> isMaster(replica2), () -> cluster.restart(master2),
                    "cluster(3+3,node_timeout=2000ms) client=tuned(scan=500ms,retry=4x250ms)");

            // 3: a manual, coordinated failover: the replica catches up before it takes over
            String q3 = queues.get(2);
            int master3 = cluster.masterPortOf("{" + q3 + "}");
            int replica3 = cluster.replicaPortOf(master3).orElseThrow();
            run("cluster-manual-failover", prefix, q3, 0, () -> cluster.newClient(FailoverTest::tune),
                    () -> cluster.failover(replica3), () -> isMaster(replica3), () -> { },
                    "cluster(3+3,node_timeout=2000ms) client=tuned(scan=500ms,retry=4x250ms) fault=CLUSTER_FAILOVER");

            // 4: a queue of three partitions, one on each master; the master holding one of them (one with a replica)
            // is killed. The other two partitions keep delivering; only that partition's messages wait for the promotion
            String q4 = "failover-partitioned";
            int[] masterOfPartition = new int[1];
            int[] replicaOfPartition = new int[1];
            run("cluster-partition-master-killed", prefix, q4, 0, 3, () -> cluster.newClient(FailoverTest::tune),
                    () -> {
                        // a partition whose master still has a replica: scenario 1 left one master without any
                        for (int p = 0; p < 3 && masterOfPartition[0] == 0; p++) {
                            int master = masterHolding(cluster, prefix + ":{" + q4 + "#" + p);
                            java.util.Optional<Integer> replica = cluster.replicaPortOf(master);
                            if (replica.isPresent()) {
                                masterOfPartition[0] = master;
                                replicaOfPartition[0] = replica.get();
                            }
                        }
                        cluster.kill(masterOfPartition[0]);
                    }, () -> isMaster(replicaOfPartition[0]), () -> { },
                    "cluster(3+3,node_timeout=2000ms) client=tuned(scan=500ms,retry=4x250ms) partitions=3 "
                            + "killed=the_master_of_one_partition");
        }
    }

    @Test
    void theSentinelMasterKilledMidStream() {
        try (TestSentinel sentinel = TestSentinel.startEmbedded(2_000)) {
            int master = sentinel.masterPort();
            int replica = sentinel.replicaPorts().get(0);
            String prefix = TestRedis.uniquePrefix();
            run("sentinel-master-killed", prefix, "sentinel-failover", 1,
                    () -> sentinel.newClient(FailoverTest::tune), () -> sentinel.kill(master),
                    () -> isMaster(replica) && sentinel.masterPort() == replica, () -> sentinel.restart(master),
                    "sentinel(master+replica+3_sentinels,down_after=2000ms) client=tuned(scan=500ms,retry=4x250ms)");

            // the old master is a replica again: kill the new one, this time without waiting for replicas
            await("the old master rejoined as a replica the sentinels see").atMost(Duration.ofSeconds(30))
                    .until(() -> inSync(master) && sentinelSeesHealthyReplica(sentinel, master));
            run("sentinel-master-killed-no-wait", prefix, "sentinel-failover-2", 0,
                    () -> sentinel.newClient(FailoverTest::tune), () -> sentinel.kill(replica),
                    () -> isMaster(master) && sentinel.masterPort() == master, () -> { },
                    "sentinel(master+replica+3_sentinels,down_after=2000ms) client=tuned(scan=500ms,retry=4x250ms)");
        }
    }

    private static boolean inSync(int port) {
        try {
            String info = String.valueOf(RedisProcesses.call(port, "INFO", "replication"));
            return info.contains("role:slave") && info.contains("master_link_status:up");
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Whether every sentinel lists the server on {@code port} as a replica that is not down. */
    private static boolean sentinelSeesHealthyReplica(TestSentinel sentinel, int port) {
        for (String address : sentinel.sentinels()) {
            String[] hp = address.split(":");
            List<?> replicas = (List<?>) RedisProcesses.call(hp[0], Integer.parseInt(hp[1]), "SENTINEL", "REPLICAS",
                    sentinel.master());
            boolean seen = false;
            for (Object replica : replicas) {
                List<?> fields = (List<?>) replica;
                Map<String, String> f = new HashMap<>();
                for (int i = 0; i + 1 < fields.size(); i += 2) {
                    f.put(String.valueOf(fields.get(i)), String.valueOf(fields.get(i + 1)));
                }
                seen |= String.valueOf(port).equals(f.get("port")) && !f.getOrDefault("flags", "").contains("down")
                        && "ok".equals(f.get("master-link-status"));
            }
            if (!seen) {
                return false;
            }
        }
        return true;
    }

    private static boolean isMaster(int port) {
        try {
            return String.valueOf(RedisProcesses.call(port, "INFO", "replication")).contains("role:master");
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The live master holding a key that starts with {@code keyStart} (the keys of one partition). */
    private static int masterHolding(TestCluster cluster, String keyStart) {
        for (String node : cluster.nodes()) {
            String[] hp = node.split(":");
            int port = Integer.parseInt(hp[1]);
            try {
                if (isMaster(port) && !((List<?>) RedisProcesses.call(hp[0], port, "KEYS", keyStart + "*")).isEmpty()) {
                    return port;
                }
            } catch (RuntimeException e) {
                // a killed node
            }
        }
        throw new IllegalStateException("no live master holds " + keyStart + "*");
    }

    /** Three queue names whose hash tags live on three different masters. */
    private static List<String> queuesOnDistinctMasters(TestCluster cluster) {
        Map<Integer, String> byMaster = new HashMap<>();
        for (int i = 0; byMaster.size() < 3; i++) {
            String queue = "failover-" + i;
            byMaster.putIfAbsent(cluster.masterPortOf("{" + queue + "}"), queue);
        }
        return new ArrayList<>(byMaster.values());
    }

    interface ClientFactory {
        RedissonClient create();
    }

    private void run(String scenario, String prefix, String queue, int waitForReplicas, ClientFactory clients,
            Runnable fault, BooleanSupplier promoted, Runnable heal, String mode) {
        run(scenario, prefix, queue, waitForReplicas, 1, clients, fault, promoted, heal, mode);
    }

    private void run(String scenario, String prefix, String queue, int waitForReplicas, int partitions,
            ClientFactory clients, Runnable fault, BooleanSupplier promoted, Runnable heal, String mode) {
        RedissonClient producerRedis = clients.create();
        RedissonClient consumerRedis = clients.create();
        DelayQueueConsumer consumer = null;
        List<Thread> producers = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        try {
            ClientOptions.Builder options = ClientOptions.builder().keyPrefix(prefix).partitions(queue, partitions);
            if (waitForReplicas > 0) {
                options.waitForReplicas(waitForReplicas, Duration.ofSeconds(1));
            }
            DelayQueueClient producer = DelayQueueClient.create(producerRedis, options.build());
            DelayQueueClient consuming = DelayQueueClient.create(consumerRedis,
                    ClientOptions.builder().keyPrefix(prefix).partitions(queue, partitions).build());

            Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
            ConcurrentLinkedQueue<Long> deliveredAt = new ConcurrentLinkedQueue<>();
            consumer = consuming.newConsumer(queue, String.class, (payload, context) -> {
                deliveries.computeIfAbsent(context.id(), k -> new AtomicInteger()).incrementAndGet();
                deliveredAt.add(System.nanoTime());
            }, ConsumerOptions.builder().concurrency(16).visibilityTimeout(Duration.ofSeconds(3)).build());
            consumer.start();

            Map<String, Long> acknowledgedAt = new ConcurrentHashMap<>();
            Set<String> failed = ConcurrentHashMap.newKeySet();
            Map<String, String> failures = new ConcurrentHashMap<>();
            AtomicInteger sendsAfterPromotion = new AtomicInteger();
            AtomicBoolean afterPromotion = new AtomicBoolean();
            for (int p = 0; p < PRODUCERS; p++) {
                int producerNo = p;
                Thread t = new Thread(() -> {
                    for (int n = 0; !stop.get(); n++) {
                        String id = "f-" + producerNo + "-" + n;
                        try {
                            producer.send(queue, id, Duration.ofMillis(ThreadLocalRandom.current().nextLong(1_000)),
                                    SendOptions.id(id));
                            acknowledgedAt.put(id, System.nanoTime());
                            if (afterPromotion.get()) {
                                sendsAfterPromotion.incrementAndGet();
                            }
                        } catch (DelayQueueException e) {
                            failed.add(id); // outcome unknown (or, not replicated: written on the master)
                            failures.merge(e.getClass().getSimpleName() + "/"
                                    + (e.getCause() == null ? "-" : e.getCause().getClass().getSimpleName()), id, (a, b) -> a);
                        }
                        LockSupport.parkNanos(4_000_000); // ~250 sends/s per producer
                    }
                }, "faults-producer-" + p);
                producers.add(t);
                t.start();
            }

            await("stream running").atMost(Duration.ofSeconds(20))
                    .until(() -> acknowledgedAt.size() >= 300 && deliveries.size() >= 100);
            long killedAt = System.nanoTime();
            fault.run();
            await("replica promoted").pollInterval(Duration.ofMillis(20)).atMost(Duration.ofSeconds(30))
                    .until(promoted::getAsBoolean);
            long promotedAt = System.nanoTime();
            afterPromotion.set(true);
            // the old master is started again and rejoins as a replica of the new one: with wait-for-replicas, sends
            // succeed again once it has caught up (until then they throw NotReplicatedException, written on the master)
            heal.run();
            await("deliveries resume after the promotion").atMost(Duration.ofSeconds(40))
                    .until(() -> deliveredAt.stream().anyMatch(t -> t > promotedAt));
            await("producers resume").atMost(Duration.ofSeconds(40)).until(() -> sendsAfterPromotion.get() >= 300);
            stop.set(true);
            for (Thread t : producers) {
                t.join(15_000);
            }
            try {
                await("every acknowledged send delivered").atMost(Duration.ofSeconds(20))
                        .until(() -> deliveries.keySet().containsAll(acknowledgedAt.keySet()));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                // reported as lost below
            }
            await("queue drained").atMost(Duration.ofSeconds(20)).until(() -> {
                QueueStats s = producer.stats(queue);
                return s.pending() == 0 && s.inFlight() == 0;
            });

            // the longest time without a delivery, from the kill until deliveries had resumed for a second
            List<Long> times = new ArrayList<>(deliveredAt);
            Collections.sort(times);
            long previous = killedAt;
            long stallNanos = 0;
            long stallEnd = killedAt;
            for (long t : times) {
                if (t < killedAt) {
                    continue;
                }
                if (t - previous > stallNanos) {
                    stallNanos = t - previous;
                    stallEnd = t;
                }
                previous = t;
            }
            long firstAfterPromotion = times.stream().filter(t -> t > promotedAt).findFirst().orElse(promotedAt);
            Set<String> lost = new HashSet<>(acknowledgedAt.keySet());
            lost.removeAll(deliveries.keySet());
            long lostAckedBeforeKillMsMax = lost.stream().mapToLong(id -> (killedAt - acknowledgedAt.get(id)) / 1_000_000)
                    .max().orElse(-1);
            long duplicates = deliveries.values().stream().mapToLong(n -> n.get() - 1).sum();
            long delivered = acknowledgedAt.keySet().stream().filter(deliveries::containsKey).count();
            long failedButDelivered = failed.stream().filter(deliveries::containsKey).count();
            long promotedMs = (promotedAt - killedAt) / 1_000_000;
            FaultSupport.report(scenario, acknowledgedAt.size(), delivered, lost.size(), duplicates, stallNanos / 1_000_000,
                    "redis=" + mode + " wait_for_replicas=" + waitForReplicas + " stall_ms=" + stallNanos / 1_000_000
                            + " stall_began_after_kill_ms=" + (stallEnd - stallNanos - killedAt) / 1_000_000
                            + " promoted_ms=" + promotedMs + " first_delivery_after_promotion_ms="
                            + (firstAfterPromotion - promotedAt) / 1_000_000 + " failed_sends=" + failed.size()
                            + " failed_but_delivered=" + failedButDelivered + " lost_acknowledged_before_kill_ms_max="
                            + lostAckedBeforeKillMsMax + " failure_causes=" + failures.keySet() + " dead="
                            + producer.stats(queue).dead());

            if (waitForReplicas > 0) {
                assertThat(lost).as("acknowledged sends never delivered, with wait-for-replicas").isEmpty();
            } else {
                assertThat(lostAckedBeforeKillMsMax).as("anything lost was acknowledged in the last second before the kill")
                        .isLessThanOrEqualTo(1_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            stop.set(true);
            if (consumer != null) {
                consumer.stop();
            }
            FaultSupport.shutdown(producerRedis);
            FaultSupport.shutdown(consumerRedis);
        }
    }
}
