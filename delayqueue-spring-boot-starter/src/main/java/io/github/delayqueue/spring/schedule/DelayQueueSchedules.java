package io.github.delayqueue.spring.schedule;

import java.util.Optional;

import io.github.delayqueue.core.schedule.ScheduleInfo;
import io.github.delayqueue.core.schedule.SchedulePage;
import io.github.delayqueue.core.schedule.ScheduleSpec;
import io.github.delayqueue.core.schedule.Schedules;
import io.github.delayqueue.spring.DelayQueueCode;

/**
 * Recurring schedules at runtime, such as a weekly report per customer at 09:00 in the customer's zone:
 *
 * <pre>
 * schedules.put(ScheduleSpec.cron("REPORTS", "weekly:" + customer.id(), "0 0 9 * * MON")
 *         .zone(customer.zone()).payload(new ReportRequest(customer.id())).build());
 * </pre>
 *
 * A schedule is identified by its queue code and its id; its ticks are messages of that queue, handled by its
 * {@code @DelayHandler}. Kinds: {@code cron} (Spring's {@code CronExpression}) and {@code every}. Bad input (an
 * undeclared queue, a bad expression, a payload that cannot be encoded) throws {@link IllegalArgumentException} and
 * writes nothing. See docs/guides/recurring-jobs.md.
 */
public interface DelayQueueSchedules {

    /** Creates the schedule or replaces its definition and pending tick ({@link Schedules#put}). */
    Schedules.Outcome put(ScheduleSpec spec);

    /** Removes the schedule and its pending tick; false if there was none. */
    boolean remove(String queue, String id);

    Optional<ScheduleInfo> get(String queue, String id);

    /** A page of the queue's schedules in next-tick order ({@link Schedules#list}). */
    SchedulePage list(String queue, long offset, int limit);

    /** Pauses it for every instance; false if it was paused already. */
    boolean pause(String queue, String id);

    /** Resumes it by its misfire policy; false if it was not paused (and had no lost tick to re-arm). */
    boolean resume(String queue, String id);

    /** Runs one tick now, outside the series; returns the tick's message id. */
    String trigger(String queue, String id);

    // The same, by the queue's code constant, as DelayQueueTemplate takes it

    /** {@link #remove(String, String)} of {@code queue.code()}. */
    default boolean remove(DelayQueueCode queue, String id) {
        return remove(code(queue), id);
    }

    /** {@link #get(String, String)} of {@code queue.code()}. */
    default Optional<ScheduleInfo> get(DelayQueueCode queue, String id) {
        return get(code(queue), id);
    }

    /** {@link #list(String, long, int)} of {@code queue.code()}. */
    default SchedulePage list(DelayQueueCode queue, long offset, int limit) {
        return list(code(queue), offset, limit);
    }

    /** {@link #pause(String, String)} of {@code queue.code()}. */
    default boolean pause(DelayQueueCode queue, String id) {
        return pause(code(queue), id);
    }

    /** {@link #resume(String, String)} of {@code queue.code()}. */
    default boolean resume(DelayQueueCode queue, String id) {
        return resume(code(queue), id);
    }

    /** {@link #trigger(String, String)} of {@code queue.code()}. */
    default String trigger(DelayQueueCode queue, String id) {
        return trigger(code(queue), id);
    }

    /** The name of {@code queue}, refused with a clear message when null, as the String forms refuse a null queue. */
    private static String code(DelayQueueCode queue) {
        if (queue == null) {
            throw new IllegalArgumentException("queue code must not be null");
        }
        return queue.code();
    }
}
