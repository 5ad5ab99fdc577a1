package io.github.delayqueue.core.schedule;

import java.time.Instant;
import java.util.List;

/**
 * A page of a queue's schedules in next-tick order.
 *
 * @param queue      the queue
 * @param total      how many schedules the queue has
 * @param offset     the offset of the first one on this page
 * @param serverTime the Redis clock when the page was read
 * @param schedules  the page
 */
public record SchedulePage(String queue, long total, long offset, Instant serverTime, List<ScheduleInfo> schedules) {
}
