package io.github.delayqueue.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every scenario, both engines, tiny sizes, on an embedded Redis of its own: checks that the benchmark
 * runs end to end and prints a parseable RESULT line per scenario with a finite positive figure for
 * our engine (a scenario whose messages were not all handled has none), that four competing consumers
 * of ours handled no message twice, and that our keys hold the messages of the memory scenario. Redisson's figures are printed, not checked (its behaviour is not
 * ours to test), and so is how long the run took: timing belongs to the full-size run, which is manual
 * (see the module's pom). "Never early" is not checked here: the benchmark measures it against an
 * estimate of the Redis clock; the engine's own tests check it against the clock each claim returns.
 */
class BenchmarksSmokeTest {

    private static final Pattern RESULT = Pattern.compile(
            "RESULT scenario=(\\S+) ours=(\\S+) redisson=(\\S+) unit=(\\S+) better=(\\S+)");

    /**
     * Every scenario: the default run's (burst-drain-10m and observed-path-cost among them), schedules-100k,
     * rate-limited-drain, end-to-end-batch, groups-fairness, history, set-completion and priorities (outbox-tx-rate has its own test: it needs a PostgreSQL).
     */
    private static final List<String> ALL = new ArrayList<>(Settings.ALL_SCENARIOS);

    static {
        ALL.add("schedules-100k");
        ALL.add("rate-limited-drain");
        ALL.add("end-to-end-batch");
        ALL.add("groups-fairness");
        ALL.add("history");
        ALL.add("set-completion");
        ALL.add("priorities");
    }

    private static final String SCENARIOS = String.join(",", ALL);

    @Test
    @Timeout(600) // a hang, not a slow machine: the run takes about a minute on a loaded 2-core one
    void everyScenarioPrintsAParseableResult() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        long t0 = System.nanoTime();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            Benchmarks.run(out, "--redis-url=embedded", "--warmup=false", "--rounds=1", "--scenarios=" + SCENARIOS,
                    "--burst50k-size=500", "--burst1m-size=1000",
                    "--replace-pending=500", "--replace-seconds=1", "--lateness-rate=100", "--lateness-seconds=1",
                    "--lateness-delay-ms=200", "--enqueue-count=500", "--batch-count=2000", "--send-batch=200",
                    "--e2e-seconds=1", "--memory-count=1000", "--redisson-consumers=2", "--threads=4",
                    "--under-burst-size=500", "--consumers4-size=1000", "--redisson-consumers4=true",
                    "--burst10m-size=2000", "--path-cost-batches=10", "--schedules-count=200", "--schedules-period-ms=1000", "--schedules-ticks=2",
                    "--ratelimit-size=30", "--ratelimit-rate=50/1s", "--groups-big=20", "--groups-small=3",
                    "--history-count=500", "--history-max-count=100", "--set-count=500", "--set-sets=5",
                    "--priorities-count=500", "--priorities-rounds=1");
        }
        String output = bytes.toString(StandardCharsets.UTF_8);
        System.out.println(output); // kept in the surefire report
        Duration took = Duration.ofNanos(System.nanoTime() - t0);

        List<String> seen = new ArrayList<>();
        for (String line : output.split("\n")) {
            if (!line.startsWith("RESULT ")) {
                continue;
            }
            Matcher m = RESULT.matcher(line.trim());
            assertTrue(m.matches(), "unparseable: " + line);
            String scenario = m.group(1);
            double ours = Double.parseDouble(m.group(2));
            Double.parseDouble(m.group(3)); // NaN allowed
            Double.parseDouble(m.group(5));
            if (scenario.equals("redis-bytes-per-message")) {
                // the server's used_memory delta over 1,000 messages: memory that earlier scenarios' keys give back
                // meanwhile can outweigh it (-1,244 bytes a message at load 17); our keys' own size is checked below
                assertTrue(Double.isFinite(ours), scenario + ": ours must be finite: " + line + "\n" + output);
            } else {
                assertTrue(Double.isFinite(ours) && ours > 0, scenario + ": ours must be finite and positive: " + line
                        + "\n" + output);
            }
            seen.add(scenario);
        }
        assertEquals(ALL, seen, "one RESULT line per scenario, in order\n" + output);
        assertTrue(output.contains("DETAIL scenario=steady-lateness-p99 side=ours p50_ms="), output);
        assertTrue(output.contains("# rounds: 1 per scenario"), output);
        for (String scenario : ALL) {
            assertTrue(output.contains("\nDETAIL scenario=" + scenario + " rounds=ours:"), "rounds of " + scenario + "\n" + output);
            // the markdown table for docs/internals/benchmarks.md
            assertTrue(output.contains("\n| `" + scenario + "` | "), "table row of " + scenario + "\n" + output);
        }
        for (String scenario : List.of("burst-drain-50k", "enqueue-rate-1", "enqueue-rate-8", "enqueue-rate-32",
                "lateness-under-burst", "consumers-4", "schedules-100k")) { // measured against Redisson
            assertTrue(output.contains("\nDETAIL scenario=" + scenario + " rounds=redisson:"), scenario + "\n" + output);
        }
        assertTrue(output.contains("\nDETAIL scenario=end-to-end-rate-observed rounds=plain:"), output);
        // the floor (issue 37, in the default --sides): its rounds, and every side's CPU per message against it
        for (String scenario : List.of("burst-drain-50k", "burst-drain-1m", "enqueue-rate-1", "enqueue-batch-rate",
                "end-to-end-rate", "redis-bytes-per-message")) {
            assertTrue(output.contains("\nDETAIL scenario=" + scenario + " rounds=floor:"), scenario + "\n" + output);
            Matcher floor = Pattern.compile("\nDETAIL scenario=" + Pattern.quote(scenario)
                    + " floor=cpu_per_msg .*ours_redis_vs_floor=([0-9.]+) ours_jvm_vs_floor=(\\S+)").matcher(output);
            assertTrue(floor.find(), "CPU per message against the floor, " + scenario + "\n" + output);
            assertTrue(Double.parseDouble(floor.group(1)) > 0, scenario + "\n" + output);
        }
        assertTrue(output.contains("\nDETAIL scenario=redis-bytes-per-message side=floor "), output);
        // JVM CPU per message of ours against Redisson's wherever both ran, floor or not, and the table's row for it
        for (String scenario : List.of("burst-drain-50k", "replace-by-id-20k", "steady-lateness-p99", "enqueue-rate-8",
                "end-to-end-rate", "redis-bytes-per-message", "lateness-under-burst", "consumers-4")) {
            Matcher jvm = Pattern.compile("\nDETAIL scenario=" + Pattern.quote(scenario)
                    + " (?:floor|cpu)=cpu_per_msg .*ours_jvm_vs_redisson=(\\S+)").matcher(output);
            assertTrue(jvm.find(), "JVM CPU per message against Redisson's, " + scenario + "\n" + output);
            Double.parseDouble(jvm.group(1)); // NaN allowed: Redisson's rounds may fail
        }
        assertTrue(output.contains("\n| JVM CPU per message | "), output);
        // the defaults (meters on, observations off) against plain; observations with a tracer against Micrometer's own
        assertTrue(output.contains("\nDETAIL scenario=end-to-end-rate-observed side=ours ") && output.contains(
                " observed=metrics,meters="), output);
        assertTrue(output.contains("\nDETAIL scenario=observed-path-cost rounds=micrometer-floor:"), output);
        assertTrue(output.contains("\nDETAIL scenario=observed-path-cost side=ours ") && output.contains(" tracing_us="), output);
        // burst-drain-10m: its rate against the 1m drain's, and the heap before and after its drain
        assertTrue(oursDetail(output, "burst-drain-10m", "heap_after_mb") > 0, output);
        assertTrue(oursDetail(output, "burst-drain-10m", "heap_before_mb") > 0, output);
        assertTrue(Pattern.compile("\n\\| `burst-drain-10m` \\|.*drain rate ≥ 0.8× the 1m drain's \\(\\S+ / \\S+ msg/s = "
                + "[0-9.]+×\\)").matcher(output).find(), output);
        assertTrue(output.contains("\nDETAIL scenario=end-to-end-batch rounds=single:"), output);
        // set-completion: the set's Redis CPU per member over plain sends', and every set's callback
        assertTrue(output.contains("\nDETAIL scenario=set-completion rounds=plain:"), output);
        assertTrue(Pattern.compile("\nDETAIL scenario=set-completion set=\\S+ plain=\\S+ set_vs_plain=[0-9.]+ within_1.3x=(PASS|MISS) "
                + ".* sets=5\n").matcher(output).find(), output);
        assertEquals(500, oursDetail(output, "set-completion", "set_acked"), output);
        assertEquals(0, oursDetail(output, "set-completion", "callbacks_twice"), output);
        // priorities: the drain with priorities against without, and when the last priority-9 message was handled
        assertTrue(output.contains("\nDETAIL scenario=priorities rounds=without:"), output);
        assertTrue(Pattern.compile("\nDETAIL scenario=priorities with=\\S+ without=\\S+ with_vs_without=[0-9.]+ "
                + "within_0.9x=(PASS|MISS) ").matcher(output).find(), output);
        assertTrue(Pattern.compile("\nDETAIL scenario=priorities last_high_s_with=[0-9.]+ last_high_s_without=[0-9.]+ ")
                .matcher(output).find(), output);
        assertEquals(500, oursDetail(output, "priorities", "messages"), output);
        // ours, the total of both drains (" handled_twice=", not the per-drain "{...;handled_twice=")
        assertEquals(0, oursDetail(output, "consumers-4", "handled_twice"), "four consumers handled a message twice\n"
                + output);
        assertTrue(oursDetail(output, "redis-bytes-per-message", "memory_usage_of_keys_per_msg") > 0,
                "MEMORY USAGE of our keys per message\n" + output);
        System.out.println("smoke run took " + took);
    }

    /** The value of {@code key} on our side's one summary DETAIL line of {@code scenario} (the one with " side=ours "). */
    private static double oursDetail(String output, String scenario, String key) {
        Matcher m = Pattern.compile("\nDETAIL scenario=" + Pattern.quote(scenario) + " side=ours .* " + Pattern.quote(key)
                + "=([0-9.]+)(?: |$)", Pattern.MULTILINE).matcher(output);
        assertTrue(m.find(), "no " + key + " on our DETAIL line of " + scenario + "\n" + output);
        double value = Double.parseDouble(m.group(1));
        assertFalse(m.find(), "two DETAIL lines of ours for " + scenario + "\n" + output);
        return value;
    }
}
