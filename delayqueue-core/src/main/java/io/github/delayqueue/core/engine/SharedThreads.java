package io.github.delayqueue.core.engine;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.protocol.WatchRegistry;

/**
 * The engine threads that the consumers of one client share, whatever the number of queues: one lease
 * keeper ({@code delayqueue-lease-N}), one settler ({@code delayqueue-settler-N}) and, with shared idle polling, the
 * {@link Watch}'s turns ({@code delayqueue-watch-N}). Started when the first consumer starts and stopped when the last
 * one has stopped, so a client without running consumers holds no thread. Per queue there is only its poller and its
 * handlers.
 */
public final class SharedThreads {

    private final @Nullable Watch watch;
    private @Nullable ScheduledThreadPoolExecutor keeper; // guarded by this
    private @Nullable ScheduledThreadPoolExecutor settler; // guarded by this
    private @Nullable ScheduledThreadPoolExecutor watcher; // guarded by this
    private int users; // guarded by this

    /** Without shared idle polling: each consumer polls on its own. */
    public SharedThreads() {
        this.watch = null;
    }

    /** With shared idle polling on {@code registry} (null: without). */
    public SharedThreads(@Nullable WatchRegistry registry) {
        this.watch = registry == null ? null : new Watch(registry);
    }

    /** Registers a starting consumer. */
    synchronized void acquire() {
        if (users++ == 0) {
            keeper = executor("delayqueue-lease");
            settler = executor("delayqueue-settler");
            if (watch != null) {
                watcher = executor("delayqueue-watch");
                watch.start(watcher);
            }
        }
    }

    /** The client's watch, or null without shared idle polling. */
    @Nullable Watch watch() {
        return watch;
    }

    /** Unregisters a stopped consumer; the last one stops the threads (a running task may finish). */
    synchronized void release() {
        if (users == 0) {
            return;
        }
        if (--users == 0) {
            keeper.shutdown();
            settler.shutdown();
            keeper = null;
            settler = null;
            if (watch != null) {
                watch.stop(watcher); // ends its thread, then leaves the registry: the others take this one's turns
                watcher = null;
            }
        }
    }

    synchronized ScheduledExecutorService keeper() {
        return keeper;
    }

    synchronized ScheduledExecutorService settler() {
        return settler;
    }

    private static ScheduledThreadPoolExecutor executor(String name) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, Threads.named(name));
        executor.setRemoveOnCancelPolicy(true); // a stopped consumer's periodic task does not linger in the queue
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return executor;
    }
}
