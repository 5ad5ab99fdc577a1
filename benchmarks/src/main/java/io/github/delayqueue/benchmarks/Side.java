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

    /**
     * The steady stream of lateness-under-burst: {@code send} called {@code rate} times a second from one
     * named thread until {@link #stop}; {@link #sent} counts the calls made.
     */
    static final class SteadySender implements AutoCloseable {
        private final Thread thread;
        private volatile boolean stopping;
        private volatile int sent;
        private volatile long maxBehindNanos;
        private volatile @org.jspecify.annotations.Nullable Throwable error;

        SteadySender(int rate, OursSide.IntSender send) {
            thread = new Thread(() -> {
                long start = System.nanoTime();
                try {
                    for (int i = 0; !stopping; i++) {
                        long target = start + (long) (i * (1e9 / rate));
                        sleepUntil(target);
                        maxBehindNanos = Math.max(maxBehindNanos, System.nanoTime() - target);
                        send.send(i);
                        sent = i + 1;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (Exception | AssertionError e) {
                    error = e;
                }
            }, "bench-steady-sender");
            thread.setDaemon(true);
            thread.start();
        }

        /** Stops sending, waits for the thread; throws what a send threw. */
        void stop() throws InterruptedException {
            stopping = true;
            thread.join(30_000);
            if (error != null) {
                throw new IllegalStateException("steady send failed: " + error, error);
            }
        }

        int sent() {
            return sent;
        }

        long maxBehindMs() {
            return TimeUnit.NANOSECONDS.toMillis(maxBehindNanos);
        }

        @Override
        public void close() throws InterruptedException {
            stopping = true;
            thread.join(30_000);
        }
    }

    /**
     * The figure of lateness-under-burst: p99 lateness of the steady queue's messages due from the burst's
     * due instant until the burst is drained (at least one second: a drain faster than that still has a
     * second of steady messages measured). {@code samples} holds {dueMs, lateMs} pairs on the Redis clock.
     */
    static Measure underBurstMeasure(java.util.Collection<double[]> samples, double burstDueMs, double drainedMs,
            int burst, long behindMs) {
        double windowEnd = Math.max(drainedMs, burstDueMs + 1_000);
        double[] during = new double[samples.size()];
        double[] before = new double[samples.size()];
        int nd = 0;
        int nb = 0;
        long early = 0;
        for (double[] s : samples) {
            if (s[1] < 0) {
                early++;
            }
            if (s[0] >= burstDueMs && s[0] <= windowEnd) {
                during[nd++] = s[1];
            } else if (s[0] < burstDueMs) {
                before[nb++] = s[1];
            }
        }
        if (nd == 0) {
            return Measure.of(Double.NaN).with("error", "no steady message fell due during the burst's drain");
        }
        double[] d = sortedCopy(during, nd);
        double[] b = sortedCopy(before, nb);
        return Measure.of(percentile(d, nd, 99)).with("p50_ms", percentile(d, nd, 50)).with("max_ms", d[nd - 1])
                .with("steady_during_drain", nd).with("p99_before_burst_ms", percentile(b, nb, 99))
                .with("burst", burst).with("burst_drain_s", (drainedMs - burstDueMs) / 1000.0)
                .with("window_s", (windowEnd - burstDueMs) / 1000.0).with("early", early)
                .with("steady_messages", samples.size()).with("producer_max_behind_ms", behindMs);
    }

    /** The number in a payload made by {@code payload("m-" + i + "-")}. */
    static int indexOf(String payload) {
        return Integer.parseInt(payload, 2, payload.indexOf('-', 2), 10);
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
