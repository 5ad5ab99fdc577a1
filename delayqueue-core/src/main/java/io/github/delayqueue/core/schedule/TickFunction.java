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
     * The first tick strictly after {@code after} when the series goes on from an instant that is not a tick (a
     * replace, a tick claimed more than a period late) and {@code previous} is its latest tick that ran ({@code null}
     * if none): a kind whose ticks follow wall-clock time leaves out those {@code previous} made redundant (the
     * {@code cron} kind: a wall-clock time fires at most once, also across a replace). By default {@link #next(Instant)}.
     */
    default @Nullable Instant next(Instant after, @Nullable Instant previous) {
        return next(after);
    }

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
