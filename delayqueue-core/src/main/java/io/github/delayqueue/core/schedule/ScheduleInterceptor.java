package io.github.delayqueue.core.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.github.delayqueue.core.DeliveryInterceptor;
import io.github.delayqueue.core.MessageContext;

/**
 * Runs before the handler of every claimed message; for a tick (a message with {@link Schedules#SCHEDULE_HEADER})
 * it writes the schedule's next tick in one script call (schedule.lua's {@code advance}, a compare-and-set on the
 * schedule's cursor, so a retry or a late redelivery of an older tick writes nothing), then lets the handler run or
 * leaves the tick out by the overlap and misfire policies. A tick left out is acknowledged without its handler.
 * If Redis fails here the exception fails the delivery, which is retried as any other: the retry writes the next
 * tick then.
 */
final class ScheduleInterceptor implements DeliveryInterceptor {

    private static final Logger log = LoggerFactory.getLogger(ScheduleInterceptor.class);

    /** Most tick instants walked to count the ticks an outage missed (the count says "at least" beyond it). */
    private static final int COUNT_LIMIT = 100_000;

    private final Schedules schedules;
    private final ScheduleListener listener;

    ScheduleInterceptor(Schedules schedules, ScheduleListener listener) {
        this.schedules = schedules;
        this.listener = listener;
    }

    @Override
    public void aroundHandle(MessageContext context, Object payload, Invocation invocation) throws Exception {
        Map<String, String> headers = context.headers();
        String id = headers.get(Schedules.SCHEDULE_HEADER);
        String tick = headers.get(Schedules.TICK_HEADER);
        if (id == null || tick == null) {
            invocation.proceed();
            return;
        }
        if (tick.equals(Schedules.MANUAL)) {
            tell(context.queue(), id, context.dueAt(), ScheduleListener.Outcome.TRIGGERED, Duration.ZERO);
            invocation.proceed();
            return;
        }
        long tickMs;
        try {
            tickMs = Long.parseLong(tick);
        } catch (NumberFormatException e) {
            log.warn("Queue '{}': message '{}' names schedule '{}' with a tick '{}' that is not a number: handled as "
                    + "a plain message", context.queue(), context.id(), id, tick);
            invocation.proceed();
            return;
        }
        if (!decide(context, id, tickMs, headers, true)) {
            return; // left out: acknowledged without running the handler
        }
        invocation.proceed();
    }

    /**
     * A tick whose payload cannot be decoded (changed by a deploy, say) goes to the dead letters; its next tick is
     * written all the same, from its headers, so the series goes on. The listener is not told: no handler ran.
     */
    @Override
    public void undecodable(MessageContext context) {
        Map<String, String> headers = context.headers();
        String id = headers.get(Schedules.SCHEDULE_HEADER);
        String tick = headers.get(Schedules.TICK_HEADER);
        if (id == null || tick == null || tick.equals(Schedules.MANUAL)) {
            return;
        }
        long tickMs;
        try {
            tickMs = Long.parseLong(tick);
        } catch (NumberFormatException e) {
            return;
        }
        decide(context, id, tickMs, headers, false);
    }

    /** Writes the next tick; true if this tick's handler runs. */
    private boolean decide(MessageContext context, String id, long tickMs, Map<String, String> headers, boolean decodable) {
        String queue = context.queue();
        Schedules.Target target = schedules.target(queue, id);
        Schedules.Read read = schedules.read(target);
        Definition definition = read.definition();
        State state = read.state();
        Instant tick = Instant.ofEpochMilli(tickMs);
        Duration late = Duration.ofMillis(Math.max(0, read.nowMs() - tickMs));
        if (definition == null || state == null) {
            if (decodable) {
                tell(queue, id, tick, ScheduleListener.Outcome.REDELIVERED, late); // removed since: it runs, nothing follows
            }
            return true;
        }
        boolean current = state.cursor() == tickMs; // paused or not: see schedule.lua's advance
        String nextDue = "";
        String nextId = "";
        String nextBody = "";
        boolean misfireSkips = false;
        long missed = 0;
        if (current) {
            TickFunction ticks = schedules.tickFunction(definition.kind(), definition.expr(),
                    java.time.ZoneId.of(definition.zone()));
            Instant now = Instant.ofEpochMilli(read.nowMs());
            Instant following = ticks.next(tick);
            Instant next = following;
            int catchUp = 0;
            if (following != null && !following.isAfter(now)) { // this tick is late by more than a period
                Misfire misfire = Misfire.valueOf(definition.misfire());
                int done = catchUpsDone(headers);
                if (misfire == Misfire.FIRE_ALL && done < definition.limit()) {
                    catchUp = done + 1; // the following one is due already: it is claimed next
                } else {
                    next = ticks.next(now, tick); // this tick runs (or is skipped): no wall-clock time twice
                    missed = count(ticks, following, now);
                    if (misfire == Misfire.SKIP) {
                        misfireSkips = true;
                        missed++;
                    }
                }
            }
            if (next != null) {
                long nextMs = next.toEpochMilli();
                nextDue = Long.toString(nextMs);
                nextId = target.tickId(nextDue);
                nextBody = Schedules.body(id, nextMs, catchUp, definition.payload());
            }
        }
        List<Object> result = target.run("advance", Long.toString(tickMs), context.id(), state.version(),
                Overlap.SKIP.name().equals(definition.overlap()) ? "1" : "0", nextDue, nextId, nextBody,
                misfireSkips || !decodable ? "1" : "0");
        boolean advanced = "advanced".equals(result.get(0));
        boolean overlapSkips = "1".equals(result.get(1));
        if (!decodable) { // no handler runs: the listener is not told
            return false;
        }
        if (advanced && missed > 0) {
            try {
                listener.missed(queue, id, missed);
            } catch (RuntimeException e) {
                log.warn("Schedule listener failed: {}", e.toString());
            }
        }
        if (overlapSkips) {
            tell(queue, id, tick, ScheduleListener.Outcome.SKIPPED_OVERLAP, late);
            return false;
        }
        if (advanced && misfireSkips) {
            tell(queue, id, tick, ScheduleListener.Outcome.SKIPPED_MISFIRE, late);
            return false;
        }
        tell(queue, id, tick, advanced ? ScheduleListener.Outcome.FIRED : ScheduleListener.Outcome.REDELIVERED, late);
        return true;
    }

    private static int catchUpsDone(Map<String, String> headers) {
        String value = headers.get(Schedules.CATCH_UP_HEADER);
        if (value == null) {
            return 0;
        }
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Ticks from {@code first} up to {@code now} included, counted up to {@link #COUNT_LIMIT}. */
    private static long count(TickFunction ticks, Instant first, Instant now) {
        long count = 0;
        for (@Nullable Instant t = first; t != null && !t.isAfter(now) && count < COUNT_LIMIT; t = ticks.next(t)) {
            count++;
        }
        return count;
    }

    private void tell(String queue, String id, Instant tick, ScheduleListener.Outcome outcome, Duration late) {
        try {
            listener.tick(queue, id, tick, outcome, late);
        } catch (RuntimeException e) {
            log.warn("Schedule listener failed: {}", e.toString());
        }
    }
}
