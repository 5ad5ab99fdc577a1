package io.github.delayqueue.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Redisson's {@code RDelayedQueue} used the way its documentation shows: the producer offers to a
 * delayed queue wrapping a blocking queue; the consumer application also creates the delayed queue
 * (which runs Redisson's transfer task there) and takes from the blocking queue with
 * {@code poll(timeout)} on {@code --redisson-consumers} threads. Values are plain strings
 * ({@link StringCodec}); the due time Redisson uses is this JVM's wall clock plus the delay.
 */
@SuppressWarnings("deprecation") // RDelayedQueue is deprecated since Redisson 3.46; it is what we compare against
final class RedissonSide extends Side {

    /** Offers in flight at once when writing asynchronously. */
    private static final int WINDOW = 1_000;

    /**
     * How long a {@code poll(1 s)} lasts when Redisson completes it with null because Redis has not answered: the poll
     * timeout plus 3 s ({@code RedisExecutor.handleBlockingOperations}), less a margin for the timer's tick.
     */
    private static final long LATE_NULL_NANOS = TimeUnit.MILLISECONDS.toNanos(4_000 - 50);

    RedissonSide(Bench bench) {
        super(bench);
    }

    @Override
    String name() {
        return "redisson";
    }

    /** One queue name; a producer-side and a consumer-side delayed queue; {@link #close} destroys them and deletes keys. */
    private final class Run implements AutoCloseable {
        final String name;
        final RBlockingQueue<String> target;
        final RDelayedQueue<String> delayed;
        final RBlockingQueue<String> consumerTarget;
        final List<RDelayedQueue<String>> consumerDelayed = new ArrayList<>();
        final List<Thread> consumers = new ArrayList<>();
        volatile boolean stopping;
        final AtomicReference<Throwable> consumerError = new AtomicReference<>();
        /** Polls that returned null only when Redisson gave up waiting for the reply: each may have lost a message. */
        final LongAdder lateNulls = new LongAdder();

        Run(String what) {
            name = unique(what);
            target = producer.getBlockingQueue(name, StringCodec.INSTANCE);
            delayed = producer.getDelayedQueue(target);
            consumerTarget = consumer.getBlockingQueue(name, StringCodec.INSTANCE);
        }

        interface Handler {
            void handle(String value);
        }

        /** Starts the consumer application: its delayed queue (transfer task) and the poll threads. */
        void startConsumers(Handler handler) {
            startConsumers(handler, consumer);
        }

        /** The same on another client: another application instance consuming the queue (consumers-4). */
        void startConsumers(Handler handler, RedissonClient client) {
            RBlockingQueue<String> queue = client == consumer ? consumerTarget : client.getBlockingQueue(name, StringCodec.INSTANCE);
            consumerDelayed.add(client.getDelayedQueue(queue));
            int threads = bench.settings.integer("redisson-consumers");
            for (int i = 0; i < threads; i++) {
                Thread t = new Thread(() -> {
                    while (!stopping) {
                        long p0 = System.nanoTime();
                        try {
                            String value = queue.poll(1, TimeUnit.SECONDS);
                            if (value != null) {
                                handler.handle(value);
                            } else if (System.nanoTime() - p0 >= LATE_NULL_NANOS) {
                                lateNulls.increment();
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        } catch (RuntimeException e) {
                            if (!stopping) {
                                consumerError.compareAndSet(null, e);
                            }
                        }
                    }
                }, "redisson-consumer-" + i);
                t.setDaemon(true);
                consumers.add(t);
                t.start();
            }
        }

        /**
         * Offers {@code count} values asynchronously (up to {@value #WINDOW} in flight) from one thread,
         * each due at {@code dueLocalMs} (wall clock) or, when that is 0, after {@code delayMs}. Returns
         * whether a due instant had already passed when its offer was made.
         */
        boolean fill(RDelayedQueue<String> queue, int count, long dueLocalMs, long delayMs) throws InterruptedException {
            Semaphore window = new Semaphore(WINDOW);
            AtomicReference<Throwable> error = new AtomicReference<>();
            boolean overran = false;
            for (int i = 0; i < count; i++) {
                window.acquire();
                long delay = delayMs;
                if (dueLocalMs > 0) {
                    delay = dueLocalMs - System.currentTimeMillis();
                    if (delay < 0) {
                        overran = true;
                        delay = 0;
                    }
                }
                queue.offerAsync(payload("m-" + i + "-"), delay, TimeUnit.MILLISECONDS).whenComplete((v, e) -> {
                    if (e != null) {
                        error.compareAndSet(null, e);
                    }
                    window.release();
                });
            }
            window.acquire(WINDOW);
            if (error.get() != null) {
                throw new IllegalStateException("offer failed: " + error.get(), error.get());
            }
            return overran;
        }

        /**
         * Waits until {@code done} reaches 0 within {@code waitMs}; gives up early when nothing was handled for
         * 30 s while both Redisson structures are empty: a message lost on the way (BLPOP removed it, its reply
         * never arrived) would otherwise hold the run for the whole timeout.
         */
        boolean awaitDrained(CountDownLatch done, long waitMs) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
            long last = done.getCount();
            long lastChange = System.nanoTime();
            while (System.nanoTime() < deadline) {
                if (done.await(1, TimeUnit.SECONDS)) {
                    return true;
                }
                if (done.getCount() != last) {
                    last = done.getCount();
                    lastChange = System.nanoTime();
                } else if (System.nanoTime() - lastChange > TimeUnit.SECONDS.toNanos(30) && delayed.size() == 0
                        && target.size() == 0) {
                    return false;
                }
            }
            return done.getCount() == 0;
        }

        /**
         * The start of an error text when messages were lost rather than slow (see {@link #awaitDrained}), with the
         * polls Redisson completed with null after waiting {@link #LATE_NULL_NANOS} for Redis's reply: a BLPOP that
         * Redis answered later than that popped its element for nobody (docs/guides/migrating-from-rdelayedqueue.md).
         */
        String lost(CountDownLatch done) {
            return delayed.size() == 0 && target.size() == 0 ? done.getCount() + " messages lost (Redisson's queues are empty; "
                    + lateNulls.sum() + " polls returned null after Redisson's 4 s reply timer); " : "";
        }

        void check() {
            if (consumerError.get() != null) {
                throw new IllegalStateException("Redisson consumer failed: " + consumerError.get(), consumerError.get());
            }
        }

        @Override
        public void close() throws InterruptedException {
            stopping = true;
            for (Thread t : consumers) {
                t.join(5_000);
            }
            delayed.destroy();
            consumerDelayed.forEach(RDelayedQueue::destroy);
            producer.getKeys().unlink(name, "redisson_delay_queue_timeout:{" + name + "}",
                    "redisson_delay_queue:{" + name + "}");
        }
    }

    @Override
    Measure burstDrain(int count, long timeoutSeconds) throws Exception {
        // calibrate the write rate so the due instant leaves just enough time to write
        double rate;
        try (Run calibration = new Run("calibration")) {
            int probe = Math.min(count, 10_000);
            long c0 = System.nanoTime();
            calibration.fill(calibration.delayed, probe, 0, FAR_MS);
            rate = probe / ((System.nanoTime() - c0) / 1e9);
        }
        try (Run run = new Run("burst")) {
            long dueLocalMs = System.currentTimeMillis() + burstLeadMs(count, rate);
            long w0 = System.nanoTime();
            boolean overran = run.fill(run.delayed, count, dueLocalMs, 0);
            double writeSeconds = (System.nanoTime() - w0) / 1e9;

            long[] stamps = new long[count];
            AtomicInteger index = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(count);
            Bench.CpuMeter cpu = bench.cpu();
            run.startConsumers(value -> {
                int i = index.getAndIncrement();
                if (i < count) {
                    stamps[i] = System.nanoTime();
                }
                done.countDown();
            });
            long waitMs = Math.max(0, dueLocalMs - System.currentTimeMillis()) + timeoutSeconds * 1000;
            if (!run.awaitDrained(done, waitMs)) {
                run.check();
                return Measure.of(Double.NaN).with("error", run.lost(done) + "gave up after " + timeoutSeconds + " s with "
                        + (count - done.getCount()) + " of " + count + " handled");
            }
            run.check();
            double[] late = lateness(stamps, count, bench.clock.fromLocalMs(dueLocalMs));
            Measure m = cpu.addTo(Measure.of(late[count - 1] / 1000.0), "")
                    .with("messages", count)
                    .with("first_ms", late[0])
                    .with("median_late_ms", percentile(late, count, 50))
                    .with("drain_rate_msg_s", count / (late[count - 1] / 1000.0))
                    .with("write_s", writeSeconds)
                    .with("consumers", bench.settings.integer("redisson-consumers") + " threads poll(1s)");
            if (overran) {
                m.with("warning", "writing ended after the due instant; drain time is understated");
            }
            return m;
        }
    }

    /** The write rate of {@link Run#fill} (msg/s), measured on a scratch queue. */
    private double calibrate(int count) throws Exception {
        try (Run calibration = new Run("calibration")) {
            int probe = Math.min(count, 10_000);
            long c0 = System.nanoTime();
            calibration.fill(calibration.delayed, probe, 0, FAR_MS);
            return probe / ((System.nanoTime() - c0) / 1e9);
        }
    }

    /** lateness-under-burst as {@link OursSide#latenessUnderBurst}: two delayed queues, each with its poll threads, one application. */
    Measure latenessUnderBurst(int rate, int delayMs, int burst, long timeoutSeconds) throws Exception {
        double writeRate = calibrate(burst);
        try (Run a = new Run("underburst-a"); Run b = new Run("underburst-b")) {
            java.util.concurrent.ConcurrentLinkedQueue<double[]> samples = new java.util.concurrent.ConcurrentLinkedQueue<>();
            RedisClock clock = bench.clock;
            a.startConsumers(value -> {
                long nowStamp = System.nanoTime();
                double due = clock.fromLocalMs(Long.parseLong(value.substring(1, value.indexOf(':'))));
                samples.add(new double[] {due, clock.redisMs(nowStamp) - due});
            });
            AtomicLong lastB = new AtomicLong();
            CountDownLatch drained = new CountDownLatch(burst);
            b.startConsumers(value -> {
                lastB.accumulateAndGet(System.nanoTime(), Math::max);
                drained.countDown();
            });
            Thread.sleep(200);
            try (SteadySender steady = new SteadySender(rate, i -> {
                long due = System.currentTimeMillis() + delayMs;
                a.delayed.offer(payload("L" + due + ":" + i + ":"), due - System.currentTimeMillis(), TimeUnit.MILLISECONDS);
            })) {
                long dueLocalMs = System.currentTimeMillis() + Math.max(burstLeadMs(burst, writeRate), delayMs + 1_000L);
                boolean overran = b.fill(b.delayed, burst, dueLocalMs, 0);
                long waitMs = Math.max(0, dueLocalMs - System.currentTimeMillis()) + timeoutSeconds * 1000;
                if (!b.awaitDrained(drained, waitMs)) {
                    b.check();
                    return Measure.of(Double.NaN).with("error", b.lost(drained) + "burst gave up after " + timeoutSeconds + " s with "
                            + (burst - drained.getCount()) + " of " + burst + " handled");
                }
                double dueMs = clock.fromLocalMs(dueLocalMs);
                double drainedMs = clock.redisMs(lastB.get());
                double windowEnd = Math.max(drainedMs, dueMs + 1_000);
                while (clock.nowMs() + delayMs <= windowEnd + 50) {
                    Thread.sleep(10);
                }
                steady.stop();
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs + 30_000L);
                while (samples.size() < steady.sent() && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                a.check();
                b.check();
                if (samples.size() < steady.sent()) {
                    return Measure.of(Double.NaN).with("error", "only " + samples.size() + " of " + steady.sent()
                            + " steady messages handled");
                }
                Measure m = underBurstMeasure(samples, dueMs, drainedMs, burst, steady.maxBehindMs());
                if (overran) {
                    m.with("warning", "writing the burst ended after its due instant");
                }
                return m;
            }
        }
    }

    /** consumers-4 as {@link OursSide#consumers4}: each instance its own client, delayed queue (transfer task) and poll threads. */
    Measure consumers4(int count, long timeoutSeconds) throws Exception {
        // the same four clients (four application instances) for both drains, the first alone in the first
        List<RedissonClient> clients = new ArrayList<>();
        Measure one;
        Measure four;
        try {
            for (int i = 0; i < 4; i++) {
                clients.add(bench.client());
            }
            one = drainByInstances(clients.subList(0, 1), count, timeoutSeconds);
            four = drainByInstances(clients, count, timeoutSeconds);
        } finally {
            clients.forEach(RedissonClient::shutdown);
        }
        return Measure.of(four.value()).with("one_instance_s", one.value()).with("speedup", one.value() / four.value())
                .with("handled_twice", Long.parseLong(one.detail().getOrDefault("handled_twice", "0"))
                        + Long.parseLong(four.detail().getOrDefault("handled_twice", "0")))
                .with("messages", count).with("four", four.detail().toString().replace(", ", ";"))
                .with("one", one.detail().toString().replace(", ", ";"));
    }

    private Measure drainByInstances(List<RedissonClient> clients, int count, long timeoutSeconds) throws Exception {
        int instances = clients.size();
        double writeRate = calibrate(count);
        try (Run run = new Run("instances" + instances)) {
            long dueLocalMs = System.currentTimeMillis() + burstLeadMs(count, writeRate);
            boolean overran = run.fill(run.delayed, count, dueLocalMs, 0);
            java.util.concurrent.atomic.AtomicIntegerArray seen = new java.util.concurrent.atomic.AtomicIntegerArray(count);
            LongAdder twice = new LongAdder();
            AtomicLong last = new AtomicLong();
            CountDownLatch done = new CountDownLatch(count);
            Run.Handler handler = value -> {
                if (seen.getAndIncrement(indexOf(value)) > 0) {
                    twice.increment();
                } else {
                    last.accumulateAndGet(System.nanoTime(), Math::max);
                    done.countDown();
                }
            };
            for (RedissonClient client : clients) {
                run.startConsumers(handler, client);
            }
            long waitMs = Math.max(0, dueLocalMs - System.currentTimeMillis()) + timeoutSeconds * 1000;
            if (!run.awaitDrained(done, waitMs)) {
                run.check();
                return Measure.of(Double.NaN).with("error", run.lost(done) + instances + " instances gave up after " + timeoutSeconds
                        + " s with " + (count - done.getCount()) + " of " + count + " handled");
            }
            run.check();
            double drain = (bench.clock.redisMs(last.get()) - bench.clock.fromLocalMs(dueLocalMs)) / 1000.0;
            Thread.sleep(1_000); // a late duplicate would show by now
            Measure m = Measure.of(drain).with("instances", instances).with("handled_twice", twice.sum());
            if (overran) {
                m.with("warning", "writing ended after the due instant");
            }
            return m;
        }
    }

    @Override
    Measure replaceById(int pending, int threads, int seconds) throws Exception {
        try (Run run = new Run("replace")) {
            run.fill(run.delayed, pending, 0, FAR_MS);
            LongAdder ops = new LongAdder();
            LongAdder misses = new LongAdder();
            long start = System.nanoTime();
            long measureFrom = start + TimeUnit.SECONDS.toNanos(1);
            long measureTo = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
            parallel(threads, t -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                int slots = Math.max(1, (pending - t + threads - 1) / threads); // values k with k % threads == t
                while (true) {
                    long now = System.nanoTime();
                    if (now >= measureTo) {
                        return;
                    }
                    int k = t + threads * random.nextInt(slots);
                    String value = payload("m-" + k + "-");
                    boolean removed = run.delayed.remove(value);
                    run.delayed.offer(value, FAR_MS, TimeUnit.MILLISECONDS);
                    if (now >= measureFrom) {
                        ops.increment();
                        if (!removed) {
                            misses.increment();
                        }
                    }
                }
            });
            return Measure.of(ops.sum() / (double) seconds).with("pending", pending).with("threads", threads)
                    .with("replaced", ops.sum()).with("remove_missed", misses.sum())
                    .with("pending_after", run.delayed.size());
        }
    }

    @Override
    Measure lateness(int rate, int seconds, int delayMs) throws Exception {
        try (Run run = new Run("lateness")) {
            int count = rate * seconds;
            double[] late = new double[count];
            AtomicInteger index = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(count);
            RedisClock clock = bench.clock;
            run.startConsumers(value -> {
                long nowStamp = System.nanoTime();
                long dueLocal = Long.parseLong(value.substring(1, value.indexOf(':')));
                int i = index.getAndIncrement();
                if (i < count) {
                    late[i] = clock.redisMs(nowStamp) - clock.fromLocalMs(dueLocal);
                }
                done.countDown();
            });
            Thread.sleep(200);
            long behind = OursSide.paced(rate, count, i -> {
                long due = System.currentTimeMillis() + delayMs;
                // Redisson computes its due time as currentTimeMillis() + delay; this makes it exactly `due`
                run.delayed.offer(payload("L" + due + ":" + i + ":"), due - System.currentTimeMillis(), TimeUnit.MILLISECONDS);
            });
            if (!done.await(delayMs + 30_000L, TimeUnit.MILLISECONDS)) {
                run.check();
                return Measure.of(Double.NaN).with("error", "timed out with " + (count - done.getCount()) + " of "
                        + count + " handled");
            }
            run.check();
            return OursSide.latenessMeasure(late, count, behind);
        }
    }

    @Override
    Measure enqueueRate(int count, int threads) throws Exception {
        try (Run run = new Run("enqueue")) {
            AtomicInteger next = new AtomicInteger();
            Bench.CpuMeter cpu = bench.cpu();
            long t0 = System.nanoTime();
            parallel(threads, t -> {
                for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                    run.delayed.offer(payload("m-" + i + "-"), FAR_MS, TimeUnit.MILLISECONDS);
                }
            });
            double secs = (System.nanoTime() - t0) / 1e9;
            return cpu.addTo(Measure.of(count / secs), "window_").with("messages", count).with("threads", threads).with("seconds", secs);
        }
    }

    @Override
    Measure endToEnd(int seconds, int producers, int batch, int backlog) throws Exception {
        try (Run run = new Run("e2e")) {
            LongAdder handled = new LongAdder();
            run.startConsumers(value -> handled.increment());
            Thread.sleep(200);
            AtomicLong sent = new AtomicLong();
            Bench.CpuMeter cpu = bench.cpu();
            long t0 = System.nanoTime();
            long stopAt = t0 + TimeUnit.SECONDS.toNanos(seconds);
            parallel(producers, t -> {
                int n = 0;
                List<CompletableFuture<Void>> futures = new ArrayList<>(batch);
                while (System.nanoTime() < stopAt) {
                    if (sent.get() - handled.sum() > backlog) {
                        Thread.sleep(1);
                        continue;
                    }
                    futures.clear();
                    for (int i = 0; i < batch; i++) {
                        futures.add(run.delayed.offerAsync(payload("m-" + t + "-" + n++ + "-"), 0, TimeUnit.MILLISECONDS)
                                .toCompletableFuture());
                    }
                    CompletableFuture.allOf(futures.toArray(new CompletableFuture[0])).join();
                    sent.addAndGet(batch);
                }
            });
            double sendSecs = (System.nanoTime() - t0) / 1e9;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (handled.sum() < sent.get() && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            run.check();
            double secs = (System.nanoTime() - t0) / 1e9;
            if (handled.sum() < sent.get()) {
                return Measure.of(Double.NaN).with("error", "only " + handled.sum() + " of " + sent.get()
                        + " handled 120 s after sending stopped");
            }
            return cpu.addTo(Measure.of(sent.get() / secs), "window_").with("sent", sent.get()).with("handled", handled.sum())
                    .with("send_s", sendSecs).with("total_s", secs).with("producers", producers)
                    .with("send", batch + " pipelined offerAsync").with("delay_ms", 0)
                    .with("consumers", bench.settings.integer("redisson-consumers") + " threads poll(1s)");
        }
    }

    @Override
    Measure bytesPerMessage(int count) throws Exception {
        try (Run run = new Run("memory")) {
            run.delayed.offer(payload("prime"), FAR_MS, TimeUnit.MILLISECONDS);
            Thread.sleep(100);
            long before = bench.usedMemory();
            run.fill(run.delayed, count, 0, FAR_MS);
            Thread.sleep(300);
            long after = bench.usedMemory();
            long keys = bench.resp.memoryOfKeys("redisson_delay_queue*{" + run.name + "}");
            return Measure.of((after - before) / (double) count).with("messages", count)
                    .with("used_memory_delta", after - before)
                    .with("memory_usage_of_keys_per_msg", keys / (double) (count + 1))
                    .with("payload_bytes", PAYLOAD_CHARS);
        }
    }

    /** The Quartz cron expression of Redisson's {@code CronSchedule} that ticks every {@code periodMs}, or null. */
    static @org.jspecify.annotations.Nullable String cronEvery(long periodMs) {
        if (periodMs % 1000 != 0) {
            return null;
        }
        long seconds = periodMs / 1000;
        if (seconds < 60 && 60 % seconds == 0) {
            return "0/" + seconds + " * * * * ?";
        }
        if (seconds % 60 == 0 && seconds / 60 <= 60 && 60 % (seconds / 60) == 0) {
            return "0 0/" + seconds / 60 + " * * * ?";
        }
        return null;
    }

    /**
     * schedules-100k: {@code count} tasks scheduled with {@code RScheduledExecutorService.schedule(task,
     * CronSchedule.of(every periodMs))} from {@code threads} threads, run by {@code --redisson-consumers} executor
     * workers registered on the consumer client; then {@code rounds} bursts of runs. Value: p99 lateness of the runs
     * (run start less the cron instant, this JVM's clock, which is the one CronSchedule uses), as ours.
     */
    Measure schedules(int count, long periodMs, int rounds, int threads) throws Exception {
        String cron = cronEvery(periodMs);
        if (cron == null) {
            return Measure.of(Double.NaN).with("error", "no cron expression ticks every " + periodMs + " ms");
        }
        String name = unique("schedules");
        org.redisson.api.RScheduledExecutorService scheduler = producer.getExecutorService(name);
        org.redisson.api.RScheduledExecutorService workers = consumer.getExecutorService(name);
        int total = count * rounds;
        double[] late = new double[total];
        AtomicInteger index = new AtomicInteger();
        java.util.Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        AtomicLong twice = new AtomicLong();
        CountDownLatch done = new CountDownLatch(total);
        RedissonScheduleTick.Sink.sink = (id, now) -> {
            long tick = Math.floorDiv(now, periodMs) * periodMs;
            if (!seen.add(id + "@" + tick)) {
                twice.incrementAndGet();
                return;
            }
            int i = index.getAndIncrement();
            if (i < total) {
                late[i] = now - tick;
            }
            done.countDown();
        };
        try {
            workers.registerWorkers(org.redisson.api.WorkerOptions.defaults().workers(bench.settings.integer("redisson-consumers")));
            Thread.sleep(100);
            long before = bench.usedMemory();
            long putStart = System.nanoTime();
            Chunks chunks = new Chunks(count, 1_000);
            parallel(threads, t -> {
                for (int from = chunks.take(); from >= 0; from = chunks.take()) {
                    for (int i = from; i < chunks.end(from); i++) {
                        scheduler.schedule(new RedissonScheduleTick("customer:" + i), org.redisson.api.CronSchedule.of(cron));
                    }
                }
            });
            double putSeconds = (System.nanoTime() - putStart) / 1e9;
            Thread.sleep(300);
            long after = bench.usedMemory();
            long keys = bench.resp.memoryOfKeys("*" + name + "*");
            if (!done.await(periodMs * (rounds + 1) / 1000 + 600, TimeUnit.SECONDS)) {
                return Measure.of(Double.NaN).with("error", "timed out with " + (total - done.getCount()) + " of "
                        + total + " runs").with("put_per_s", count / putSeconds);
            }
            double[] sorted = sortedCopy(late, total);
            return Measure.of(percentile(sorted, total, 99)).with("p50_ms", percentile(sorted, total, 50))
                    .with("max_ms", sorted[total - 1]).with("ticks", total).with("schedules", count)
                    .with("period_ms", periodMs).with("handled_twice", twice.get())
                    .with("used_memory_per_schedule", (after - before) / (double) count)
                    .with("memory_usage_of_keys_per_schedule", keys / (double) count)
                    .with("put_per_s", count / putSeconds).with("cron", cron)
                    .with("workers", bench.settings.integer("redisson-consumers"));
        } finally {
            RedissonScheduleTick.Sink.sink = null;
            workers.shutdown();
            scheduler.delete();
            producer.getKeys().deleteByPattern("*" + name + "*");
        }
    }

    @Override
    void warmUp() throws Exception {
        try (Run run = new Run("warmup")) {
            int n = 3_000;
            CountDownLatch done = new CountDownLatch(n + 500);
            run.startConsumers(value -> done.countDown());
            run.fill(run.delayed, n, 0, 0);
            for (int i = 0; i < 500; i++) {
                run.delayed.offer(payload("w-" + i), 0, TimeUnit.MILLISECONDS);
            }
            done.await(60, TimeUnit.SECONDS);
        }
        // the measured code paths themselves (the burst smaller: Redisson's drain is superlinear)
        int threads = bench.settings.integer("threads");
        for (int i = 0; i < 2; i++) {
            burstDrain(5_000, 60);
            enqueueRate(20_000, threads);
        }
    }
}
