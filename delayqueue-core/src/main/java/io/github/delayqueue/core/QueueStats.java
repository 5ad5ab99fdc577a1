package io.github.delayqueue.core;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one queue, read atomically (per partition).
 *
 * @param queue      the queue name
 * @param pending    messages waiting for their due time or for a consumer (includes {@code ready})
 * @param ready      pending messages already due (a backlog when it stays above zero), including grouped messages
 *                   their group's limit or hold holds back (counted over the first 100 groups, a bounded read)
 * @param inFlight   messages claimed by a consumer and not yet settled
 * @param dead       dead letters
 * @param nextDueAt  due time of the earliest pending message (for a grouped message, when its group may next be
 *                   claimed: not before its group's next permit or the end of its hold), or {@code null} when none
 * @param serverTime the Redis server's clock when the snapshot was taken
 * @param flow       the queue's flow control over every instance: limits, claim rate, throttled backlog, hold
 *                   ({@link QueueFlow#NONE} when given {@code null})
 * @param history    records of settled messages the queue's history keeps ({@link ConsumerOptions.Builder#keepHistory});
 *                   0 for a queue that keeps none
 * @param readyByPriority {@code ready} per {@link SendOptions#priority priority}, highest first, each priority with
 *                   ready messages only ({@link SendOptions#DEFAULT_PRIORITY} counts the grouped ones); empty when
 *                   nothing is ready
 */
public record QueueStats(String queue, long pending, long ready, long inFlight, long dead, @Nullable Instant nextDueAt,
        Instant serverTime, QueueFlow flow, long history, Map<Integer, Long> readyByPriority) {

    /**
     * A {@code null} flow is {@link QueueFlow#NONE}: readers (the endpoint, the dashboard, the gauge) never check. A
     * {@code null} {@code readyByPriority} counts every ready message at the default priority.
     */
    public QueueStats {
        if (flow == null) {
            flow = QueueFlow.NONE;
        }
        if (readyByPriority == null) {
            readyByPriority = ready > 0 ? Map.of(SendOptions.DEFAULT_PRIORITY, ready) : Map.of();
        } else {
            Map<Integer, Long> copy = new TreeMap<>(java.util.Comparator.reverseOrder());
            readyByPriority.forEach((priority, count) -> {
                if (count != null && count > 0) {
                    copy.put(priority, count);
                }
            });
            readyByPriority = java.util.Collections.unmodifiableMap(copy);
        }
    }

    /** A snapshot whose ready messages are all of the default priority (the constructor of releases before priorities). */
    public QueueStats(String queue, long pending, long ready, long inFlight, long dead, @Nullable Instant nextDueAt,
            Instant serverTime, @Nullable QueueFlow flow, long history) {
        this(queue, pending, ready, inFlight, dead, nextDueAt, serverTime, flow, history, null);
    }

    /** A snapshot of a queue that keeps no history. */
    public QueueStats(String queue, long pending, long ready, long inFlight, long dead, @Nullable Instant nextDueAt,
            Instant serverTime, @Nullable QueueFlow flow) {
        this(queue, pending, ready, inFlight, dead, nextDueAt, serverTime, flow, 0);
    }

    /** A snapshot without flow control ({@link QueueFlow#NONE}) of a queue that keeps no history. */
    public QueueStats(String queue, long pending, long ready, long inFlight, long dead, @Nullable Instant nextDueAt,
            Instant serverTime) {
        this(queue, pending, ready, inFlight, dead, nextDueAt, serverTime, QueueFlow.NONE, 0);
    }
}
