package io.github.delayqueue.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The arithmetic behind the table's targets: CPU per message of a round, the 10m drain's heap check, and the targets
 * judged on the figures of a run: above the bound not met, within it met, figures not taken never met.
 */
class BenchmarksFiguresTest {

    @Test
    void cpuPerMessageUsesTheScenariosOwnWindowAndCount() {
        Side.Measure window = Side.Measure.of(1).with("messages", 1_000).with("window_jvm_cpu_s", 0.5)
                .with("run_jvm_cpu_s", 2.0);
        assertEquals(500, Benchmarks.cpuPerMessage(window, "jvm"), 1e-9);
        Side.Measure sent = Side.Measure.of(1).with("sent", 2_000).with("redis_cpu_s", 0.01);
        assertEquals(5, Benchmarks.cpuPerMessage(sent, "redis"), 1e-9);
        // replace-by-id: the round writes its pending messages and its replacements; its CPU is the whole round's
        Side.Measure replace = Side.Measure.of(1).with("pending", 500).with("replaced", 1_500).with("run_jvm_cpu_s", 1.0);
        assertEquals(500, Benchmarks.cpuPerMessage(replace, "jvm"), 1e-9);
        // lateness-under-burst: the burst and the steady stream
        Side.Measure underBurst = Side.Measure.of(1).with("burst", 900).with("steady_messages", 100)
                .with("run_redis_cpu_s", 0.1);
        assertEquals(100, Benchmarks.cpuPerMessage(underBurst, "redis"), 1e-9);
    }

    @Test
    void aFailedRoundOrOneWithoutACountHasNoCpuPerMessage() {
        assertTrue(Double.isNaN(Benchmarks.cpuPerMessage(Side.Measure.of(Double.NaN).with("messages", 10)
                .with("run_jvm_cpu_s", 1.0), "jvm")));
        assertTrue(Double.isNaN(Benchmarks.cpuPerMessage(Side.Measure.of(1).with("run_jvm_cpu_s", 1.0), "jvm")));
    }

    @Test
    void theHeapAfterTheDrainIsAsBeforeItWithinTenPercentOrSixteenMib() {
        assertTrue(Benchmarks.heapAsBefore(100, 116));
        assertFalse(Benchmarks.heapAsBefore(100, 117));
        assertTrue(Benchmarks.heapAsBefore(1_000, 1_100));
        assertFalse(Benchmarks.heapAsBefore(1_000, 1_101));
        assertFalse(Benchmarks.heapAsBefore(Double.NaN, 10));
    }
    private static Benchmarks judge(String... args) {
        return new Benchmarks(new Settings(args), new PrintStream(OutputStream.nullOutputStream()));
    }

    private static Benchmarks.SideRounds rounds(String label, boolean lowerIsBetter, double... values) {
        return new Benchmarks.SideRounds(label, lowerIsBetter, Arrays.stream(values).mapToObj(Side.Measure::of).toList());
    }

    /** The JVM CPU per message (µs) of ours and, where not NaN, Redisson's in one scenario. */
    private static void cpu(Benchmarks b, String scenario, double ours, double redisson) {
        Map<String, double[]> perSide = new LinkedHashMap<>();
        perSide.put("ours", new double[] { 1, ours });
        if (!Double.isNaN(redisson)) {
            perSide.put("redisson", new double[] { 1, redisson });
        }
        b.cpu.put(scenario, perSide);
    }

    private static Benchmarks.Target pathCost(double ours, double... floor) {
        Benchmarks b = judge();
        b.rounds.put("observed-path-cost", new Benchmarks.Rounds(rounds("ours", true, ours),
                floor.length == 0 ? null : rounds("micrometer-floor", true, floor), null));
        return b.target(new Benchmarks.Result("observed-path-cost", ours, Double.NaN, "us/msg", Double.NaN));
    }

    @Test
    void theObservedPathCostIsMetWithinOneAndAHalfTimesAPositiveFloorOnly() {
        assertTrue(pathCost(1.5, 1.0).met());
        assertFalse(pathCost(1.6, 1.0).met());
        // the instruments measured as free or cheaper than nothing: no ratio (it was negative, so "met")
        for (Benchmarks.Target t : List.of(pathCost(1.0, 0), pathCost(1.0, -0.2), pathCost(1.0))) {
            assertFalse(t.met(), t.text());
            assertEquals("not measured", Benchmarks.metText(t), t.text());
        }
    }

