package io.github.delayqueue.core.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * The {@code every} kind: ticks at every whole multiple of the period since the epoch (1970-01-01T00:00Z), so every
 * instance and every restart computes the same instants from the spec alone ({@code PT30S} ticks at :00 and :30 of
 * each minute). The expression is an ISO-8601 duration of at least one millisecond, whole milliseconds.
 */
final class FixedRate implements TickFunction {

    static final TickFunction.Factory FACTORY = (expression, zone) -> new FixedRate(parse(expression));

    private final long periodMs;

    FixedRate(Duration period) {
        this.periodMs = period.toMillis();
    }

    static Duration parse(String expression) {
        Duration period;
        try {
            period = Duration.parse(expression);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'every' must be an ISO-8601 duration such as PT30S, was '" + expression
                    + "'", e);
        }
        if (period.isNegative() || period.isZero() || period.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException("'every' must be a positive whole number of milliseconds, was " + period);
        }
        if (period.compareTo(Duration.ofDays(3650)) > 0) {
            throw new IllegalArgumentException("'every' must be at most 3650 days, was " + period);
        }
        return period;
    }

    @Override
    public Instant next(Instant after) {
        long ms = after.toEpochMilli();
        return Instant.ofEpochMilli(Math.floorDiv(ms, periodMs) * periodMs + periodMs);
    }
}
