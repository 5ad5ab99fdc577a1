package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.SendRequest;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

import redis.embedded.RedisServer;

/**
 * {@code end-to-end-rate-cluster} (issue 20): one queue on a Redis Cluster of 3 masters, with 1 partition and with
 * 6 partitions, in one run. Rounds alternate (1, 6, 1, 6, ...) so that load from other processes falls on both. In
 * each round {@code producers} threads send batches due now with {@code sendAll} on one Redisson cluster client and
 * one {@link DelayQueueClient}, one consumer (concurrency {@value #CONCURRENCY}) on the same client counts what it
 * handles, and the producers wait while more than {@code backlog} messages are sent but not handled. After a short
 * warm-up the round measures handled messages per second over {@code seconds}; over the same window it takes, on every
 * master, the {@code EVALSHA} calls from {@code INFO commandstats} (after {@code CONFIG RESETSTAT}) and the Redis
 * CPU from {@code INFO cpu} ({@code used_cpu_user + used_cpu_sys}). One short unmeasured round of each variant comes
 * first (connections, script loading, the JIT).
 *
 * <p>On a small machine the throughput will not scale with the masters (they share its cores with the client), so the
 * evidence is each master's share of the script calls, and the Redis CPU per message each master spends: a master
 * whose one core is saturated serves about {@code 1e6 / (its CPU µs per message)} messages per second. A master's
 * messages are counted as the round's handled messages times its share of the script calls.
 *
 * <p>The cluster is started here from the Redis 6.2 binary bundled in {@code embedded-redis} (3 masters, no replicas,
 * slots 0-5460, 5461-10922, 10923-16383; its files in a temporary directory deleted afterwards), or is the one named by
 * {@code --cluster-nodes=host:port,...}. Prints a {@code RESULT} line (the 6-partition median rate) and
 * {@code DETAIL} lines.
 */
public final class ClusterRate {

    static final String SCENARIO = "end-to-end-rate-cluster";

    /** Handlers the consumer runs at once. */
    static final int CONCURRENCY = 64;

    /** The partition counts compared. */
    static final int[] VARIANTS = { 1, 6 };

    /** How far from an even share (relative) a master may be for {@code even_within_15pct=true}. */
    static final double EVEN_TOLERANCE = 0.15;

    private static final int[][] SLOT_RANGES = { { 0, 5460 }, { 5461, 10922 }, { 10923, 16383 } };

    private ClusterRate() {
    }

    /** The flags of {@link #main}, checked before anything starts. */
    record Options(int seconds, int producers, int batch, int backlog, int rounds, List<String> clusterNodes) {

        static Options parse(String... args) {
            Map<String, String> values = new LinkedHashMap<>();
            values.put("seconds", "10");
            values.put("producers", "2");
            values.put("batch", "100");
            values.put("backlog", "20000");
            values.put("rounds", "3");
            values.put("cluster-nodes", "");
            for (String arg : args) {
                int eq = arg.indexOf('=');
                String name = arg.startsWith("--") && eq > 2 ? arg.substring(2, eq) : null;
                if (name == null || !values.containsKey(name)) {
                    throw new IllegalArgumentException("unknown argument '" + arg + "'; the flags are "
                            + values.keySet().stream().map(k -> "--" + k + "=").collect(Collectors.joining(", ")));
                }
                values.put(name, arg.substring(eq + 1));
            }
            return new Options(positive(values, "seconds"), positive(values, "producers"), positive(values, "batch"),
                    positive(values, "backlog"), positive(values, "rounds"), nodes(values.get("cluster-nodes")));
        }

        private static int positive(Map<String, String> values, String name) {
            String value = values.get(name);
            try {
                int n = Integer.parseInt(value.trim());
                if (n >= 1) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // the message below
            }
            throw new IllegalArgumentException("--" + name + " must be a whole number of at least 1, was '" + value + "'");
        }

        private static List<String> nodes(String value) {
            if (value.isBlank()) {
                return List.of();
            }
            List<String> nodes = new ArrayList<>();
            for (String node : value.split(",")) {
                String n = node.trim();
                int colon = n.lastIndexOf(':');
                boolean ok = colon > 0;
                if (ok) {
                    try {
                        int port = Integer.parseInt(n.substring(colon + 1));
                        ok = port >= 1 && port <= 65535;
                    } catch (NumberFormatException e) {
                        ok = false;
                    }
                }
                if (!ok) {
                    throw new IllegalArgumentException(
                            "--cluster-nodes must be host:port,host:port,... (ports 1 to 65535), was '" + value + "'");
                }
                nodes.add(n);
            }
            return List.copyOf(nodes);
        }
    }

