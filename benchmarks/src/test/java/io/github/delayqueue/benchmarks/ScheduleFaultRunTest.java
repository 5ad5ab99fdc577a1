package io.github.delayqueue.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The counting of {@link ScheduleFaultRun} (the run itself starts six JVMs for over two minutes: a documented command,
 * not part of the build): every second of the window is missed, once or more; a second run twice by the killed
 * instance and another counts as doubled by the kill; a second none of whose runs finished counts as never finished; records outside the window are not counted.
 */
class ScheduleFaultRunTest {

    @Test
    void countsEachSecondOfTheWindowByItsRuns() {
        List<String> records = List.of("99 a1", "100 a1", "101 a2", "101 a3", "103 a1", "103 a2", "104 a3", "106 a1");
        List<String> finished = List.of("100 a1", "101 a3", "103 a1", "106 a1");
        ScheduleFaultRun.Tally tally = ScheduleFaultRun.tally(records, finished, 100, 105, "a2");
        assertEquals(6, tally.seconds());
        assertEquals(2, tally.missed());
        assertEquals(List.of(102L, 105L), tally.missedSeconds());
        assertEquals(2, tally.once());
        assertEquals(2, tally.twiceOrMore());
        assertEquals(List.of(101L, 103L), tally.twiceSeconds());
        assertEquals(2, tally.doubledWithKilled());
        assertEquals(1, tally.neverFinished()); // 104: started, never finished
        assertEquals(0, ScheduleFaultRun.tally(records, finished, 100, 105, null).doubledWithKilled());
    }

    @Test
    void badArgumentsAreRefusedBeforeAnyProcessStarts() {
        assertThrows(IllegalArgumentException.class, () -> ScheduleFaultRun.main(new String[] {"--nope=1"}));
        assertThrows(IllegalArgumentException.class, () -> ScheduleFaultRun.main(new String[] {"--seconds=10", "--kill-at=9"}));
        assertThrows(IllegalArgumentException.class, () -> ScheduleFaultApp.main(new String[] {"cron", "a1", "redis://x:1", "p", "0"}));
    }
}
