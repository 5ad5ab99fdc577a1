package io.github.delayqueue.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * {@code end-to-end-rate-cluster} at its smallest (one round of 1 s each on an embedded cluster of 3 masters): its
 * lines parse, both variants handled messages, and with 6 partitions every master ran a third of the script calls
 * within 15% (call counts, not timing: the partitions' hash tags are placed two per master).
 */
class ClusterRateSmokeTest {

    @Test
    void sixPartitionsSpreadTheScriptCallsEvenlyOverThreeMasters() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<String> lines;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            lines = ClusterRate.run(out, 1, 2, 100, 5_000, 1);
        }
        assertEquals(String.join("\n", lines) + "\n", bytes.toString(StandardCharsets.UTF_8).replace("\r\n", "\n"));

        Map<String, String> result = fields(lines.get(0));
        assertTrue(lines.get(0).startsWith("RESULT "), lines.get(0));
        assertEquals("end-to-end-rate-cluster", result.get("scenario"));
        assertEquals("NaN", result.get("redisson"));
        assertEquals("msg/s", result.get("unit"));
        assertTrue(Double.parseDouble(result.get("ours")) > 0, lines.get(0));

        Map<String, String> one = detail(lines, "1");
        Map<String, String> six = detail(lines, "6");
        assertTrue(Double.parseDouble(one.get("median_msg_s")) > 0, one.toString());
        assertTrue(Double.parseDouble(six.get("median_msg_s")) > 0, six.toString());
        assertEquals(Double.parseDouble(result.get("ours")), Double.parseDouble(six.get("median_msg_s")));

        double[] shares = Arrays.stream(six.get("evalsha_share").split(",")).mapToDouble(Double::parseDouble).toArray();
        assertEquals(3, shares.length, six.toString());
        for (double share : shares) {
            assertTrue(share >= (1 - 0.15) / 3 && share <= (1 + 0.15) / 3,
                    "a master's share of EVALSHA with 6 partitions is not within 15% of a third: " + six);
        }
        assertEquals("true", six.get("even_within_15pct"));
        for (String perMaster : six.get("projected_msg_s_per_master").split(",")) {
            assertTrue(Double.parseDouble(perMaster) > 0, six.toString());
        }

        // one partition: one master runs (almost) all of them
        double[] oneShares = Arrays.stream(one.get("evalsha_share").split(",")).mapToDouble(Double::parseDouble).toArray();
        assertTrue(Arrays.stream(oneShares).max().orElseThrow() > 0.9, one.toString());
        assertEquals("false", one.get("even_within_15pct"));
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
