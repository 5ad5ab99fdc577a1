package io.github.delayqueue.core.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.github.delayqueue.core.DeadLetterCause;
import io.github.delayqueue.core.DelayQueueListener;
import io.github.delayqueue.core.DeliveryOutcome;
import io.github.delayqueue.core.FlowLimit;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.SendMode;
import io.github.delayqueue.core.history.HistoryTrim;

/**
 * A client's activity counts per queue and per minute ({@code core.activity}), kept in memory from the listener events
 * the engine reports anyway, and handed to Redis by {@link #flush} (once a minute on the client's
 * {@code delayqueue-activity} thread, see {@link SharedThreads}, and when its last consumer stops): one {@link Writer}
 * call per queue with something to add, never a Redis command per message. Every event is passed on to the
 * application's listener ({@code next}, already a {@link SafeListener}); counting never throws.
 *
 * <p>An event counts in the minute of the Redis clock as this instance last saw it (the local clock plus the offset
 * measured by the last flush). A flush that fails gives its counts back for the next one; at most {@link #MAX_MINUTES}
 * minutes are kept per queue (older ones, which Redis would no longer keep either, are dropped and logged). Redis
 * unreachable, the usual failure, adds nothing; a script that fails part way (a minute's key of another type) may have
 * added the minutes before the failing one, which the next flush then adds again: counts are for a picture, not an
 * audit.
 */
public final class ActivityTally implements DelayQueueListener {

    /** Writes one queue's minutes (each: minute number, then the six counts) in one call; returns the Redis clock (ms). */
    @FunctionalInterface
    public interface Writer {
        long write(String queue, List<long[]> minutes);
    }

    /** Minutes kept per queue while flushes fail: two hours, as long as Redis keeps a minute. */
    static final int MAX_MINUTES = 120;

    static final int HANDLED = 0;
    static final int RETRIED = 1;
    static final int DEAD = 2;
    static final int STARTED = 3;
    static final int LATE_SUM = 4;
    static final int LATE_MAX = 5;
    private static final int FIELDS = 6;

    private static final Logger log = LoggerFactory.getLogger(ActivityTally.class);

    private final DelayQueueListener next;
    private final Writer writer;
    private final LongSupplier clock;
    private final Map<String, ConcurrentNavigableMap<Long, AtomicLongArray>> queues = new ConcurrentHashMap<>();
    /** The Redis clock less the local one, as the last flush measured it (ms). */
    private volatile long offset;
    private final AtomicLong dropped = new AtomicLong();

    public ActivityTally(DelayQueueListener next, Writer writer) {
        this(next, writer, System::currentTimeMillis);
    }

    ActivityTally(DelayQueueListener next, Writer writer, LongSupplier clock) {
        this.next = next;
        this.writer = writer;
        this.clock = clock;
    }

    private AtomicLongArray bucket(String queue) {
        long minute = Math.floorDiv(clock.getAsLong() + offset, 60_000L);
        return queues.computeIfAbsent(queue, q -> new ConcurrentSkipListMap<>())
                .computeIfAbsent(minute, m -> new AtomicLongArray(FIELDS));
    }

    /**
     * Adds every queue's counts to Redis, one call per queue with something to add, and forgets minutes that ended
     * more than a minute ago with nothing left to add. A queue whose write fails keeps its counts for the next flush.
     * Called on one thread at a time.
     */
    public synchronized void flush() {
        long before = clock.getAsLong();
        long current = Math.floorDiv(before + offset, 60_000L);
        for (Map.Entry<String, ConcurrentNavigableMap<Long, AtomicLongArray>> entry : queues.entrySet()) {
            ConcurrentNavigableMap<Long, AtomicLongArray> minutes = entry.getValue();
            ConcurrentNavigableMap<Long, AtomicLongArray> tooOld = minutes.headMap(current - MAX_MINUTES + 1);
            if (!tooOld.isEmpty()) {
                long n = dropped.addAndGet(tooOld.size());
                tooOld.clear();
                log.warn("Activity of queue '{}': minutes older than {} not written to Redis were dropped ({} so far)",
                        entry.getKey(), Duration.ofMinutes(MAX_MINUTES), n);
            }
            List<long[]> taken = new ArrayList<>();
            for (Map.Entry<Long, AtomicLongArray> minute : minutes.entrySet()) {
                long[] values = take(minute.getKey(), minute.getValue());
                if (values != null) {
                    taken.add(values);
                }
            }
            if (!taken.isEmpty()) {
                try {
                    long redisNow = writer.write(entry.getKey(), taken);
                    long after = clock.getAsLong();
                    offset = redisNow - (before + after) / 2;
                } catch (RuntimeException e) {
                    taken.forEach(values -> giveBack(minutes, values));
                    Threads.loopFailed(log, e, "Activity of queue '{}' not written to Redis, kept for the next try: {}",
                            entry.getKey());
                }
            }
            minutes.headMap(current - 1).entrySet().removeIf(minute -> isZero(minute.getValue()));
        }
    }

