package io.github.delayqueue.core.schedule;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A schedule as Redis holds it now.
 *
 * @param spec       its definition (the payload as JSON)
 * @param declared   whether it was last written by a declaration ({@link Schedules#declare}, yaml in Spring Boot)
 *                   rather than by {@link Schedules#put}
 * @param nextTickAt the instant of its latest tick written: pending (or, once claimed, running), or the one a
 *                   resume writes again while paused; null when the series has ended
 * @param paused     whether it is paused
 * @param lastTickAt the instant of the latest tick whose handler was let run (not one a misfire policy or an
 *                   undecodable payload left out), or null (none yet, or a manual one)
 */
public record ScheduleInfo(ScheduleSpec spec, boolean declared, @Nullable Instant nextTickAt, boolean paused,
        @Nullable Instant lastTickAt) {
}
