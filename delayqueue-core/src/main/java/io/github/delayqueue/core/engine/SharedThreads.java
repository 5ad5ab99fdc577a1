package io.github.delayqueue.core.engine;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import org.jspecify.annotations.Nullable;

/**
 * The engine threads that the consumers of one client share, whatever the number of queues: one lease
 * keeper ({@code delayqueue-lease-N}) and one settler ({@code delayqueue-settler-N}). Started when the
 * first consumer starts and stopped when the last one has stopped, so a client without running
 * consumers holds no thread. Per queue there is only its poller and its handlers.
 */
public final class SharedThreads {

    private @Nullable ScheduledThreadPoolExecutor keeper; // guarded by this
    private @Nullable ScheduledThreadPoolExecutor settler; // guarded by this
    private int users; // guarded by this

    /** Registers a starting consumer. */
    synchronized void acquire() {
        if (users++ == 0) {
            keeper = executor("delayqueue-lease");
            settler = executor("delayqueue-settler");
        }
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
