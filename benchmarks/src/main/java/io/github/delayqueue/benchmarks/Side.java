package io.github.delayqueue.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.redisson.api.RedissonClient;

/**
 * One contender (our engine or Redisson's RDelayedQueue) and the helpers both share. Every scenario
 * uses fresh key names and deletes its keys when it ends, so runs can share a Redis with other users.
 */
abstract class Side {

    /** Characters of every payload (ASCII, so also its bytes; our stored JSON adds two quotes). */
    static final int PAYLOAD_CHARS = 100;

    /** A delay long enough that nothing becomes due while a scenario runs. */
    static final long FAR_MS = 3_600_000;

    /** One measured value and its details (printed as a DETAIL line). */
    record Measure(double value, Map<String, String> detail) {
        static Measure of(double value) {
            return new Measure(value, new LinkedHashMap<>());
        }

        Measure with(String key, Object v) {
            detail.put(key, v instanceof Double || v instanceof Float ? Benchmarks.format(((Number) v).doubleValue())
                    : String.valueOf(v));
            return this;
        }
    }

    final Bench bench;
    final RedissonClient producer;
    final RedissonClient consumer;

    Side(Bench bench) {
        this.bench = bench;
        this.producer = bench.producer;
        this.consumer = bench.consumer;
    }

    abstract String name();

    abstract Measure burstDrain(int count, long timeoutSeconds) throws Exception;

    abstract Measure replaceById(int pending, int threads, int seconds) throws Exception;

    abstract Measure lateness(int rate, int seconds, int delayMs) throws Exception;

    abstract Measure enqueueRate(int count, int threads) throws Exception;

    abstract Measure endToEnd(int seconds, int producers, int batch, int backlog) throws Exception;

    abstract Measure bytesPerMessage(int count) throws Exception;

    abstract void warmUp() throws Exception;

    // ---- helpers -------------------------------------------------------------------------------

    /** A fresh, unique name part for one scenario's keys. */
    static String unique(String what) {
        return "bench-" + UUID.randomUUID().toString().substring(0, 8) + "-" + what;
    }

    /** {@code tag} padded with 'x' to {@value #PAYLOAD_CHARS} characters. */
    static String payload(String tag) {
        StringBuilder sb = new StringBuilder(PAYLOAD_CHARS).append(tag);
        while (sb.length() < PAYLOAD_CHARS) {
            sb.append('x');
        }
        return sb.toString();
    }

    interface Body {
        void run(int thread) throws Exception;
    }

    /** Runs {@code body} on {@code threads} threads at once and waits for all; rethrows the first failure. */
    static void parallel(int threads, Body body) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "bench-worker");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    body.run(thread);
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    futures.forEach(other -> other.cancel(true));
                    throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
                }
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** Hands out chunks [from, to) of {@code total} items to competing threads. */
    static final class Chunks {
        private final AtomicInteger next = new AtomicInteger();
        private final int total;
        private final int size;

        Chunks(int total, int size) {
            this.total = total;
            this.size = size;
        }

        /** The start of the next chunk, or -1 when none is left. */
        int take() {
            int from = next.getAndAdd(size);
            return from >= total ? -1 : from;
        }

        int end(int from) {
            return Math.min(total, from + size);
        }
    }

    /** Sleeps until {@link System#nanoTime()} reaches {@code deadline}. */
    static void sleepUntil(long deadlineNanos) throws InterruptedException {
        while (true) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return;
            }
            if (left > 2_000_000) {
                Thread.sleep(Math.max(1, (left - 1_000_000) / 1_000_000));
            } else {
                LockSupport.parkNanos(left);
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    /** The p-th percentile (0..100, nearest rank) of the first {@code n} values (sorted in place). */
    static double percentile(double[] sorted, int n, double p) {
        if (n == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * n);
        return sorted[Math.max(0, Math.min(n - 1, rank - 1))];
    }

    static double[] sortedCopy(double[] values, int n) {
        double[] copy = Arrays.copyOf(values, n);
        Arrays.sort(copy);
        return copy;
    }

    /** The lead before a burst's due instant: long enough to write {@code count} messages at {@code ratePerSec}. */
    static long burstLeadMs(int count, double ratePerSec) {
        return 1_500 + (long) (1_500.0 * count / Math.max(1_000, ratePerSec));
    }

    /** Converts handler-start stamps to Redis-clock lateness (ms) against {@code dueRedisMs}, in place order. */
    double[] lateness(long[] stamps, int n, double dueRedisMs) {
        double[] late = new double[n];
        for (int i = 0; i < n; i++) {
            late[i] = bench.clock.redisMs(stamps[i]) - dueRedisMs;
        }
        Arrays.sort(late);
        return late;
    }
}
