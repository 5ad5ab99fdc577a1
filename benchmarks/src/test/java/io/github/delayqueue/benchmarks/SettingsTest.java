package io.github.delayqueue.benchmarks;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Flags are checked before anything starts, so a typo costs no warm-up. */
class SettingsTest {

    @Test
    void traceSamplingIsAFractionFromZeroToOne() {
        assertEquals(1.0f, new Settings().traceSampling);
        assertEquals(0.1f, new Settings("--trace-sampling=0.1").traceSampling);
        assertEquals(0f, new Settings("--trace-sampling=0").traceSampling);
        for (String bad : new String[] { "2", "-0.1", "x", "NaN", "" }) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new Settings("--trace-sampling=" + bad));
            assertEquals("--trace-sampling must be a number from 0 to 1, was '" + bad + "'", e.getMessage());
        }
    }

    @Test
    void roundsArePositive() {
        assertEquals(5, new Settings().integer("rounds"));
        assertEquals(1, new Settings("--rounds=1").integer("rounds"));
        for (String bad : new String[] { "0", "-1", "x", "" }) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Settings("--rounds=" + bad));
            assertEquals("--rounds must be a positive integer, was '" + bad + "'", e.getMessage());
        }
    }

    @Test
    void repeatIsGoneAndEnqueueRateIsSplitByThreads() {
        assertEquals("unknown flag --repeat (see --help)",
                assertThrows(IllegalArgumentException.class, () -> new Settings("--repeat=3")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Settings("--scenarios=enqueue-rate"));
        assertTrue(new Settings("--scenarios=enqueue-rate-1,enqueue-rate-32").scenarios.contains("enqueue-rate-32"));
        assertTrue(new Settings().scenarios.containsAll(java.util.List.of("enqueue-rate-1", "enqueue-rate-8",
                "enqueue-rate-32", "lateness-under-burst", "consumers-4")));
    }

    @Test
    void theDefaultRunHasBurstDrain10mAfterThe1mDrainItIsComparedWith() {
        List<String> all = List.copyOf(new Settings().scenarios);
        assertTrue(all.indexOf("burst-drain-1m") < all.indexOf("burst-drain-10m"), all.toString());
        assertTrue(all.contains("observed-path-cost"), all.toString());
        assertFalse(all.contains("schedules-100k"), all.toString());
        assertEquals(1, new Settings().integer("burst10m-rounds"));
    }

    @Test
    void booleanFlagsAreTrueOrFalse() {
        assertTrue(new Settings("--redisson-consumers4").bool("redisson-consumers4"));
        assertFalse(new Settings("--redisson-consumers4=false").bool("redisson-consumers4"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Settings("--redisson-consumers4=yes"));
        assertEquals("--redisson-consumers4 must be true or false, was 'yes'", e.getMessage());
    }

    @Test
    void sidesAreOursOrRedisson() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Settings("--sides=ours,redison"));
        assertEquals("--sides must list ours, redisson and/or floor, was 'ours,redison'", e.getMessage());
    }

    @Test
    void theBeforeJarMustHoldTheEngine(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        assertEquals(null, new Settings().beforeJar);
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> new Settings("--before-jar=" + dir.resolve("none.jar")));
        assertTrue(missing.getMessage().startsWith("--before-jar must be a readable delayqueue-core jar"), missing.getMessage());
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
                () -> new Settings("--before-jar=" + dir));
        assertTrue(empty.getMessage().startsWith("--before-jar must hold delayqueue-core's classes"), empty.getMessage());
    }

    @Test
    void theMedianCountsAFailedRoundAsTheWorst() {
        assertEquals(3.0, Benchmarks.median(new double[] { 5, 1, 3 }, true));
        assertEquals(2.0, Benchmarks.median(new double[] { 1, 3 }, true));
        // lower is better: a failed round (NaN) sorts last; higher is better: first
        assertEquals(5.0, Benchmarks.median(new double[] { Double.NaN, 1, 5 }, true));
        assertEquals(1.0, Benchmarks.median(new double[] { Double.NaN, 1, 5 }, false));
        assertTrue(Double.isNaN(Benchmarks.median(new double[] { Double.NaN, Double.NaN, 5 }, true)));
        assertTrue(Double.isNaN(Benchmarks.median(new double[] { Double.NaN, 1 }, false)));
        assertTrue(Double.isNaN(Benchmarks.median(new double[0], false)));
    }

    @Test
    void idleCostIsNamedOnlyAndItsInstanceCountsAreChecked() {
        assertFalse(new Settings().scenarios.contains("idle-cost"));
        assertTrue(new Settings("--scenarios=idle-cost").scenarios.contains("idle-cost"));
        assertEquals(List.of(1, 4, 10), java.util.Arrays.stream(IdleQueueCost.parseInstances(
                new Settings().get("idle-instances"))).boxed().toList());
        for (String bad : new String[] { "0", "1,x", "", "1,-2" }) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new Settings("--idle-instances=" + bad));
            assertEquals("--idle-instances must list positive integers, was '" + bad + "'", e.getMessage());
        }
    }

    @Test
    void setCompletionIsNamedOnlyAndHasAtLeastOneMemberPerSet() {
        assertFalse(new Settings().scenarios.contains("set-completion"));
        assertTrue(new Settings("--scenarios=set-completion").scenarios.contains("set-completion"));
        new Settings("--set-count=10", "--set-sets=10");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Settings("--set-count=10", "--set-sets=11"));
        assertEquals("--set-sets must be at most --set-count (sets of at least one member), was 11 sets of 10",
                e.getMessage());
    }

    @Test
    void prioritiesIsNamedOnly() {
        assertFalse(new Settings().scenarios.contains("priorities"));
        assertTrue(new Settings("--scenarios=priorities").scenarios.contains("priorities"));
        assertEquals("100000", new Settings().get("priorities-count"));
        assertEquals("3", new Settings().get("priorities-rounds"));
    }
}
