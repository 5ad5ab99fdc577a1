package io.github.delayqueue.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
}
