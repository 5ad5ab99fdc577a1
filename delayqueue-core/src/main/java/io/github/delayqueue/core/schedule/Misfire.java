package io.github.delayqueue.core.schedule;

/**
 * What a schedule does with ticks missed while no consumer ran (or while it was paused). A tick counts as missed
 * when it is claimed after the next one was due already.
 */
public enum Misfire {
    /** One catch-up tick (the oldest missed one runs), the others are left out, then on schedule. The default. */
    FIRE_ONCE,
    /** Every missed tick is left out, the oldest one too; the schedule goes on with the next tick after now. */
    SKIP,
    /**
     * Every missed tick runs, oldest first, one after the other, up to {@link ScheduleSpec#catchUpLimit()} per
     * outage; beyond it the rest are left out.
     */
    FIRE_ALL
}