    /**
     * Runs the scenario with these flags ({@code --seconds=10 --producers=2 --batch=100 --backlog=20000 --rounds=3},
     * {@code --cluster-nodes=host:port,...} for an existing cluster; default: an embedded one of 3 masters).
     */
    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        int status = 0;
        try {
            run(System.out, o.seconds(), o.producers(), o.batch(), o.backlog(), o.rounds(), o.clusterNodes());
        } catch (Exception e) {
            System.err.println(SCENARIO + " failed: " + e);
            e.printStackTrace();
            status = 1;
        }
        System.exit(status); // the engine's threads end with the JVM
    }

    /** The scenario on an embedded cluster of 3 masters; returns the RESULT and DETAIL lines it printed. */
    static List<String> run(PrintStream out, int seconds, int producers, int batch, int backlog, int rounds)
            throws Exception {
        return run(out, seconds, producers, batch, backlog, rounds, List.of());
    }

    /** The scenario on the cluster of {@code clusterNodes} (seeds), or on an embedded one when that is empty. */
    static List<String> run(PrintStream out, int seconds, int producers, int batch, int backlog, int rounds,
            List<String> clusterNodes) throws Exception {
        atLeastOne("seconds", seconds);
        atLeastOne("producers", producers);
        atLeastOne("batch", batch);
        atLeastOne("backlog", backlog);
        atLeastOne("rounds", rounds);
        if (clusterNodes.isEmpty()) {
            try (LocalCluster cluster = LocalCluster.start()) {
                return measure(out, seconds, producers, batch, backlog, rounds, cluster.nodes(), "embedded-redis-6.2-3-masters");
            }
        }
        return measure(out, seconds, producers, batch, backlog, rounds, clusterNodes, "external");
    }

    private static void atLeastOne(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, was " + value);
        }
    }

    /** One round's figures. */
    private record Round(double rate, long handled, long[] calls, long[] usec, double[] cpuSeconds) {
    }

    private static List<String> measure(PrintStream out, int seconds, int producers, int batch, int backlog, int rounds,
            List<String> seeds, String cluster) throws Exception {
        List<String> masters = masters(seeds);
        List<Resp> resps = new ArrayList<>();
        RedissonClient redisson = null;
        String prefix = "dqbench-cluster-" + UUID.randomUUID().toString().substring(0, 8);
        try {
            for (String master : masters) {
                resps.add(new Resp("redis://" + master));
            }
            redisson = client(seeds);
            ClientOptions.Builder options = ClientOptions.builder().keyPrefix(prefix).maxBatchSize(100_000);
            for (int partitions : VARIANTS) {
                options.partitions(queue(partitions), partitions);
            }
            DelayQueueClient client = DelayQueueClient.create(redisson, options.build());
            for (int partitions : VARIANTS) { // unmeasured: connections, scripts, the JIT; a cold first round is slow
                round(client, resps, queue(partitions), warmUpSeconds(seconds), producers, batch, backlog);
            }
            Map<Integer, List<Round>> byVariant = new LinkedHashMap<>();
            for (int r = 0; r < rounds; r++) {
                for (int partitions : VARIANTS) {
                    byVariant.computeIfAbsent(partitions, k -> new ArrayList<>())
                            .add(round(client, resps, queue(partitions), seconds, producers, batch, backlog));
                }
            }
            List<String> lines = new ArrayList<>();
            double sixMedian = median(byVariant.get(VARIANTS[1]).stream().mapToDouble(Round::rate).toArray());
            lines.add("RESULT scenario=" + SCENARIO + " ours=" + Benchmarks.format(sixMedian)
                    + " redisson=NaN unit=msg/s better=NaN");
            for (Map.Entry<Integer, List<Round>> e : byVariant.entrySet()) {
                lines.add(detail(e.getKey(), e.getValue(), masters));
            }
            double oneMedian = median(byVariant.get(VARIANTS[0]).stream().mapToDouble(Round::rate).toArray());
            lines.add("DETAIL scenario=" + SCENARIO + " side=ours six_vs_one=" + Benchmarks.format(sixMedian / oneMedian)
                    + " masters=" + String.join(",", masters) + " cluster=" + cluster + " rounds=" + rounds
                    + " round_s=" + seconds + " warmup_s=" + warmUpSeconds(seconds) + " producers=" + producers
                    + " send=sendAll(" + batch + ") backlog=" + backlog + " consumer=concurrency=" + CONCURRENCY
                    + " order=" + Arrays.stream(VARIANTS).mapToObj(Integer::toString).collect(Collectors.joining(","))
                    + ",...");
            for (String line : lines) {
                out.println(line);
            }
            out.flush();
            return lines;
        } finally {
            if (redisson != null) {
                try {
                    redisson.getKeys().unlinkByPattern(prefix + ":*");
                } finally {
                    redisson.shutdown();
                }
            }
            resps.forEach(Resp::close);
        }
    }

    static String queue(int partitions) {
        return "cluster-" + partitions + "p";
    }

    static int warmUpSeconds(int seconds) {
        return seconds >= 5 ? 2 : 1;
    }

    private static Round round(DelayQueueClient client, List<Resp> masters, String queue, int seconds, int producers,
            int batch, int backlog) throws Exception {
        LongAdder handled = new LongAdder();
        AtomicLong sent = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (payload, ctx) -> handled.increment(),
                ConsumerOptions.builder().concurrency(CONCURRENCY).build());
        consumer.start();
        List<Thread> threads = new ArrayList<>();
        try {
            for (int t = 0; t < producers; t++) {
                int thread = t;
                Thread producer = new Thread(() -> {
                    try {
                        produce(client, queue, thread, batch, backlog, sent, handled, stop);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "cluster-rate-producer-" + t);
                producer.setDaemon(true);
                threads.add(producer);
                producer.start();
            }
            Thread.sleep(TimeUnit.SECONDS.toMillis(warmUpSeconds(seconds)));
            for (Resp master : masters) {
                master.call("CONFIG", "RESETSTAT");
            }
            double[] cpu0 = new double[masters.size()];
            for (int m = 0; m < masters.size(); m++) {
                cpu0[m] = cpuSeconds(masters.get(m));
            }
            long h0 = handled.sum();
            long t0 = System.nanoTime();
            Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
            long h1 = handled.sum();
            long t1 = System.nanoTime();
            long[] calls = new long[masters.size()];
            long[] usec = new long[masters.size()];
            double[] cpu = new double[masters.size()];
            for (int m = 0; m < masters.size(); m++) {
                cpu[m] = cpuSeconds(masters.get(m)) - cpu0[m];
                String stat = masters.get(m).info("commandstats").get("cmdstat_evalsha");
                calls[m] = stat == null ? 0 : field(stat, "calls");
                usec[m] = stat == null ? 0 : field(stat, "usec");
            }
            stop.set(true);
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(60));
            }
            if (failure.get() != null) {
                throw new IllegalStateException("a producer of queue '" + queue + "' failed: " + failure.get(),
                        failure.get());
            }
            await("queue '" + queue + "' drained", Duration.ofSeconds(60), () -> handled.sum() >= sent.get());
            return new Round((h1 - h0) / ((t1 - t0) / 1e9), h1 - h0, calls, usec, cpu);
        } finally {
            stop.set(true);
            consumer.stop();
        }
    }

    private static void produce(DelayQueueClient client, String queue, int thread, int batch, int backlog,
            AtomicLong sent, LongAdder handled, AtomicBoolean stop) throws InterruptedException {
        long n = 0;
        while (!stop.get()) {
            if (sent.get() - handled.sum() > backlog) {
                Thread.sleep(1);
                continue;
            }
            List<SendRequest> requests = new ArrayList<>(batch);
            for (int i = 0; i < batch; i++) {
                requests.add(SendRequest.of(Side.payload("c-" + thread + "-" + n++ + "-"), Duration.ZERO));
            }
            client.sendAll(queue, requests);
            sent.addAndGet(batch);
        }
    }

    /** The variant's DETAIL line: its rates, and per master its call share, CPU per message and projected rate. */
    private static String detail(int partitions, List<Round> rounds, List<String> masters) {
        int n = masters.size();
        long[] calls = new long[n];
        long[] usec = new long[n];
        double[] cpu = new double[n];
        long handled = 0;
        for (Round r : rounds) {
            for (int m = 0; m < n; m++) {
                calls[m] += r.calls()[m];
                usec[m] += r.usec()[m];
                cpu[m] += r.cpuSeconds()[m];
            }
            handled += r.handled();
        }
        long totalCalls = Arrays.stream(calls).sum();
        double[] share = new double[n];
        double[] usPerMsg = new double[n];
        double[] projected = new double[n];
        double cpuTotal = 0;
        boolean even = totalCalls > 0;
        for (int m = 0; m < n; m++) {
            share[m] = totalCalls == 0 ? Double.NaN : calls[m] / (double) totalCalls;
            even &= Math.abs(share[m] * n - 1) <= EVEN_TOLERANCE;
            double messages = handled * share[m];
            // a master with (almost) none of the calls serves no messages: its CPU is idle housekeeping
            usPerMsg[m] = share[m] >= 0.01 ? cpu[m] * 1e6 / messages : Double.NaN;
            projected[m] = 1e6 / usPerMsg[m];
            cpuTotal += cpu[m];
        }
        double projectedCluster = 0;
        for (double p : projected) {
            projectedCluster += Double.isNaN(p) ? 0 : p;
        }
        double[] rates = rounds.stream().mapToDouble(Round::rate).toArray();
        return "DETAIL scenario=" + SCENARIO + " side=ours partitions=" + partitions + " queue=" + queue(partitions)
                + " rounds_msg_s=" + join(rates) + " median_msg_s=" + Benchmarks.format(median(rates))
                + " handled=" + handled
                + " evalsha_calls=" + Arrays.stream(calls).mapToObj(Long::toString).collect(Collectors.joining(","))
                + " evalsha_share=" + join(share) + " even_within_15pct=" + even
                + " evalsha_usec=" + Arrays.stream(usec).mapToObj(Long::toString).collect(Collectors.joining(","))
                + " redis_cpu_s=" + join(cpu)
                + " redis_cpu_us_per_msg_all_masters=" + Benchmarks.format(cpuTotal * 1e6 / handled)
                + " redis_cpu_us_per_msg_per_master=" + join(usPerMsg)
                + " projected_msg_s_per_master=" + join(projected)
                + " projected_msg_s_cluster=" + Benchmarks.format(projectedCluster);
    }

    private static String join(double[] values) {
        return Arrays.stream(values).mapToObj(Benchmarks::format).collect(Collectors.joining(","));
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    /** {@code calls} of {@code calls=12,usec=34,...}. */
    private static long field(String stat, String name) {
        for (String part : stat.split(",")) {
            if (part.startsWith(name + "=")) {
                return Long.parseLong(part.substring(name.length() + 1));
            }
        }
        throw new IllegalStateException("no " + name + " in '" + stat + "'");
    }

    private static double cpuSeconds(Resp master) {
        Map<String, String> cpu = master.info("cpu");
        return Double.parseDouble(cpu.get("used_cpu_user")) + Double.parseDouble(cpu.get("used_cpu_sys"));
    }

    /** The masters that serve slots ({@code host:port}), in slot order, as the first seed that answers sees them. */
    static List<String> masters(List<String> seeds) {
        RuntimeException last = null;
        for (String seed : seeds) {
            try (Resp resp = new Resp("redis://" + seed)) {
                String nodes = String.valueOf(resp.call("CLUSTER", "NODES"));
                List<String[]> masters = new ArrayList<>();
                for (String line : nodes.split("\n")) {
                    String[] f = line.trim().split(" ");
                    if (f.length > 8 && f[2].contains("master") && !f[2].contains("fail")) {
                        masters.add(f);
                    }
                }
                if (masters.isEmpty()) {
                    throw new IllegalStateException("the cluster of " + seed + " has no master serving slots");
                }
                masters.sort(Comparator.comparingInt(f -> Integer.parseInt(f[8].split("-")[0].replace("[", ""))));
                return masters.stream().map(f -> f[1].split("@")[0]).toList();
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw new IllegalStateException("no cluster node of " + seeds + " answers CLUSTER NODES: " + last, last);
    }

    private static RedissonClient client(List<String> seeds) {
        Config config = new Config();
        ClusterServersConfig servers = config.useClusterServers().setReadMode(ReadMode.MASTER).setTimeout(10_000)
                .setMasterConnectionPoolSize(64)
                .setMasterConnectionMinimumIdleSize(4).setSubscriptionConnectionMinimumIdleSize(1); // 24 idle each: seconds to start
        seeds.forEach(seed -> servers.addNodeAddress("redis://" + seed));
        return Redisson.create(config);
    }

    private static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + timeout.toSeconds() + " s waiting for: " + what);
            }
            Thread.sleep(10);
        }
    }

    /**
     * 3 masters (no replicas) from the bundled Redis binary on free loopback ports, their cluster files in a temporary
     * directory; {@link #close} stops them all and deletes the directory, as does a shutdown hook if the JVM exits first.
     */
    static final class LocalCluster implements AutoCloseable {

        private final Path dir;
        private final List<Integer> ports = new ArrayList<>();
        private final List<RedisServer> servers = new ArrayList<>();
        private final Thread hook = new Thread(this::stopAll, "cluster-rate-redis-stop");
        private boolean closed;

        private LocalCluster(Path dir) {
            this.dir = dir;
        }

        static LocalCluster start() throws IOException, InterruptedException {
            LocalCluster cluster = new LocalCluster(Files.createTempDirectory("dq-cluster-rate-"));
            Runtime.getRuntime().addShutdownHook(cluster.hook);
            try {
                for (int i = 0; i < SLOT_RANGES.length; i++) {
                    int port = freePortWithBus(cluster.ports);
                    RedisServer server = RedisServer.newRedisServer().port(port).bind("127.0.0.1")
                            .setting("save \"\"").setting("appendonly no").setting("maxmemory-policy noeviction")
                            .setting("cluster-enabled yes").setting("cluster-config-file nodes-" + port + ".conf")
                            .setting("cluster-node-timeout 5000").setting("dir " + cluster.dir.toAbsolutePath())
                            .build();
                    cluster.ports.add(port);
                    cluster.servers.add(server);
                    server.start();
                }
                cluster.join();
                return cluster;
            } catch (IOException | InterruptedException | RuntimeException e) {
                cluster.close();
                throw e;
            }
        }

        private void join() throws InterruptedException {
            List<Resp> resps = new ArrayList<>();
            try {
                for (int port : ports) {
                    resps.add(new Resp("redis://127.0.0.1:" + port));
                }
                for (int port : ports.subList(1, ports.size())) {
                    resps.get(0).call("CLUSTER", "MEET", "127.0.0.1", Integer.toString(port));
                }
                for (int m = 0; m < SLOT_RANGES.length; m++) {
                    List<String> args = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS")); // Redis 6.2: no ADDSLOTSRANGE
                    for (int slot = SLOT_RANGES[m][0]; slot <= SLOT_RANGES[m][1]; slot++) {
                        args.add(Integer.toString(slot));
                    }
                    resps.get(m).call(args.toArray(String[]::new));
                }
                for (Resp resp : resps) {
                    await("every node knowing " + ports.size() + " masters with slots", Duration.ofSeconds(30), () -> {
                        String nodes = String.valueOf(resp.call("CLUSTER", "NODES"));
                        return Stream.of(nodes.split("\n")).filter(l -> l.contains("master") && !l.contains("handshake")
                                && l.trim().split(" ").length > 8).count() == ports.size();
                    });
                    await("cluster_state:ok", Duration.ofSeconds(30),
                            () -> String.valueOf(resp.call("CLUSTER", "INFO")).contains("cluster_state:ok"));
                }
            } finally {
                resps.forEach(Resp::close);
            }
        }

        List<String> nodes() {
            return ports.stream().map(p -> "127.0.0.1:" + p).toList();
        }

        private synchronized void stopAll() {
            if (closed) {
                return;
            }
            closed = true;
            for (RedisServer server : servers) {
                try {
                    server.stop();
                } catch (IOException | RuntimeException e) {
                    // stop the others anyway
                }
            }
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // a temporary directory
            }
        }

        @Override
        public void close() {
            stopAll();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is exiting: the hook runs (and finds it done)
            }
        }

        /** A free port whose cluster bus port (+10000) is free too, not among {@code taken}. */
        private static int freePortWithBus(List<Integer> taken) {
            for (int attempt = 0; attempt < 200; attempt++) {
                int port = ThreadLocalRandom.current().nextInt(20_000, 40_000);
                if (!taken.contains(port) && free(port) && free(port + 10_000)) {
                    return port;
                }
            }
            throw new IllegalStateException("found no free port pair (port, port + 10000) between 20000 and 50000");
        }

        private static boolean free(int port) {
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(false);
                socket.bind(new InetSocketAddress("127.0.0.1", port));
                return true;
            } catch (IOException e) {
                return false;
            }
        }
    }

}
