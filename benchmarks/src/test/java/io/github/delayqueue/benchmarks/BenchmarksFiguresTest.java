package io.github.delayqueue.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The arithmetic behind the table's targets: CPU per message of a round, and the 10m drain's heap check. */
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
}
