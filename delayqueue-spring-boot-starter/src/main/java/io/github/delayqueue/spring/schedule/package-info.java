/**
 * Recurring schedules in Spring Boot: {@link io.github.delayqueue.spring.schedule.DelayQueueSchedules} (create,
 * replace, read, list, pause, resume, trigger and remove schedules at runtime) and cron ticks computed by Spring's
 * {@code CronExpression} ({@link io.github.delayqueue.spring.schedule.CronTicks}). Their implementation, the
 * interceptor that writes each schedule's next tick in every consumer and the declarations of
 * {@code delayqueue.schedules.*} are internal to the auto-configuration. The engine is
 * {@code io.github.delayqueue.core.schedule}; see docs/guides/recurring-jobs.md.
 */
@NullMarked
package io.github.delayqueue.spring.schedule;

import org.jspecify.annotations.NullMarked;
