package io.github.delayqueue.core.schedule;

import java.time.Duration;
import java.time.Instant;

/**
 * Told what happens to every tick when it is claimed, for metrics and logs. Called on the handler's thread before
 * the handler runs; it must be quick and must not throw (what it throws is logged and ignored).
 */
public interface ScheduleListener {

    /** Listens to nothing. */
    ScheduleListener NONE = new ScheduleListener() {
    };

    /** What became of a claimed tick. */
    enum Outcome {
        /** Its handler runs. */
        FIRED,
        /** Its handler runs again: a retry or redelivery of a tick that ran before (the series moved on already). */
        REDELIVERED,
        /** Left out: the previous tick of the schedule still runs or waits for a retry ({@link Overlap#SKIP}). */
        SKIPPED_OVERLAP,
        /** Left out: it was missed ({@link Misfire#SKIP}). */
        SKIPPED_MISFIRE,
        /** Its handler runs: a tick triggered by hand ({@link Schedules#trigger}), outside the series. */
        TRIGGERED
    }

    /**
     * A tick was claimed. {@code late} is how long after its instant it was claimed (Redis clock, zero for a
     * triggered tick).
     */
    default void tick(String queue, String schedule, Instant tick, Outcome outcome, Duration late) {
    }

    /** {@code count} ticks of the schedule were missed and left out by its misfire policy. */
    default void missed(String queue, String schedule, long count) {
    }
}
