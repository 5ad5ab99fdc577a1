package io.github.delayqueue.core.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * Handler threads of one consumer on platform threads: workers taking tasks from one queue, woken
 * sparingly. The pool has no bound of its own; the consumer's semaphore bounds the tasks outstanding.
 *
 * <p>A pool that hands every task to its own idle thread (a {@code SynchronousQueue} pool) pays a park
 * and an unpark per task: two system calls and a context switch, more than a short handler costs. A
 * {@code LinkedBlockingQueue} pool is no better under a burst, because every take that leaves tasks
 * behind wakes another waiting thread. Here a worker is woken only when tasks wait and no worker is
 * looking for one (awake between tasks, or woken and not yet running): when a worker takes a task and
 * leaves others queued with nobody looking, it wakes one more. Short handlers are then run by the few
 * workers already awake, with about one wake-up per wake-up latency rather than one per task; handlers
 * that block still get a thread each, because each worker that takes a task and blocks has woken the
 * next one first. A task never waits while a thread could run it: a task is queued only while some
 * worker is looking for one, and when none is idle a new worker is started.
 *
 * <p>Idle workers exit after the keep-alive. {@link #shutdownNow} interrupts running tasks and returns
 * the queued ones; a worker clears an interrupt left over from a cancelled task before its next task.
 */
public final class HandlerPool extends AbstractExecutorService {

    /** A worker parked while idle; {@code woken} is set (under the lock) by whoever pops it off the idle stack. */
    private static final class Idle {
        final Thread thread;
        boolean woken;

        Idle(Thread thread) {
            this.thread = thread;
        }
    }

    private final ThreadFactory factory;
    private final long keepAliveNanos;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition terminated = lock.newCondition();
    // all guarded by lock
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private final ArrayDeque<Idle> idle = new ArrayDeque<>(); // a stack: the most recently idle (cache-warm) first
    private final Set<Thread> threads = new HashSet<>();
    private int starting; // threads created but not yet in threads
    private int looking; // workers awake and not running a task, or woken and not yet awake
    private volatile boolean shutdown; // written under lock; read unlocked by workers between tasks

    HandlerPool(ThreadFactory factory, long keepAlive, TimeUnit unit) {
        this.factory = factory;
        this.keepAliveNanos = unit.toNanos(keepAlive);
    }

    @Override
    public void execute(Runnable task) {
        if (task == null) {
            throw new NullPointerException("task");
        }
        Thread started;
        lock.lock();
        try {
            if (shutdown) {
                throw new RejectedExecutionException("handler pool is shut down");
            }
            tasks.addLast(task);
            started = looking == 0 ? wakeOrCreate() : null;
            if (looking == 0) { // the factory gave no thread: nobody would ever take the task
                tasks.removeLast();
                throw new RejectedExecutionException("the thread factory gave no handler thread");
            }
        } finally {
            lock.unlock();
        }
        if (started != null && !start(started)) {
            boolean removed;
            lock.lock();
            try {
                removed = tasks.removeLastOccurrence(task); // else a worker took it meanwhile: it runs
            } finally {
                lock.unlock();
            }
            if (removed) {
                throw new RejectedExecutionException("could not start a handler thread");
            }
        }
    }

    /**
     * Gets one more worker looking for tasks: wakes the most recently idle one (and returns null), or
     * creates a thread for the caller to {@link #start} after unlocking. Under the lock. Null and nothing
     * counted if the factory gives no thread.
     */
    private @Nullable Thread wakeOrCreate() {
        Idle sleeper = idle.pollFirst();
        if (sleeper != null) {
            sleeper.woken = true;
            looking++;
            LockSupport.unpark(sleeper.thread);
            return null;
        }
        Thread t = factory.newThread(this::work);
        if (t == null) {
            return null;
        }
        starting++;
        looking++;
        return t;
    }

    /** Starts a thread from {@link #wakeOrCreate}; not under the lock. False (and uncounted) if it cannot run. */
    private boolean start(Thread t) {
        try {
            t.start();
            return true;
        } catch (RuntimeException | OutOfMemoryError e) {
            lock.lock();
            try {
                starting--;
                looking--;
            } finally {
                lock.unlock();
            }
            return false;
        }
    }

    private void work() {
        Thread me = Thread.currentThread();
        lock.lock();
        try {
            starting--;
            threads.add(me);
        } finally {
            lock.unlock();
        }
        try {
            boolean ranTask = false;
            while (true) {
                Runnable task = next(me, ranTask);
                if (task == null) {
                    return;
                }
                ranTask = true;
                // an interrupt aimed at the previous task (a handler timeout cancels it) must not hit this one
                if (Thread.interrupted() && shutdown) {
                    me.interrupt(); // but one from shutdownNow stays
                }
                try {
                    task.run();
                } catch (RuntimeException | Error e) {
                    me.getUncaughtExceptionHandler().uncaughtException(me, e);
                }
            }
        } finally {
            lock.lock();
            try {
                threads.remove(me);
                if (shutdown && threads.isEmpty() && starting == 0) {
                    terminated.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * The next task for this worker, parking while there is none; null when the worker should exit.
     * On entry the worker is looking for a task: counted by whoever started it, or here after a task.
     */
    private @Nullable Runnable next(Thread me, boolean ranTask) {
        Thread started = null;
        lock.lock();
        try {
            if (ranTask) {
                looking++;
            }
            long deadline = System.nanoTime() + keepAliveNanos;
            while (true) {
                Runnable task = tasks.pollFirst();
                if (task != null) {
                    looking--;
                    if (looking == 0 && !tasks.isEmpty()) {
                        started = wakeOrCreate(); // tasks wait and nobody looks: in case this one blocks
                    }
                    return task;
                }
                looking--;
                if (shutdown) {
                    return null;
                }
                Idle self = new Idle(me);
                idle.addFirst(self);
                while (!self.woken) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0 || shutdown) {
                        idle.remove(self);
                        return null;
                    }
                    lock.unlock();
                    try {
                        LockSupport.parkNanos(this, left);
                        Thread.interrupted(); // a late interrupt for a finished task; shutdown is checked above
                    } finally {
                        lock.lock();
                    }
                }
                deadline = System.nanoTime() + keepAliveNanos; // woken, and counted as looking by the waker
            }
        } finally {
            lock.unlock();
            if (started != null) {
                start(started);
            }
        }
    }

    @Override
    public void shutdown() {
        lock.lock();
        try {
            shutdown = true;
            for (Idle sleeper : idle) {
                LockSupport.unpark(sleeper.thread);
            }
            if (threads.isEmpty() && starting == 0) {
                terminated.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public List<Runnable> shutdownNow() {
        lock.lock();
        try {
            shutdown();
            List<Runnable> left = new ArrayList<>(tasks);
            tasks.clear();
            for (Thread t : threads) {
                t.interrupt();
            }
            return left;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean isShutdown() {
        lock.lock();
        try {
            return shutdown;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean isTerminated() {
        lock.lock();
        try {
            return shutdown && threads.isEmpty() && starting == 0;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            while (!(shutdown && threads.isEmpty() && starting == 0)) {
                if (nanos <= 0) {
                    return false;
                }
                nanos = terminated.awaitNanos(nanos);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Live worker threads, counting those being started (for tests). */
    int threadCount() {
        lock.lock();
        try {
            return threads.size() + starting;
        } finally {
            lock.unlock();
        }
    }

    /** Workers parked waiting for a task (for tests). */
    int idleCount() {
        lock.lock();
        try {
            return idle.size();
        } finally {
            lock.unlock();
        }
    }
}