    /** The minute's number and counts, each taken (set to zero) atomically; null when all are zero. */
    private static long @Nullable [] take(long minute, AtomicLongArray counts) {
        long[] values = new long[FIELDS + 1];
        values[0] = minute;
        boolean any = false;
        for (int i = 0; i < FIELDS; i++) {
            values[i + 1] = counts.getAndSet(i, 0);
            any |= values[i + 1] != 0;
        }
        return any ? values : null;
    }

    private static void giveBack(ConcurrentNavigableMap<Long, AtomicLongArray> minutes, long[] values) {
        AtomicLongArray counts = minutes.computeIfAbsent(values[0], m -> new AtomicLongArray(FIELDS));
        for (int i = 0; i < FIELDS; i++) {
            if (i == LATE_MAX) {
                counts.accumulateAndGet(i, values[i + 1], Math::max);
            } else {
                counts.addAndGet(i, values[i + 1]);
            }
        }
    }

    private static boolean isZero(AtomicLongArray counts) {
        for (int i = 0; i < FIELDS; i++) {
            if (counts.get(i) != 0) {
                return false;
            }
        }
        return true;
    }

    /** The counts not yet written, per queue and minute (for tests). */
    Map<String, Map<Long, long[]>> pending() {
        Map<String, Map<Long, long[]>> out = new java.util.TreeMap<>();
        queues.forEach((queue, minutes) -> minutes.forEach((minute, counts) -> {
            if (!isZero(counts)) {
                long[] values = new long[FIELDS];
                for (int i = 0; i < FIELDS; i++) {
                    values[i] = counts.get(i);
                }
                out.computeIfAbsent(queue, q -> new java.util.TreeMap<>()).put(minute, values);
            }
        }));
        return out;
    }

    @Override
    public void handlerStarted(MessageContext context, Duration lateness) {
        try {
            AtomicLongArray counts = bucket(context.queue());
            long ms = lateness.toMillis();
            counts.incrementAndGet(STARTED);
            counts.addAndGet(LATE_SUM, ms);
            counts.accumulateAndGet(LATE_MAX, ms, Math::max);
        } catch (RuntimeException e) {
            // counting must not fail a delivery
        }
        next.handlerStarted(context, lateness);
    }

    @Override
    public void acknowledged(String queue, int messages) {
        count(queue, HANDLED, messages);
        next.acknowledged(queue, messages);
    }

    @Override
    public void retried(String queue, int messages) {
        count(queue, RETRIED, messages);
        next.retried(queue, messages);
    }

    @Override
    public void deadLettered(String queue, DeadLetterCause cause, int messages) {
        count(queue, DEAD, messages);
        next.deadLettered(queue, cause, messages);
    }

    private void count(String queue, int field, int messages) {
        try {
            bucket(queue).addAndGet(field, messages);
        } catch (RuntimeException e) {
            // counting must not fail a settle
        }
    }

    @Override
    public void sent(String queue, SendMode mode, boolean batch, int messages, Duration duration) {
        next.sent(queue, mode, batch, messages, duration);
    }

    @Override
    public void sendFailed(String queue, SendMode mode, boolean batch, int messages, Duration duration, Throwable error) {
        next.sendFailed(queue, mode, batch, messages, duration, error);
    }

    @Override
    public void claimed(String queue, int messages) {
        next.claimed(queue, messages);
    }

    @Override
    public void claimThrottled(String queue, FlowLimit limit) {
        next.claimThrottled(queue, limit);
    }

    @Override
    public void handlerFinished(MessageContext context, DeliveryOutcome outcome, Duration duration,
            @Nullable Throwable error) {
        next.handlerFinished(context, outcome, duration, error);
    }

    @Override
    public void expiredDropped(String queue, int messages) {
        next.expiredDropped(queue, messages);
    }

    @Override
    public void redelivered(String queue, int messages) {
        next.redelivered(queue, messages);
    }

    @Override
    public void staleSettles(String queue, int messages) {
        next.staleSettles(queue, messages);
    }

    @Override
    public void historyTrimmed(String queue, HistoryTrim reason, int records) {
        next.historyTrimmed(queue, reason, records);
    }

    @Override
    public String toString() {
        return next.toString();
    }
}
