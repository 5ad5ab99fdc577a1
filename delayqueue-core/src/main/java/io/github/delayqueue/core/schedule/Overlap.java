package io.github.delayqueue.core.schedule;

/** Whether a tick runs while the previous tick of the same schedule still runs or waits for a retry. */
public enum Overlap {
    /** It runs: ticks of one schedule may run at once on several instances. The default. */
    ALLOW,
    /** It is left out (acknowledged without running its handler); the schedule goes on with the next tick. */
    SKIP
}
