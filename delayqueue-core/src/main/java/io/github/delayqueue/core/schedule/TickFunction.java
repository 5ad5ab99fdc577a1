package io.github.delayqueue.core.schedule;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * The instants of a schedule's ticks. Must be deterministic (every instance, every release, computes the same
 * ticks from the same spec) and must not depend on this JVM's clock.
 */
@FunctionalInterface
public interface TickFunction {

    /** The first tick strictly after {@code after}, or {@code null} when the schedule has no more ticks. */
    @Nullable Instant next(Instant after);

    /**
     * Builds the tick function of one kind of schedule ({@code every}, {@code cron}, …) from the spec's expression
     * and zone.
     */
    @FunctionalInterface
    interface Factory {

        /** @throws IllegalArgumentException if {@code expression} is not valid for this kind, naming why */
        TickFunction create(String expression, java.time.ZoneId zone);
    }
}