    @Test
    void theJvmCpuRowIsMetOnlyWhenEveryScenarioBothRanIsWithinRedissons() {
        Benchmarks within = judge();
        cpu(within, "a", 1, 2);
        cpu(within, "b", 2, 2);
        cpu(within, "ours-only", 9, Double.NaN); // Redisson did not run it: not compared
        assertTrue(within.jvmCpuTarget().met(), within.jvmCpuTarget().text());

        Benchmarks above = judge();
        cpu(above, "a", 1, 2);
        cpu(above, "b", 2.1, 2);
        assertFalse(above.jvmCpuTarget().met());

        Benchmarks nan = judge(); // one side's CPU not measured in a scenario both ran
        cpu(nan, "a", 1, 2);
        cpu(nan, "b", Double.NaN, 2);
        assertFalse(nan.jvmCpuTarget().met(), nan.jvmCpuTarget().text());
        assertTrue(nan.jvmCpuTarget().text().contains("b not measured"), nan.jvmCpuTarget().text());

        Benchmarks noRedisson = judge();
        cpu(noRedisson, "a", 1, Double.NaN);
        assertFalse(noRedisson.jvmCpuTarget().met());
        assertEquals("not measured", Benchmarks.metText(noRedisson.jvmCpuTarget()));
    }

    private static Benchmarks.Target observed(double observed, double plain, String... args) {
        Benchmarks b = judge(args);
        if (!Double.isNaN(observed)) {
            b.rounds.put("end-to-end-rate-observed", new Benchmarks.Rounds(rounds("ours", false, observed),
                    rounds("plain", false, plain), null));
        }
        b.observedShare();
        return b.target(new Benchmarks.Result("end-to-end-rate-observed", observed, Double.NaN, "msg/s", Double.NaN));
    }

    @Test
    void theObservedRateIsJudgedOnTheDefaultsOnly() {
        assertTrue(observed(900, 1000).met());
        assertFalse(observed(899, 1000).met());
        assertEquals("not measured", Benchmarks.metText(observed(Double.NaN, Double.NaN)));
        // defined on --observe=metrics: another binding's share is shown, not judged
        Benchmarks.Target tracing = observed(950, 1000, "--observe=tracing");
        assertFalse(tracing.met());
        assertEquals("not measured", Benchmarks.metText(tracing));
        assertTrue(tracing.text().contains("95"), tracing.text());
    }

    @Test
    void aRedisCpuTargetOverTheFloorIsNotMetAboveItsBoundOrWithoutTheFloor() {
        Benchmarks b = judge();
        Map<String, double[]> within = new LinkedHashMap<>();
        within.put("ours", new double[] { 2, 1 });
        within.put(FloorSide.NAME, new double[] { 1, 1 });
        b.cpu.put("burst-drain-1m", within);
        Benchmarks.Result drain = new Benchmarks.Result("burst-drain-1m", 1, Double.NaN, "msg/s", Double.NaN);
        assertTrue(b.target(drain).met());
        within.put("ours", new double[] { 2.01, 1 });
        assertFalse(b.target(drain).met());
        within.remove(FloorSide.NAME);
        assertFalse(b.target(drain).met());
    }

    @Test
    void issue43Part4RowsAreJudgedOnOursWithTheBeforeSideBeside() {
        Benchmarks b = judge();
        b.rounds.put("enqueue-rate-1", new Benchmarks.Rounds(rounds("ours", false, 950), null,
                rounds(FloorSide.NAME, false, 1000), rounds(BeforeSide.NAME, false, 1000)));
        b.rounds.put("burst-drain-50k", new Benchmarks.Rounds(rounds("ours", true, 0.1), rounds("redisson", true, 3.0),
                rounds(FloorSide.NAME, true, 0.05), rounds(BeforeSide.NAME, true, 0.2)));
        List<Benchmarks.Part4Row> rows = b.part4Rows();
        assertEquals(13, rows.size());
        Benchmarks.Part4Row single = rows.get(0);
        assertTrue(single.met().met(), single.toString());
        assertEquals("0.95× floor (950 msg/s)", single.after());
        assertEquals("1× floor (1000 msg/s); met", single.before());
        assertEquals("0.95 (msg/s, higher is better)", single.afterVsBefore());
        Benchmarks.Part4Row burst = rows.stream().filter(r -> r.target().startsWith("burst-drain-50k")).findFirst()
                .orElseThrow();
        assertTrue(burst.met().met(), burst.toString());
        assertEquals("15× Redisson (0.2 s); not met", burst.before());
        assertEquals("0.5 (s, lower is better)", burst.afterVsBefore());
        Benchmarks.Part4Row eight = rows.get(1); // not run: never met
        assertEquals("n/a (enqueue-rate-8 not run)", eight.after());
        assertEquals("not measured", Benchmarks.metText(eight.met()));

        b.rounds.put("enqueue-rate-1", new Benchmarks.Rounds(rounds("ours", false, 949), null,
                rounds(FloorSide.NAME, false, 1000), null));
        Benchmarks.Part4Row below = b.part4Rows().get(0);
        assertFalse(below.met().met(), below.toString());
        assertEquals("n/a (not measured)", below.before());
    }

