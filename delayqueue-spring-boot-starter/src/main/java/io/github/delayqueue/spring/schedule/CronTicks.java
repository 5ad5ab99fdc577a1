package io.github.delayqueue.spring.schedule;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;

import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.support.CronExpression;

import io.github.delayqueue.core.schedule.TickFunction;

/**
 * The {@code cron} kind of schedule: ticks as Spring's {@link CronExpression} computes them in the schedule's zone
 * (6 fields, second first, or a macro such as {@code @daily}), with one rule on top: a wall-clock time fires at most
 * once. When daylight-saving time ends the clock goes back and Spring would fire the repeated times again (a daily
 * 02:30 in Europe/Berlin at 02:30+02:00 and again at 02:30+01:00); here a tick whose wall-clock time is not after the
 * previous tick's is left out. A wall-clock time that does not exist when daylight-saving time starts is skipped,
 * as Spring skips it (that day has no 02:30 tick). See docs/guides/recurring-jobs.md.
 */
public final class CronTicks implements TickFunction {

    /** Registered as the {@code cron} kind by the starter; register it yourself with {@code Schedules.Builder#kind}. */
    public static final TickFunction.Factory FACTORY = CronTicks::new;

    private final CronExpression expression;
    private final ZoneId zone;

    /** @throws IllegalArgumentException if {@code expression} is not a valid cron expression, with Spring's reason */
    public CronTicks(String expression, ZoneId zone) {
        try {
            this.expression = CronExpression.parse(expression);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid cron expression '" + expression + "': " + e.getMessage()
                    + " (6 fields, second first, such as \"0 0 2 * * *\", or a macro such as @daily)", e);
        }
        this.zone = zone;
    }

    @Override
    public @Nullable Instant next(Instant after) {
        return next(after, null);
    }

    /** As {@link #next(Instant)}, and no wall-clock time at or before {@code previous}'s (the clock went back since). */
    @Override
    public @Nullable Instant next(Instant after, @Nullable Instant previous) {
        ZonedDateTime from = after.atZone(this.zone);
        LocalDateTime floor = from.toLocalDateTime();
        if (previous != null && !previous.isAfter(after)) {
            LocalDateTime ran = previous.atZone(this.zone).toLocalDateTime();
            if (ran.isAfter(floor)) {
                floor = ran;
            }
        }
        ZonedDateTime next = this.expression.next(from);
        // the clock went back: these wall-clock times have fired already (bounded by the repeated hour's ticks)
        while (next != null && !next.toLocalDateTime().isAfter(floor)) {
            next = this.expression.next(next);
        }
        return next == null ? null : next.toInstant();
    }
}
