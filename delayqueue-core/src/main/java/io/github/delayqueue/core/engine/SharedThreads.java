package io.github.delayqueue.core.engine;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.github.delayqueue.core.protocol.WatchRegistry;

/**
 * The engine threads that the consumers of one client share, whatever the number of queues: one lease
 * keeper ({@code delayqueue-lease-N}), one settler ({@code delayqueue-settler-N}) and, with shared idle polling, the
 * {@link Watch}'s turns ({@code delayqueue-watch-N}) and, with activity counts, their flush once a minute
 * ({@code delayqueue-activity-N}, see {@link ActivityTally}). Started when the first consumer starts and stopped when the
 * last one has stopped, so a client without running consumers holds no thread. Per queue there is only its poller and
 * its handlers.
 */
public final class SharedThreads {

    /** How often the activity counts are flushed to Redis. */
    static final long ACTIVITY_PERIOD_SECONDS = 60;

    /** How long the last consumer's stop waits for the final flush of the activity counts. */
    static final long ACTIVITY_LAST_FLUSH_MILLIS = 2_000;

    private static final Logger log = LoggerFactory.getLogger(SharedThreads.class);

    private final @Nullable Watch watch;
    private final @Nullable ActivityTally activity;
    private final SetForwarding sets;
    private @Nullable ScheduledThreadPoolExecutor flusher; // guarded by this
    private @Nullable ScheduledThreadPoolExecutor keeper; // guarded by this
    private @Nullable ScheduledThreadPoolExecutor settler; // guarded by this
    private @Nullable ScheduledThreadPoolExecutor watcher; // guarded by this
    private @Nullable ScheduledThreadPoolExecutor forwarder; // guarded by this
    private int users; // guarded by this

    /** Without shared idle polling: each consumer polls on its own. */
    public SharedThreads() {
        this(null, null);
    }

    /** With shared idle polling on {@code registry} (null: without). */
    public SharedThreads(@Nullable WatchRegistry registry) {
        this(registry, null);
    }

    /** With shared idle polling on {@code registry} and activity counts flushed from {@code activity} (null: without). */
    public SharedThreads(@Nullable WatchRegistry registry, @Nullable ActivityTally activity) {
        this(registry, activity, SetForwarding.NONE);
    }

    /** As above, the members of job sets that consumers settle forwarded to {@code sets}. */
    public SharedThreads(@Nullable WatchRegistry registry, @Nullable ActivityTally activity, SetForwarding sets) {
        this.watch = registry == null ? null : new Watch(registry);
        this.activity = activity;
        this.sets = sets;
    }

    /** Where settled members of job sets go. */
    SetForwarding sets() {
        return sets;
    }

    /** Registers a starting consumer. */
    synchronized void acquire() {
        if (users++ == 0) {
            keeper = executor("delayqueue-lease");
            settler = executor("delayqueue-settler");
            forwarder = executor("delayqueue-sets");
            if (watch != null) {
                watcher = executor("delayqueue-watch");
                watch.start(watcher);
            }
            if (activity != null) {
                flusher = executor("delayqueue-activity");
                flusher.scheduleAtFixedRate(this::flushActivity, ACTIVITY_PERIOD_SECONDS, ACTIVITY_PERIOD_SECONDS,
                        TimeUnit.SECONDS);
            }
        }
    }

    /**
     * One flush of the activity counts; survives anything (a periodic task that throws is never run again). The flush
     * is not interrupted by a stop: a Redis call in progress ends by its own timeout.
     */
    private void flushActivity() {
        try {
            activity.flush();
        } catch (Throwable e) {
            Threads.loopFailed(log, e, "Activity flush failed, its counts are kept for the next one: {}");
        }
    }

    /** The client's watch, or null without shared idle polling. */
    @Nullable Watch watch() {
        return watch;
    }

    /** Unregisters a stopped consumer; the last one stops the threads (a running task may finish). */
    void release() {
        ScheduledThreadPoolExecutor lastFlush = stopThreads();
        if (lastFlush != null) {
            try { // the last flush, outside the lock: a consumer starting meanwhile is not held up by Redis
                lastFlush.awaitTermination(ACTIVITY_LAST_FLUSH_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the flush goes on on its thread; the stop does not wait for it
            }
        }
    }

    /** Unregisters a consumer; the last one stops the threads and returns the flusher running its final flush, if any. */
    private synchronized @Nullable ScheduledThreadPoolExecutor stopThreads() {
        if (users == 0) {
            return null;
        }
        ScheduledThreadPoolExecutor lastFlush = null;
        if (--users == 0) {
            if (flusher != null) {
                flusher.execute(this::flushActivity); // due now: runs although the shutdown below cancels the periodic one
                flusher.shutdown();
                lastFlush = flusher;
                flusher = null;
            }
            keeper.shutdown();
            settler.shutdown();
            forwarder.shutdown(); // forwards queued run; one that fails leaves its marks for a periodic pass
            keeper = null;
            settler = null;
            forwarder = null;
            if (watch != null) {
                watch.stop(watcher); // ends its thread, then leaves the registry: the others take this one's turns
                watcher = null;
            }
        }
        return lastFlush;
    }

    synchronized ScheduledExecutorService keeper() {
        return keeper;
    }

    synchronized ScheduledExecutorService settler() {
        return settler;
    }

    /**
     * Where job-set marks are forwarded ({@link SetForwarding}): a thread of their own, so that a set's round trips
     * (its script, its callbacks' sends) never hold up the settles of any queue.
     */
    synchronized ScheduledExecutorService forwarder() {
        return forwarder;
    }

    private static ScheduledThreadPoolExecutor executor(String name) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, Threads.named(name));
        executor.setRemoveOnCancelPolicy(true); // a stopped consumer's periodic task does not linger in the queue
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return executor;
    }
}