    /** set-completion judged on set and plain rounds of these Redis µs per message, and its sets' latencies (ms). */
    private static Benchmarks.Target setCompletion(double[] set, double[] plain, double... returnToStart) {
        Benchmarks b = judge();
        b.rounds.put("set-completion", new Benchmarks.Rounds(rounds("ours", true, set), rounds("plain", true, plain), null));
        for (double ms : returnToStart) {
            b.setSamples.add(new double[] { ms, ms - 1, 1 });
        }
        b.setLine("set-completion");
        return b.target(new Benchmarks.Result("set-completion", Benchmarks.median(set, true), Double.NaN,
                "redis_us/msg", Double.NaN));
    }

    @Test
    void setCompletionIsMetAtMostOnePointThreeTimesThePlainMediansAndNotWithoutThem() {
        double[] plain = { 9, 10, 11 };
        Benchmarks.Target at = setCompletion(new double[] { 12, 13, 14 }, plain, 5, 10, 50);
        assertTrue(at.met(), at.text());
        assertTrue(at.text().contains("(1.3×)") && at.text().contains("p50 10 ms, p99 50 ms"), at.text());
        assertFalse(setCompletion(new double[] { 12, 13.1, 14 }, plain, 5).met());
        Benchmarks.Target failed = setCompletion(new double[] { Double.NaN, Double.NaN, 12 }, plain, 5);
        assertFalse(failed.met());
        assertFalse(failed.measured(), failed.text());
        Benchmarks b = judge();
        Benchmarks.Target notRun = b.target(new Benchmarks.Result("set-completion", 12, Double.NaN, "redis_us/msg",
                Double.NaN));
        assertFalse(notRun.measured());
    }

    /** priorities judged on rounds of these rates (msg/s) with priorities and without. */
    private static Benchmarks.Target priorities(double[] with, double[] without) {
        Benchmarks b = judge();
        b.rounds.put("priorities", new Benchmarks.Rounds(rounds("ours", false, with), rounds("without", false, without),
                null));
        b.prioritiesLine("priorities");
        return b.target(new Benchmarks.Result("priorities", Benchmarks.median(with, false), Double.NaN, "msg/s",
                Double.NaN));
    }

    @Test
    void prioritiesIsMetAtNinetyPercentOfTheRateWithoutAndNotWithoutThem() {
        double[] without = { 9_000, 10_000, 11_000 };
        Benchmarks.Target at = priorities(new double[] { 8_000, 9_000, 12_000 }, without);
        assertTrue(at.met(), at.text());
        assertTrue(at.text().contains("(0.9×)"), at.text());
        assertFalse(priorities(new double[] { 8_000, 8_990, 12_000 }, without).met());
        Benchmarks.Target failed = priorities(new double[] { Double.NaN, Double.NaN, 12_000 }, without);
        assertFalse(failed.met());
        assertFalse(failed.measured(), failed.text());
        Benchmarks.Target notRun = judge().target(new Benchmarks.Result("priorities", 9_000, Double.NaN, "msg/s",
                Double.NaN));
        assertFalse(notRun.measured());
    }

    @Test
    void commandCostIsPerMessageOrPerThousandLargestFirstMovedCommandsOnly() {
        Map<String, String> before = Map.of("cmdstat_evalsha", "calls=10,usec=1000,usec_per_call=100.00",
                "cmdstat_zadd", "calls=5,usec=50,usec_per_call=10.00", "cmdstat_get", "calls=3,usec=3");
        Map<String, String> after = new LinkedHashMap<>();
        after.put("cmdstat_get", "calls=3,usec=3");
        after.put("cmdstat_zadd", "calls=7,usec=250,usec_per_call=35.71");
        after.put("cmdstat_evalsha", "calls=30,usec=3000,usec_per_call=100.00");
        after.put("cmdstat_zrem", "calls=1,usec=10,usec_per_call=10.00");
        assertEquals("evalsha:20,zadd:2,zrem:0.1", OursSide.commandCost(before, after, 100, false));
        assertEquals("evalsha:200,zadd:20,zrem:10", OursSide.commandCost(before, after, 100, true));
    }
}
