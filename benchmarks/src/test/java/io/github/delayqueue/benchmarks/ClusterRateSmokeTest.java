package io.github.delayqueue.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;

/**
 * {@code end-to-end-rate-cluster} and what it measures, on an embedded cluster of 3 masters. The engine's spread is
 * counted here, on each master, independently of the tool: a queue of 6 partitions keeps 2 partitions and about a third
 * of the messages on each master, and each master runs about a third of the script calls that sending and consuming
 * them takes; a queue of 1 partition keeps everything on one master. Then the tool at its smallest (one round of 1 s) on
 * the same cluster: its lines parse and both variants handled messages.
 */
class ClusterRateSmokeTest {

    /** Messages sent to each queue; their ids fix their partitions (CRC-32 of the id mod 6), so the split is the same in every run. */
    private static final int MESSAGES = 6_000;

    @Test
    void sixPartitionsSpreadMessagesAndScriptCallsEvenlyOverThreeMasters() throws Exception {
        try (ClusterRate.LocalCluster cluster = ClusterRate.LocalCluster.start()) {
            List<String> masters = ClusterRate.masters(cluster.nodes());
            assertEquals(3, masters.size(), masters.toString());
            List<Resp> resps = new ArrayList<>();
            Config config = new Config();
            ClusterServersConfig servers = config.useClusterServers().setTimeout(10_000);
            cluster.nodes().forEach(node -> servers.addNodeAddress("redis://" + node));
            RedissonClient redisson = Redisson.create(config);
            String prefix = "dqsmoke-" + UUID.randomUUID().toString().substring(0, 8);
            try {
                for (String master : masters) {
                    resps.add(new Resp("redis://" + master));
                }
                DelayQueueClient client = DelayQueueClient.create(redisson,
                        ClientOptions.builder().keyPrefix(prefix).partitions("six", 6).build());

                Spread six = spread(client, resps, prefix, "six");
                System.out.println("6 partitions: " + six);
                for (int m = 0; m < 3; m++) {
                    assertEquals(2, six.partitions()[m], "partitions of each master: " + six);
                    assertEvenThird(six.messages(), m, "messages", six);
                    assertEvenThird(six.calls(), m, "EVALSHA calls", six);
                }

                Spread one = spread(client, resps, prefix, "one");
                System.out.println("1 partition: " + one);
                int home = IntStream.range(0, 3).filter(m -> one.partitions()[m] == 1).findFirst().orElseThrow();
                assertEquals(1, Arrays.stream(one.partitions()).sum(), one.toString());
                assertEquals(MESSAGES, one.messages()[home], one.toString());
                assertTrue(one.calls()[home] > 0.9 * Arrays.stream(one.calls()).sum(), "one master runs (almost) every "
                        + "script call of an unpartitioned queue: " + one);
            } finally {
                try {
                    redisson.getKeys().unlinkByPattern(prefix + ":*");
                } finally {
                    redisson.shutdown();
                    resps.forEach(Resp::close);
                }
            }

            // the tool: it runs end to end on this cluster and prints lines that parse
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            List<String> lines;
            try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
                lines = ClusterRate.run(out, 1, 2, 100, 5_000, 1, cluster.nodes());
            }
            Map<String, String> result = fields(lines.get(0));
            assertTrue(lines.get(0).startsWith("RESULT "), lines.get(0));
            assertEquals("end-to-end-rate-cluster", result.get("scenario"));
            assertEquals("msg/s", result.get("unit"));
            assertTrue(Double.parseDouble(result.get("ours")) > 0, lines.get(0));
            for (String partitions : List.of("1", "6")) {
                Map<String, String> detail = detail(lines, partitions);
                assertTrue(Double.parseDouble(detail.get("median_msg_s")) > 0, detail.toString());
                assertEquals(3, detail.get("evalsha_calls").split(",").length, detail.toString());
            }
        }
    }

    /** Per master (in slot order): the partitions of a queue it holds, their messages, and the EVALSHA calls it ran. */
    private record Spread(int[] partitions, long[] messages, long[] calls) {
        @Override
        public String toString() {
            return "partitions=" + Arrays.toString(partitions) + " messages=" + Arrays.toString(messages)
                    + " evalsha_calls=" + Arrays.toString(calls);
        }
    }

    /**
     * Sends {@link #MESSAGES} messages due now to {@code queue}, counts on each master the queue's partitions and their
     * messages (ZCARD of each {@code <prefix>:{<tag>}:delayed}), then consumes them all, each once; the EVALSHA calls
     * are every master's own count ({@code INFO commandstats}) from before the first send to the last handled message.
     */
    private static Spread spread(DelayQueueClient client, List<Resp> masters, String prefix, String queue)
            throws InterruptedException {
        for (Resp master : masters) {
            master.call("CONFIG", "RESETSTAT");
        }
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            requests.add(SendRequest.of("m", Duration.ZERO, SendOptions.id(queue + "-" + i)));
        }
        for (int from = 0; from < MESSAGES; from += 100) {
            client.sendAll(queue, requests.subList(from, from + 100));
        }
        int[] partitions = new int[masters.size()];
        long[] messages = new long[masters.size()];
        for (int m = 0; m < masters.size(); m++) {
            Resp master = masters.get(m);
            for (String key : master.scan(prefix + ":{" + queue + "*}:delayed")) {
                partitions[m]++;
                messages[m] += master.number("ZCARD", key);
            }
        }
        Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();
        AtomicInteger total = new AtomicInteger();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            handled.computeIfAbsent(context.id(), k -> new AtomicInteger()).incrementAndGet();
            total.incrementAndGet();
        }, ConsumerOptions.builder().concurrency(16).build());
        consumer.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (total.get() < MESSAGES && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        } finally {
            consumer.stop();
        }
        assertEquals(MESSAGES, handled.size(), "messages of " + queue + " handled");
        assertEquals(MESSAGES, total.get(), "handler calls of " + queue + " (each message once)");
        long[] calls = new long[masters.size()];
        for (int m = 0; m < masters.size(); m++) {
            String stat = masters.get(m).info("commandstats").get("cmdstat_evalsha");
            calls[m] = stat == null ? 0 : Long.parseLong(stat.split(",")[0].substring("calls=".length()));
        }
        return new Spread(partitions, messages, calls);
    }

    /** Master {@code m}'s share of {@code counts} is within 15% of a third. */
    private static void assertEvenThird(long[] counts, int m, String what, Spread spread) {
        double share = counts[m] / (double) Arrays.stream(counts).sum();
        assertTrue(Math.abs(share * 3 - 1) <= 0.15, "master " + m + "'s share of the " + what + " is not within 15% of "
                + "a third: " + spread);
    }

    @Test
    void badFlagsAreRefusedBeforeAnythingStarts() {
        ClusterRate.Options defaults = ClusterRate.Options.parse();
        assertEquals(new ClusterRate.Options(10, 2, 100, 20_000, 3, List.of()), defaults);
        assertEquals(List.of("127.0.0.1:7000", "h:7001"),
                ClusterRate.Options.parse("--cluster-nodes=127.0.0.1:7000, h:7001", "--rounds=1").clusterNodes());

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ClusterRate.Options.parse("--seconds=0"));
        assertEquals("--seconds must be a whole number of at least 1, was '0'", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ClusterRate.Options.parse("--rounds=x"));
        assertEquals("--rounds must be a whole number of at least 1, was 'x'", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ClusterRate.Options.parse("--partitions=6"));
        assertEquals("unknown argument '--partitions=6'; the flags are --seconds=, --producers=, --batch=, --backlog=, "
                + "--rounds=, --cluster-nodes=", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ClusterRate.Options.parse("--cluster-nodes=localhost"));
        assertEquals("--cluster-nodes must be host:port,host:port,... (ports 1 to 65535), was 'localhost'", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ClusterRate.Options.parse("--cluster-nodes=h:99999"));
        assertEquals("--cluster-nodes must be host:port,host:port,... (ports 1 to 65535), was 'h:99999'", e.getMessage());

        e = assertThrows(IllegalArgumentException.class, () -> ClusterRate.run(System.out, 1, 0, 100, 10, 1));
        assertEquals("producers must be at least 1, was 0", e.getMessage());
    }

    @Test
    void aClusterNobodyAnswersForIsNamedInTheError() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String node = "127.0.0.1:" + port;
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> ClusterRate.run(System.out, 1, 1, 1, 1, 1, List.of(node)));
        assertTrue(e.getMessage().startsWith("no cluster node of [" + node + "] answers CLUSTER NODES: "), e.getMessage());
    }

    private static Map<String, String> detail(List<String> lines, String partitions) {
        return lines.stream().filter(l -> l.startsWith("DETAIL ")).map(ClusterRateSmokeTest::fields)
                .filter(f -> partitions.equals(f.get("partitions"))).findFirst()
                .orElseThrow(() -> new AssertionError("no DETAIL line for " + partitions + " partitions in " + lines));
    }

    private static Map<String, String> fields(String line) {
        Map<String, String> map = new HashMap<>();
        for (String token : line.split(" ")) {
            int eq = token.indexOf('=');
            if (eq > 0) {
                map.put(token.substring(0, eq), token.substring(eq + 1));
            }
        }
        return map;
    }
}
