package io.github.delayqueue.spring.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

import io.github.delayqueue.core.schedule.ScheduleListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Recurring schedules bound to Micrometer, tagged by {@code queue} (never by schedule id: a queue may have 100,000
 * schedules): {@code delayqueue.schedule.ticks} (timer of how late each claimed tick was, tagged {@code outcome}:
 * fired, redelivered, skipped_overlap, skipped_misfire, triggered) and {@code delayqueue.schedule.missed} (ticks left
 * out by a misfire policy after an outage). See docs/guides/recurring-jobs.md.
 *
 * <p>Internal to the starter: public only so that the auto-configuration can create it.
 */
public final class ScheduleMetrics implements ScheduleListener {

    private final MeterRegistry registry;

    public ScheduleMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void tick(String queue, String schedule, Instant tick, Outcome outcome, Duration late) {
        Timer.builder(DelayQueueMetrics.PREFIX + "schedule.ticks")
                .description("Ticks of recurring schedules claimed, by what became of them, and how late they were claimed")
                .tag("queue", queue).tag("outcome", outcome.name().toLowerCase(Locale.ROOT)).register(this.registry)
                .record(late);
    }

    @Override
    public void missed(String queue, String schedule, long count) {
        Counter.builder(DelayQueueMetrics.PREFIX + "schedule.missed")
                .description("Ticks of recurring schedules left out by their misfire policy after an outage or a pause")
                .tag("queue", queue).register(this.registry).increment(count);
    }
}
