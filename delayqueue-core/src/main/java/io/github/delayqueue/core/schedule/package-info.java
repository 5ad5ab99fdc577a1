/**
 * Recurring schedules: cron and fixed-rate jobs that fire once per tick across every instance. A schedule is a
 * definition in Redis and a stream of ordinary messages on a queue, one per tick, each with an id derived from the
 * schedule and the tick's instant; the next tick is written when the current one is claimed, under a per-schedule
 * cursor advanced by compare-and-set, so no tick is written twice. No JVM timer or thread per schedule.
 * {@link io.github.delayqueue.core.schedule.Schedules} is the entry point; tick instants come from a
 * {@link io.github.delayqueue.core.schedule.TickFunction} per kind of schedule (fixed rate here; cron from the
 * Spring Boot starter or any other implementation). See docs/guides/recurring-jobs.md.
 */
@NullMarked
package io.github.delayqueue.core.schedule;

import org.jspecify.annotations.NullMarked;
