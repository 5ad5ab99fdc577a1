package io.github.delayqueue.core.engine;

import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/** Named threads; virtual threads for handlers when asked for and the JVM has them (Java 21+), found reflectively. */
public final class Threads {

    private static final boolean VIRTUAL = virtualFactory("probe-") != null;

    private Threads() {
    }

    /** A platform thread factory; threads are daemons so a forgotten consumer cannot pin the JVM. */
    public static ThreadFactory named(String name) {
        AtomicLong counter = new AtomicLong();
        return runnable -> {
            Thread t = new Thread(runnable, name + "-" + counter.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * The handler executor of one consumer; the caller's semaphore keeps at most {@code concurrency}
     * tasks outstanding. With {@code virtual} on Java 21+ a virtual thread per task; otherwise a {@link HandlerPool}
     * of platform threads, which runs a burst of short handlers without a thread hand-off per message.
     * The pool has no bound of its own: a handler that ignores the interrupt after its timeout keeps
     * its thread while its slot goes to the next message, which then gets a new thread instead of
     * waiting behind the hung one. Idle platform threads end after 60 s.
     */
    public static ExecutorService handlerExecutor(String name, boolean virtual) {
        ThreadFactory factory = virtual && VIRTUAL ? virtualFactory(name + "-") : null;
        if (factory != null) {
            return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 1, TimeUnit.SECONDS, new SynchronousQueue<>(), factory);
        }
        return new HandlerPool(named(name), 60, TimeUnit.SECONDS);
    }

    /**
     * Logs a failure of an engine loop, which then backs off and goes on: a RuntimeException (mostly Redis
     * unreachable) at WARN in one line, anything else (an Error) at ERROR with its stack trace. The message's
     * last placeholder receives the failure's text. Never throws: a logger that fails must not end the loop.
     */
    public static void loopFailed(Logger log, Throwable e, String message, Object... args) {
        try {
            Object[] all = Arrays.copyOf(args, args.length + 1);
            all[args.length] = e.toString();
            if (e instanceof RuntimeException) {
                log.warn(message, all);
            } else {
                Object[] withTrace = Arrays.copyOf(all, all.length + 1);
                withTrace[all.length] = e;
                log.error(message, withTrace);
            }
        } catch (Throwable ignored) {
            // nothing left to tell it with
        }
    }

    static boolean virtualThreadsAvailable() {
        return VIRTUAL;
    }

    /** {@code Thread.ofVirtual().name(prefix, 1).factory()}, or null before Java 21. */
    private static @Nullable ThreadFactory virtualFactory(String prefix) {
        try {
            Class<?> builderClass = Class.forName("java.lang.Thread$Builder");
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            builder = builderClass.getMethod("name", String.class, long.class).invoke(builder, prefix, 1L);
            return (ThreadFactory) builderClass.getMethod("factory").invoke(builder);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
