package io.github.delayqueue.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.redisson.api.RedissonClient;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.NotReplicatedException;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.testing.TestCluster;
import io.github.delayqueue.testing.TestRedis;

/**
 * What {@code waitForReplicas(1, …)} costs a producer (issue 31 item 9), on the tests' embedded Redis Cluster (3
 * masters, 3 replicas, from the bundled Redis 6.2 binary, all on this machine): single sends from 1 and from 8 threads
 * and {@code sendAll} of 100, without waiting for replicas ({@code none}), waiting for 1 replica and failing without it
 * ({@code required}), and waiting for 1 replica while one acknowledges ({@code if-acknowledged}), in alternating rounds
 * after one unmeasured round of each. Then the replica of the queue's master is killed and single sends from 1 thread
 * are measured again, in two alternating rounds: what a send costs while its master has no replica (with
 * {@code required} each send throws {@link NotReplicatedException} after the timeout). Not a test: a main
 * that prints one {@code DETAIL} line per round and workload and a {@code RESULT} line per workload (medians). Run it
 * as docs/operations/scaling.md says.
 */
public final class ReplicaWaitCost {

    private enum Variant {
        NONE, REQUIRED, IF_ACKNOWLEDGED
    }

    private ReplicaWaitCost() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 3;
        Duration timeout = Duration.ofMillis(args.length > 2 ? Long.parseLong(args[2]) : 250);
        boolean acknowledgedFirst = args.length > 3 && Boolean.parseBoolean(args[3]);
        String prefix = TestRedis.uniquePrefix();
        String queue = "replica-cost";
        try (TestCluster cluster = TestCluster.startEmbedded(2_000)) {
            RedissonClient redisson = cluster.newClient(FailoverTest::tune);
            try {
                DelayQueueClient[] clients = new DelayQueueClient[Variant.values().length];
                for (Variant v : Variant.values()) {
                    ClientOptions.Builder options = ClientOptions.builder().keyPrefix(prefix);
                    if (v != Variant.NONE) {
                        options.waitForReplicas(1, timeout).replicasRequired(v == Variant.REQUIRED);
                    }
                    clients[v.ordinal()] = DelayQueueClient.create(redisson, options.build());
                }
                String[] workloads = { "single-1-thread", "single-8-threads", "sendAll-100" };
                double[][][] rates = new double[workloads.length][Variant.values().length][rounds];
                double[][][] p99s = new double[workloads.length][Variant.values().length][rounds];
                for (int round = -1; round < rounds; round++) {
                    for (int w = 0; w < workloads.length; w++) {
                        for (Variant v : Variant.values()) {
                            long[] result = measure(clients[v.ordinal()], queue, w, round < 0 ? 1 : seconds);
                            if (round >= 0) {
                                rates[w][v.ordinal()][round] = result[0] / (double) seconds;
                                p99s[w][v.ordinal()][round] = result[1] / 1_000.0;
                                System.out.printf(Locale.ROOT, "DETAIL round=%d workload=%s variant=%s msg_per_s=%.0f "
                                        + "call_p50_us=%d call_p99_us=%d call_max_us=%d%n", round + 1, workloads[w],
                                        v.name().toLowerCase(Locale.ROOT), result[0] / (double) seconds, result[2] / 1_000,
                                        result[1] / 1_000, result[3] / 1_000);
                            }
                            redisson.getKeys().unlinkByPattern(prefix + ":*");
                        }
                    }
                }
                for (int w = 0; w < workloads.length && rounds > 0; w++) {
                    StringBuilder line = new StringBuilder("RESULT workload=" + workloads[w]);
                    for (Variant v : Variant.values()) {
                        line.append(String.format(Locale.ROOT, " %s_msg_per_s=%.0f %s_p99_us=%.0f",
                                v.name().toLowerCase(Locale.ROOT), median(rates[w][v.ordinal()]),
                                v.name().toLowerCase(Locale.ROOT), median(p99s[w][v.ordinal()])));
                    }
                    line.append(String.format(Locale.ROOT, " required_over_none=%.2f if_acknowledged_over_none=%.2f",
                            median(rates[w][1]) / median(rates[w][0]), median(rates[w][2]) / median(rates[w][0])));
                    System.out.println(line);
                }
                // the queue's master loses its replica: what a send costs then
                int master = cluster.masterPortOf("{" + queue + "}");
                int replica = cluster.replicaPortOf(master).orElseThrow();
                cluster.kill(replica);
                for (int round = 0; round < 2; round++) {
                    // the first seconds after the kill (the cluster marks the replica failed, the clients see it) fall
                    // on a different variant in each round
                    Variant[] order = (round == 0) != acknowledgedFirst ? new Variant[] { Variant.NONE, Variant.IF_ACKNOWLEDGED, Variant.REQUIRED }
                            : new Variant[] { Variant.IF_ACKNOWLEDGED, Variant.NONE, Variant.REQUIRED };
                    for (Variant v : order) {
                        long[] result = measure(clients[v.ordinal()], queue, 0, seconds);
                        System.out.printf(Locale.ROOT, "RESULT workload=single-1-thread-replica-down round=%d variant=%s "
                                + "sent_per_s=%.0f call_p50_us=%d call_p99_us=%d call_max_us=%d failed=%d timeout_ms=%d%n",
                                round + 1, v.name().toLowerCase(Locale.ROOT), result[0] / (double) seconds,
                                result[2] / 1_000, result[1] / 1_000, result[3] / 1_000, result[4], timeout.toMillis());
                    }
                }
            } finally {
                redisson.shutdown();
            }
        }
    }

    /**
     * Sends for {@code seconds}; returns messages sent (or attempted), the 99th percentile, median and longest call (ns),
     * and the sends that threw {@link NotReplicatedException}.
     */
    private static long[] measure(DelayQueueClient client, String queue, int workload, long seconds)
            throws InterruptedException {
        int threads = workload == 1 ? 8 : 1;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong sent = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        List<long[]> latencies = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            long[] mine = new long[300_000];
            latencies.add(mine);
            int thread = t;
            Thread sender = new Thread(() -> {
                int n = 0;
                try {
                    while (!stop.get() && n < mine.length) {
                        long start = System.nanoTime();
                        if (workload == 2) {
                            List<SendRequest> batch = new ArrayList<>(100);
                            for (int i = 0; i < 100; i++) {
                                batch.add(SendRequest.of("payload", Duration.ofHours(1)));
                            }
                            client.sendAll(queue, batch);
                            sent.addAndGet(100);
                        } else {
                            String id = thread + "-" + n;
                            try {
                                client.send(queue, "payload", Duration.ofHours(1), SendOptions.id(id));
                            } catch (NotReplicatedException e) {
                                failed.incrementAndGet(); // written, but not acknowledged by a replica in time
                            }
                            sent.incrementAndGet();
                        }
                        mine[n++] = System.nanoTime() - start;
                        if (System.nanoTime() - start > 50_000_000L && System.getProperty("slow") != null) {
                            System.out.println("SLOW " + java.time.Instant.now() + " " + (System.nanoTime() - start) / 1_000_000 + " ms");
                        }
                    }
                } finally {
                    if (n < mine.length) {
                        mine[n] = -1;
                    }
                    done.countDown();
                }
            }, "replica-cost-sender-" + t);
            sender.start();
        }
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        stop.set(true);
        done.await();
        long count = sent.get();
        long[] all = latencies.stream().flatMapToLong(a -> Arrays.stream(a).takeWhile(x -> x > 0)).sorted().toArray();
        return new long[] { count, percentile(all, 0.99), percentile(all, 0.5), all.length == 0 ? 0 : all[all.length - 1],
                failed.get() };
    }

    private static long percentile(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) (sorted.length * p))];
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }
}
