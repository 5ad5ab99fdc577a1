package io.github.delayqueue.benchmarks;

import io.github.delayqueue.core.schedule.ScheduleSpec;
import io.github.delayqueue.core.schedule.Schedules;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import io.github.delayqueue.core.BatchMessageHandler;
import io.github.delayqueue.core.BatchOptions;
import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.DeliveryInterceptor;
import io.github.delayqueue.core.MessageHandler;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.sets.JobSet;
import org.jspecify.annotations.Nullable;

/** Our engine: {@link DelayQueueClient} sends on the producer client, consumers run on the consumer client. */
final class OursSide extends Side {

    private static final String QUEUE = "q";
    private static final int SETUP_CHUNK = 5_000;

    OursSide(Bench bench) {
        super(bench);
    }

    @Override
    String name() {
        return "ours";
    }

    /** The consumer options every scenario uses (from --concurrency and --batch-size). */
    ConsumerOptions consumerOptions() {
        return ConsumerOptions.builder().concurrency(bench.settings.integer("concurrency"))
                .batchSize(bench.settings.integer("batch-size")).build();
    }

    /** A producer and a consumer client on a fresh key prefix; {@link #close} deletes its keys. */
    private final class Run implements AutoCloseable {
        final String prefix;
        final DelayQueueClient sender;
        final DelayQueueClient receiver;
        final List<DelayQueueConsumer> consumers = new ArrayList<>();

        /** Null when not observed. */
        final @Nullable Observability observed;

        Run(String what) {
            this(what, null);
        }

        Run(String what, @Nullable Observability observed) {
            prefix = unique(what);
            this.observed = observed;
            ClientOptions.Builder options = ClientOptions.builder().keyPrefix(prefix).maxBatchSize(100_000);
            if (observed != null) {
                options.listener(observed.listener());
            }
            sender = DelayQueueClient.create(producer, options.build());
            receiver = DelayQueueClient.create(consumer, options.build());
        }

        DelayQueueConsumer start(MessageHandler<String> handler) {
            return start(QUEUE, handler);
        }

        DelayQueueConsumer start(String queue, MessageHandler<String> handler) {
            DeliveryInterceptor interceptor = observed == null ? null : observed.interceptor();
            return start(queue, handler, interceptor == null ? consumerOptions()
                    : consumerOptions().toBuilder().interceptors(List.of(interceptor)).build());
        }

        DelayQueueConsumer start(String queue, MessageHandler<String> handler, ConsumerOptions options) {
            DelayQueueConsumer c = receiver.newConsumer(queue, String.class, handler, options);
            consumers.add(c);
            c.start();
            return c;
        }

        /** A batch consumer of {@code size} messages per call, {@code concurrency} batches at once. */
        DelayQueueConsumer startBatch(BatchMessageHandler<String> handler, int size, int concurrency) {
            ConsumerOptions options = consumerOptions().toBuilder().concurrency(concurrency).build();
            DelayQueueConsumer c = receiver.newBatchConsumer(QUEUE, String.class, handler, BatchOptions.of(size), options);
            consumers.add(c);
            c.start();
            return c;
        }

        /** Sends {@code count} messages from {@code threads} threads, in sendAll chunks, all due at {@code dueAt} or after {@code delay}. */
        void fill(String queue, int count, int threads, @Nullable Instant dueAt, @Nullable Duration delay,
                boolean withIds) throws Exception {
            Chunks chunks = new Chunks(count, SETUP_CHUNK);
            parallel(threads, t -> {
                for (int from = chunks.take(); from >= 0; from = chunks.take()) {
                    List<SendRequest> batch = new ArrayList<>(SETUP_CHUNK);
                    for (int i = from; i < chunks.end(from); i++) {
                        SendOptions options = withIds ? SendOptions.id("order-" + i) : SendOptions.none();
                        String body = payload("m-" + i + "-");
                        batch.add(dueAt != null ? SendRequest.at(body, dueAt, options) : SendRequest.of(body, delay, options));
                    }
                    sender.sendAll(queue, batch);
                }
            });
        }

        /** The write rate of {@link #fill} (msg/s), measured on a scratch queue with {@code probe} messages. */
        double calibrate(int probe) throws Exception {
            long c0 = System.nanoTime();
            fill("calibration", probe, 2, null, Duration.ofMillis(FAR_MS), false);
            double rate = probe / ((System.nanoTime() - c0) / 1e9);
            producer.getKeys().unlinkByPattern(prefix + ":{calibration}:*");
            return rate;
        }

        /** Waits until nothing of the queue is pending or in flight (every handled message acked); returns the Redis time then. */
        Instant awaitSettled(long timeoutMs) throws InterruptedException {
            return awaitSettled(QUEUE, timeoutMs);
        }

        /** {@link #awaitSettled(long)} for another queue of the run. */
        Instant awaitSettled(String queue, long timeoutMs) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            while (true) {
                QueueStats stats = sender.stats(queue);
                if (stats.pending() == 0 && stats.inFlight() == 0) {
                    return stats.serverTime();
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("queue not settled after " + timeoutMs + " ms: " + stats);
                }
                Thread.sleep(2);
            }
        }

        @Override
        public void close() {
            for (DelayQueueConsumer c : consumers) {
                c.stop();
            }
            producer.getKeys().unlinkByPattern(prefix + ":*");
        }
    }

    @Override
    Measure burstDrain(int count, long timeoutSeconds) throws Exception {
        try (Run run = new Run("burst")) {
            int setupThreads = 2;
            // calibrate the write rate on a scratch queue so the due instant leaves just enough time to write
            double rate = run.calibrate(Math.min(count, 20_000));

            Instant serverNow = run.sender.stats(QUEUE).serverTime();
            Instant due = serverNow.plusMillis(burstLeadMs(count, rate));
            long w0 = System.nanoTime();
            run.fill(QUEUE, count, setupThreads, due, null, false);
            double writeSeconds = (System.nanoTime() - w0) / 1e9;
            Instant written = run.sender.stats(QUEUE).serverTime();

            long[] stamps = new long[count];
            AtomicInteger index = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(count);
            Bench.CpuMeter cpu = bench.cpu();
            run.start((payload, ctx) -> {
                int i = index.getAndIncrement();
                if (i < count) {
                    stamps[i] = System.nanoTime();
                }
                done.countDown();
            });
            if (!done.await(timeoutSeconds + (due.toEpochMilli() - written.toEpochMilli()) / 1000, TimeUnit.SECONDS)) {
                return Measure.of(Double.NaN).with("error", "timed out with " + (count - done.getCount()) + " of "
                        + count + " handled");
            }
            double dueMs = due.toEpochMilli();
            double[] late = lateness(stamps, count, dueMs);
            Instant settled = run.awaitSettled(60_000);
            Measure m = cpu.addTo(Measure.of(late[count - 1] / 1000.0), "")
                    .with("messages", count)
                    .with("first_ms", late[0])
                    .with("median_late_ms", percentile(late, count, 50))
                    .with("all_acked_s", (settled.toEpochMilli() - dueMs) / 1000.0)
                    .with("drain_rate_msg_s", count / (late[count - 1] / 1000.0))
                    .with("write_s", writeSeconds)
                    .with("consumer", "concurrency=" + consumerOptions().concurrency() + ",batchSize="
                            + consumerOptions().batchSize());
            if (written.isAfter(due)) {
                m.with("warning", "writing ended after the due instant; drain time is understated");
            }
            return m;
        }
    }

    /**
     * lateness-under-burst: queue "a" gets {@code rate} sends a second, each due after {@code delayMs}, while
     * {@code burst} messages of queue "b" fall due at one instant; both consumers run in the same application
     * (the consumer client), one per queue. The figure: see {@link Side#underBurstMeasure}.
     */
    Measure latenessUnderBurst(int rate, int delayMs, int burst, long timeoutSeconds) throws Exception {
        try (Run run = new Run("underburst")) {
            double writeRate = run.calibrate(Math.min(burst, 20_000));
            java.util.concurrent.ConcurrentLinkedQueue<double[]> samples = new java.util.concurrent.ConcurrentLinkedQueue<>();
            RedisClock clock = bench.clock;
            run.start("a", (payload, ctx) -> {
                double due = ctx.dueAt().toEpochMilli();
                samples.add(new double[] {due, clock.nowMs() - due});
            });
            AtomicLong lastB = new AtomicLong();
            CountDownLatch drained = new CountDownLatch(burst);
            run.start("b", (payload, ctx) -> {
                lastB.accumulateAndGet(System.nanoTime(), Math::max);
                drained.countDown();
            });
            Thread.sleep(200); // let the consumers subscribe
            Duration delay = Duration.ofMillis(delayMs);
            try (SteadySender steady = new SteadySender(rate, i -> run.sender.send("a", payload("m-" + i + "-"), delay))) {
                // the steady messages are falling due for a second before the burst does
                Instant due = run.sender.stats("b").serverTime()
                        .plusMillis(Math.max(burstLeadMs(burst, writeRate), delayMs + 1_000L));
                run.fill("b", burst, 2, due, null, false);
                if (!drained.await(timeoutSeconds + Duration.between(Instant.now(), due).toSeconds(), TimeUnit.SECONDS)) {
                    return Measure.of(Double.NaN).with("error", "burst timed out with " + (burst - drained.getCount())
                            + " of " + burst + " handled");
                }
                double dueMs = due.toEpochMilli();
                double drainedMs = clock.redisMs(lastB.get());
                double windowEnd = Math.max(drainedMs, dueMs + 1_000);
                while (clock.nowMs() + delayMs <= windowEnd + 50) { // until steady sends fall due after the window
                    Thread.sleep(10);
                }
                steady.stop();
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs + 30_000L);
                while (samples.size() < steady.sent() && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                if (samples.size() < steady.sent()) {
                    return Measure.of(Double.NaN).with("error", "only " + samples.size() + " of " + steady.sent()
                            + " steady messages handled");
                }
                return underBurstMeasure(samples, dueMs, drainedMs, burst, steady.maxBehindMs());
            }
        }
    }

    /**
     * consumers-4: {@code count} messages due at one instant, drained by one consumer instance and then by four
     * (each its own Redisson client and {@link DelayQueueClient}, as four application instances). The value is
     * the four instances' drain time; DETAIL has one instance's and the messages handled more than once.
     */
    Measure consumers4(int count, long timeoutSeconds) throws Exception {
        // the same four clients (four application instances) for both drains, the first alone in the first
        List<org.redisson.api.RedissonClient> clients = new ArrayList<>();
        Measure one;
        Measure four;
        try {
            for (int i = 0; i < 4; i++) {
                clients.add(bench.client());
            }
            one = drainByInstances(clients.subList(0, 1), count, timeoutSeconds);
            four = drainByInstances(clients, count, timeoutSeconds);
        } finally {
            clients.forEach(org.redisson.api.RedissonClient::shutdown);
        }
        return Measure.of(four.value()).with("one_instance_s", one.value()).with("speedup", one.value() / four.value())
                .with("handled_twice", Long.parseLong(one.detail().getOrDefault("handled_twice", "0"))
                        + Long.parseLong(four.detail().getOrDefault("handled_twice", "0")))
                .with("messages", count).with("four", four.detail().toString().replace(", ", ";"))
                .with("one", one.detail().toString().replace(", ", ";"));
    }

    private Measure drainByInstances(List<org.redisson.api.RedissonClient> clients, int count, long timeoutSeconds) throws Exception {
        int instances = clients.size();
        try (Run run = new Run("instances" + instances)) {
            double writeRate = run.calibrate(Math.min(count, 20_000));
            Instant due = run.sender.stats(QUEUE).serverTime().plusMillis(burstLeadMs(count, writeRate));
            run.fill(QUEUE, count, 2, due, null, false);
            java.util.concurrent.atomic.AtomicIntegerArray seen = new java.util.concurrent.atomic.AtomicIntegerArray(count);
            LongAdder twice = new LongAdder();
            AtomicLong last = new AtomicLong();
            CountDownLatch done = new CountDownLatch(count);
            MessageHandler<String> handler = (payload, ctx) -> {
                if (seen.getAndIncrement(indexOf(payload)) > 0) {
                    twice.increment();
                } else {
                    last.accumulateAndGet(System.nanoTime(), Math::max);
                    done.countDown();
                }
            };
            for (org.redisson.api.RedissonClient client : clients) {
                DelayQueueConsumer c = DelayQueueClient.create(client, ClientOptions.builder().keyPrefix(run.prefix).build())
                        .newConsumer(QUEUE, String.class, handler, consumerOptions());
                run.consumers.add(c);
                c.start();
            }
            if (!done.await(timeoutSeconds + Duration.between(Instant.now(), due).toSeconds(), TimeUnit.SECONDS)) {
                return Measure.of(Double.NaN).with("error", instances + " instances timed out with "
                        + (count - done.getCount()) + " of " + count + " handled");
            }
            double drain = (bench.clock.redisMs(last.get()) - due.toEpochMilli()) / 1000.0;
            run.awaitSettled(60_000); // every handled message acknowledged: a late duplicate would show by now
            return Measure.of(drain).with("instances", instances).with("handled_twice", twice.sum());
        }
    }

    /**
     * rate-limited-drain: {@code count} messages due at one instant, drained by {@code instances} consumer instances
     * (each its own Redisson client) under one rate limit for the queue, then the same count drained without a limit
     * by the same instances. The value is the measured rate (messages after the burst over the time from the first
     * handler start to the last) over the configured rate (target 0.98 to 1.0); DETAIL has the most handled in any
     * one period, the script calls and Redis microseconds per call and per message (INFO commandstats of EVALSHA:
     * claims and settles) with and without the limit, and the messages handled twice.
     */
    Measure rateLimitedDrain(int count, RateLimit rate, int instances, long timeoutSeconds) throws Exception {
        List<org.redisson.api.RedissonClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < instances; i++) {
                clients.add(bench.client());
            }
            Measure limited = limitedDrain(clients, count, rate, timeoutSeconds);
            Measure unlimited = limitedDrain(clients, count, null, timeoutSeconds);
            double configured = rate.permits() / (rate.period().toNanos() / 1e9);
            double measured = limited.value();
            Measure m = Measure.of(measured / configured).with("configured_per_s", configured).with("instances", instances)
                    .with("messages", count);
            limited.detail().forEach((k, v) -> m.detail().put("limited_" + k, v));
            unlimited.detail().forEach((k, v) -> m.detail().put("unlimited_" + k, v));
            double perCallLimited = Double.parseDouble(limited.detail().get("redis_us_per_call"));
            double perCallUnlimited = Double.parseDouble(unlimited.detail().get("redis_us_per_call"));
            return m.with("redis_us_per_call_ratio", perCallLimited / perCallUnlimited);
        } finally {
            clients.forEach(org.redisson.api.RedissonClient::shutdown);
        }
    }

    private Measure limitedDrain(List<org.redisson.api.RedissonClient> clients, int count, @Nullable RateLimit rate,
            long timeoutSeconds) throws Exception {
        try (Run run = new Run(rate == null ? "unlimited" : "limited")) {
            double writeRate = run.calibrate(Math.min(count, 20_000));
            Instant due = run.sender.stats(QUEUE).serverTime().plusMillis(burstLeadMs(count, writeRate));
            run.fill(QUEUE, count, 2, due, null, false);
            java.util.concurrent.atomic.AtomicIntegerArray seen = new java.util.concurrent.atomic.AtomicIntegerArray(count);
            LongAdder twice = new LongAdder();
            long[] starts = new long[count];
            java.util.concurrent.atomic.AtomicInteger started = new java.util.concurrent.atomic.AtomicInteger();
            CountDownLatch done = new CountDownLatch(count);
            MessageHandler<String> handler = (payload, ctx) -> {
                if (seen.getAndIncrement(indexOf(payload)) > 0) {
                    twice.increment();
                } else {
                    starts[started.getAndIncrement()] = System.nanoTime();
                    done.countDown();
                }
            };
            ConsumerOptions options = consumerOptions().toBuilder().rateLimit(rate).build();
            // when each claim returned, one entry per message it took (on the poller thread, before dispatch)
            long[] claims = new long[count];
            java.util.concurrent.atomic.AtomicInteger claimed = new java.util.concurrent.atomic.AtomicInteger();
            io.github.delayqueue.core.DelayQueueListener claimTimes = new io.github.delayqueue.core.DelayQueueListener() {
                @Override
                public void claimed(String queue, int messages) {
                    long now = System.nanoTime();
                    for (int i = 0; i < messages; i++) {
                        int at = claimed.getAndIncrement();
                        if (at < count) {
                            claims[at] = now;
                        }
                    }
                }
            };
            for (org.redisson.api.RedissonClient client : clients) {
                DelayQueueConsumer c = DelayQueueClient.create(client, ClientOptions.builder().keyPrefix(run.prefix)
                        .listener(claimTimes).build()).newConsumer(QUEUE, String.class, handler, options);
                run.consumers.add(c);
                c.start();
            }
            Map<String, String> stats0 = bench.resp.info("commandstats");
            if (!done.await(timeoutSeconds + Duration.between(Instant.now(), due).toSeconds(), TimeUnit.SECONDS)) {
                return Measure.of(Double.NaN).with("error", "timed out with " + (count - done.getCount()) + " of " + count
                        + " handled");
            }
            run.awaitSettled(60_000);
            Map<String, String> stats1 = bench.resp.info("commandstats");
            long[] calls = evalsha(stats0, stats1);
            long[] sorted = java.util.Arrays.copyOf(starts, count);
            java.util.Arrays.sort(sorted);
            int burst = rate == null ? 1 : rate.burst();
            double span = (sorted[count - 1] - sorted[0]) / 1e9;
            Measure m = Measure.of(span > 0 ? (count - burst) / span : Double.NaN).with("drain_s", span)
                    .with("rate_per_s", span > 0 ? (count - burst) / span : Double.NaN)
                    .with("script_calls", calls[0]).with("redis_us_per_call", calls[0] == 0 ? 0 : (double) calls[1] / calls[0])
                    .with("redis_us_per_msg", (double) calls[1] / count).with("handled_twice", twice.sum());
            if (rate != null) {
                long[] claimOrder = java.util.Arrays.copyOf(claims, Math.min(count, claimed.get()));
                java.util.Arrays.sort(claimOrder);
                m.with("most_claimed_in_a_period", mostInWindow(claimOrder, rate.period().toNanos()))
                        .with("most_started_in_a_period", mostInWindow(sorted, rate.period().toNanos())).with("permits", rate.permits())
                        .with("burst", rate.burst());
            }
            return m;
        }
    }

    private static int mostInWindow(long[] sorted, long windowNanos) {
        int most = 0;
        for (int i = 0, j = 0; i < sorted.length; i++) {
            while (j < sorted.length && sorted[j] - sorted[i] < windowNanos) {
                j++;
            }
            most = Math.max(most, j - i);
        }
        return most;
    }

    /** EVALSHA calls and microseconds between two INFO commandstats reads. */
    private static long[] evalsha(Map<String, String> before, Map<String, String> after) {
        long[] a = evalsha(after);
        long[] b = evalsha(before);
        return new long[] {a[0] - b[0], a[1] - b[1]};
    }

    private static long[] evalsha(Map<String, String> stats) {
        return stat(stats.get("cmdstat_evalsha")); // calls=N,usec=N,usec_per_call=...
    }

    /**
     * burst-drain-10m: {@code count} messages sent with sendAll (2 threads, calls of 5,000), all due at one
     * instant. The value is the drain time; DETAIL has the send rate, Redis bytes per message (used_memory
     * growth over the send), the drain rate, and the heap used after a GC before the consumer starts and after the
     * drain is settled (the consumer still running). Nothing per message is kept in the JVM, so the default heap is
     * enough.
     */
    Measure burstDrain10m(int count, long timeoutSeconds) throws Exception {
        try (Run run = new Run("burst10m")) {
            double writeRate = run.calibrate(Math.min(count, 100_000));
            Instant due = run.sender.stats(QUEUE).serverTime().plusMillis(burstLeadMs(count, writeRate));
            run.sender.send(QUEUE, payload("prime"), Duration.ofMillis(FAR_MS)); // the keys exist before "before"
            Thread.sleep(100);
            long before = bench.usedMemory();
            long w0 = System.nanoTime();
            run.fill(QUEUE, count, 2, due, null, false);
            double writeSeconds = (System.nanoTime() - w0) / 1e9;
            long after = bench.usedMemory();
            Instant written = run.sender.stats(QUEUE).serverTime();
            LongAdder handled = new LongAdder();
            AtomicLong last = new AtomicLong();
            long heapBefore = Bench.heapUsedAfterGc();
            Bench.CpuMeter cpu = bench.cpu();
            run.start((payload, ctx) -> {
                last.accumulateAndGet(System.nanoTime(), Math::max);
                handled.increment();
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds
                    + Math.max(0, Duration.between(written, due).toSeconds()));
            while (handled.sum() < count && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            if (handled.sum() < count) {
                return Measure.of(Double.NaN).with("error", "timed out with " + handled.sum() + " of " + count + " handled");
            }
            double drain = (bench.clock.redisMs(last.get()) - due.toEpochMilli()) / 1000.0;
            Measure m = cpu.addTo(Measure.of(drain), "");
            // every message acknowledged (the prime stays pending), the consumer still running: its idle state
            long settleBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (QueueStats s = run.sender.stats(QUEUE); s.pending() > 1 || s.inFlight() > 0; s = run.sender.stats(QUEUE)) {
                if (System.nanoTime() > settleBy) {
                    return m.with("error", "not settled 60 s after the drain: " + s);
                }
                Thread.sleep(10);
            }
            long heapAfter = Bench.heapUsedAfterGc();
            m.with("messages", count)
                    .with("send_rate_msg_s", count / writeSeconds).with("write_s", writeSeconds)
                    .with("redis_bytes_per_msg", (after - before) / (double) count)
                    .with("drain_rate_msg_s", count / drain)
                    .with("heap_before_mb", heapBefore / 1048576.0).with("heap_after_mb", heapAfter / 1048576.0)
                    .with("consumer", "concurrency=" + consumerOptions().concurrency() + ",batchSize="
                            + consumerOptions().batchSize());
            if (written.isAfter(due)) {
                m.with("warning", "writing ended after the due instant; drain time is understated");
            }
            return m;
        }
    }

    @Override
    Measure replaceById(int pending, int threads, int seconds) throws Exception {
        try (Run run = new Run("replace")) {
            run.fill(QUEUE, pending, 2, null, Duration.ofMillis(FAR_MS), true);
            LongAdder ops = new LongAdder();
            long start = System.nanoTime();
            long measureFrom = start + TimeUnit.SECONDS.toNanos(1);
            long measureTo = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
            Duration delay = Duration.ofMillis(FAR_MS);
            parallel(threads, t -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                int slots = Math.max(1, (pending - t + threads - 1) / threads); // ids k with k % threads == t
                while (true) {
                    long now = System.nanoTime();
                    if (now >= measureTo) {
                        return;
                    }
                    int k = t + threads * random.nextInt(slots);
                    run.sender.send(QUEUE, payload("m-" + k + "-"), delay, SendOptions.id("order-" + k).replaceExisting());
                    if (now >= measureFrom) {
                        ops.increment();
                    }
                }
            });
            QueueStats stats = run.sender.stats(QUEUE);
            return Measure.of(ops.sum() / (double) seconds).with("pending", pending).with("threads", threads)
                    .with("replaced", ops.sum()).with("pending_after", stats.pending());
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
            run.start((payload, ctx) -> {
                double l = clock.nowMs() - ctx.dueAt().toEpochMilli();
                int i = index.getAndIncrement();
                if (i < count) {
                    late[i] = l;
                }
                done.countDown();
            });
            Thread.sleep(200); // let the consumer subscribe
            long behind = paced(rate, count, i -> run.sender.send(QUEUE, payload("m-" + i + "-"), Duration.ofMillis(delayMs)));
            if (!done.await(delayMs + 30_000L, TimeUnit.MILLISECONDS)) {
                return Measure.of(Double.NaN).with("error", "timed out with " + (count - done.getCount()) + " of "
                        + count + " handled");
            }
            return latenessMeasure(late, count, behind);
        }
    }

    /** Runs {@code send} {@code count} times at {@code rate} per second from one thread; returns how far it fell behind (ms). */
    static long paced(int rate, int count, IntSender send) throws Exception {
        long start = System.nanoTime();
        long maxBehind = 0;
        for (int i = 0; i < count; i++) {
            long target = start + (long) (i * (1e9 / rate));
            sleepUntil(target);
            maxBehind = Math.max(maxBehind, System.nanoTime() - target);
            send.send(i);
        }
        return TimeUnit.NANOSECONDS.toMillis(maxBehind);
    }

    interface IntSender {
        void send(int i) throws Exception;
    }

    static Measure latenessMeasure(double[] late, int count, long behindMs) {
        double[] sorted = sortedCopy(late, count);
        long early = 0;
        for (double l : sorted) {
            if (l < 0) {
                early++;
            }
        }
        return Measure.of(percentile(sorted, count, 99)).with("p50_ms", percentile(sorted, count, 50))
                .with("p99_ms", percentile(sorted, count, 99)).with("p999_ms", percentile(sorted, count, 99.9))
                .with("max_ms", sorted[count - 1]).with("min_ms", sorted[0]).with("early", early)
                .with("messages", count).with("producer_max_behind_ms", behindMs);
    }

    @Override
    Measure enqueueRate(int count, int threads) throws Exception {
        try (Run run = new Run("enqueue")) {
            AtomicInteger next = new AtomicInteger();
            Duration delay = Duration.ofMillis(FAR_MS);
            Bench.CpuMeter cpu = bench.cpu();
            long t0 = System.nanoTime();
            parallel(threads, t -> {
                for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                    run.sender.send(QUEUE, payload("m-" + i + "-"), delay);
                }
            });
            double secs = (System.nanoTime() - t0) / 1e9;
            return cpu.addTo(Measure.of(count / secs), "window_").with("messages", count).with("threads", threads).with("seconds", secs);
        }
    }

    /** enqueue-batch-rate: sendAll in batches of {@code batch} from {@code threads} threads. */
    Measure enqueueBatchRate(int count, int threads, int batch) throws Exception {
        try (Run run = new Run("batch")) {
            Chunks chunks = new Chunks(count, batch);
            Duration delay = Duration.ofMillis(FAR_MS);
            Bench.CpuMeter cpu = bench.cpu();
            long t0 = System.nanoTime();
            parallel(threads, t -> {
                for (int from = chunks.take(); from >= 0; from = chunks.take()) {
                    List<SendRequest> requests = new ArrayList<>(batch);
                    for (int i = from; i < chunks.end(from); i++) {
                        requests.add(SendRequest.of(payload("m-" + i + "-"), delay));
                    }
                    run.sender.sendAll(QUEUE, requests);
                }
            });
            double secs = (System.nanoTime() - t0) / 1e9;
            return cpu.addTo(Measure.of(count / secs), "window_").with("messages", count).with("threads", threads).with("batch", batch)
                    .with("seconds", secs);
        }
    }

    @Override
    Measure endToEnd(int seconds, int producers, int batch, int backlog) throws Exception {
        return endToEnd(seconds, producers, batch, backlog, null);
    }

    /**
     * {@code end-to-end-rate-observed}: the same, with the starter's metrics listener on a real meter registry and
     * its send and process observations traced (see {@link Observability}).
     */
    Measure endToEndObserved(int seconds, int producers, int batch, int backlog) throws Exception {
        try (Observability observed = new Observability(bench.settings.get("observe"), bench.settings.traceSampling)) {
            Measure m = endToEnd(seconds, producers, batch, backlog, observed);
            return m.with("observed", bench.settings.get("observe").replace(',', '+') + "," + observed.summary());
        }
    }

    private Measure endToEnd(int seconds, int producers, int batch, int backlog, @Nullable Observability observed)
            throws Exception {
        return endToEnd(seconds, producers, batch, backlog, observed, 0);
    }

    /**
     * {@code end-to-end-batch}: {@link #endToEnd} with a batch handler of {@code handlerBatch} messages per call
     * ({@code max(2, concurrency / handlerBatch)} batches at once), against single-message handlers in the same run.
     */
    Measure endToEndBatch(int seconds, int producers, int batch, int backlog, int handlerBatch) throws Exception {
        return endToEnd(seconds, producers, batch, backlog, null, handlerBatch);
    }

    /** {@code handlerBatch} 0: a handler of single messages; else a batch handler of that many. */
    private Measure endToEnd(int seconds, int producers, int batch, int backlog, @Nullable Observability observed,
            int handlerBatch) throws Exception {
        try (Run run = new Run("e2e", observed)) {
            LongAdder handled = new LongAdder();
            int batchConcurrency = Math.max(2, consumerOptions().concurrency() / Math.max(1, handlerBatch));
            if (handlerBatch > 0) {
                run.startBatch(items -> handled.add(items.size()), handlerBatch, batchConcurrency);
            } else {
                run.start((payload, ctx) -> handled.increment());
            }
            Thread.sleep(200);
            Bench.CpuMeter cpu = bench.cpu();
            AtomicLong sent = new AtomicLong();
            long t0 = System.nanoTime();
            long stopAt = t0 + TimeUnit.SECONDS.toNanos(seconds);
            parallel(producers, t -> {
                int n = 0;
                while (System.nanoTime() < stopAt) {
                    if (sent.get() - handled.sum() > backlog) {
                        Thread.sleep(1);
                        continue;
                    }
                    List<SendRequest> requests = new ArrayList<>(batch);
                    for (int i = 0; i < batch; i++) {
                        requests.add(SendRequest.of(payload("m-" + t + "-" + n++ + "-"), Duration.ZERO));
                    }
                    if (observed == null) {
                        run.sender.sendAll(QUEUE, requests);
                    } else {
                        observed.send(QUEUE, requests, r -> run.sender.sendAll(QUEUE, r));
                    }
                    sent.addAndGet(batch);
                }
            });
            double sendSecs = (System.nanoTime() - t0) / 1e9;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (handled.sum() < sent.get() && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            run.awaitSettled(30_000);
            double secs = (System.nanoTime() - t0) / 1e9;
            Measure m = cpu.addTo(Measure.of(sent.get() / secs), "").with("sent", sent.get())
                    .with("handled_and_acked", handled.sum())
                    .with("send_s", sendSecs).with("total_s", secs).with("producers", producers)
                    .with("send", "sendAll(" + batch + ")").with("delay_ms", 0)
                    .with("consumer", handlerBatch > 0
                            ? "batch handler: size=" + handlerBatch + ",concurrency=" + batchConcurrency
                            : "concurrency=" + consumerOptions().concurrency() + ",batchSize=" + consumerOptions().batchSize());
            return m;
        }
    }

    /**
     * {@code history} (only when named): {@code count} messages with ids ({@code order-<i>}), sent with sendAll from 2
     * threads to a queue whose consumer (the usual one) takes them as they come, with its history on
     * ({@code keepHistory(maxAge, maxCount)}) or off ({@code maxAge} null). Value: messages per second from the first
     * send until every message is acknowledged; CPU over the same window. With the history on, the details carry what it
     * holds at the end: its records (ZCARD), MEMORY USAGE of its hash and sorted set, and their quotient, the bytes per
     * kept entry (records as the engine writes them: this JVM's instance name, no group, no reason).
     */
    Measure history(int count, @Nullable Duration maxAge, int maxCount) throws Exception {
        try (Run run = new Run("history")) {
            LongAdder handled = new LongAdder();
            boolean keep = maxAge != null;
            ConsumerOptions options = keep ? consumerOptions().toBuilder().keepHistory(maxAge, maxCount).build()
                    : consumerOptions();
            run.start(QUEUE, (payload, ctx) -> handled.increment(), options);
            Thread.sleep(200);
            Bench.CpuMeter cpu = bench.cpu();
            long t0 = System.nanoTime();
            run.fill(QUEUE, count, 2, null, Duration.ZERO, true);
            double sendSecs = (System.nanoTime() - t0) / 1e9;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (handled.sum() < count && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            run.awaitSettled(60_000);
            double secs = (System.nanoTime() - t0) / 1e9;
            Measure m = cpu.addTo(Measure.of(count / secs), "").with("messages", count).with("handled", handled.sum())
                    .with("send_s", sendSecs).with("total_s", secs)
                    .with("history", keep ? "max-age=" + maxAge + ",max-count=" + maxCount : "off")
                    .with("consumer", "concurrency=" + consumerOptions().concurrency() + ",batchSize="
                            + consumerOptions().batchSize());
            if (keep) {
                String base = run.prefix + ":{" + QUEUE + "}:";
                Object records = bench.resp.call("ZCARD", base + "history-at");
                long bytes = bench.resp.memoryOfKeys(base + "history") + bench.resp.memoryOfKeys(base + "history-at");
                long kept = records instanceof Long n ? n : 0;
                m.with("history_records", kept).with("history_bytes", bytes)
                        .with("bytes_per_kept_entry", kept > 0 ? bytes / (double) kept : Double.NaN);
            }
            return m;
        }
    }

    /** set-completion's callback queue; its plain rounds consume it too (it stays idle there), so both pay its polling. */
    private static final String CALLBACKS = "callbacks";

    /**
     * {@code set-completion} (only when named), the set side of a round: two consumers (the usual options), one on the
     * members' queue (a no-op handler) and one on the callbacks' queue. First {@code count} messages (100-char
     * payloads, due at once, generated ids) sent as one job set with an onSuccess callback ({@code sendSet}, from this
     * thread; its members go in script calls of 500, as {@code sendAll}'s). Value: Redis CPU microseconds per member
     * from before the send until the callback is handled, both queues are settled and the queue's set marks are gone:
     * everything the set's messages cost, sent, claimed and settled, with the set's own script calls and the
     * callback's. Then the same count as {@code sets} sets of {@code count / sets}, sent back to back from this thread,
     * for the latency of each set's callback: from its last member's handler return (the latest return among its
     * members, this JVM's clock: the instant the application has acknowledged every member) to the start of its
     * callback's handler; split at the callback's send ({@code enqueuedAt}, Redis clock) into return → sent (the
     * settle, the forward of the marks to the set, the callback's send) and sent → start (the callback's delivery).
     * Each set's three figures (ms) are added to {@code samples} unless it is null; the details carry the round's
     * p50, p99 and max, and the Redis CPU per member of this second part too.
     */
    Measure setCompletion(int count, int sets, @Nullable List<double[]> samples) throws Exception {
        try (Run run = new Run("sets")) {
            Map<String, AtomicLong> lastReturn = new ConcurrentHashMap<>();
            Map<String, double[]> callbacks = new ConcurrentHashMap<>();
            LongAdder handled = new LongAdder();
            LongAdder twice = new LongAdder();
            RedisClock clock = bench.clock;
            run.start(QUEUE, (payload, ctx) -> {
                handled.increment();
                String set = JobSet.setOf(ctx);
                AtomicLong last = set == null ? null : lastReturn.get(set);
                if (last != null) {
                    last.accumulateAndGet(System.nanoTime(), Math::max); // the handler's last act: its return
                }
            });
            run.start(CALLBACKS, (payload, ctx) -> {
                long start = System.nanoTime();
                String set = ctx.headers().get(JobSet.SET_ID_HEADER);
                long last = lastReturn.get(set).get();
                double sent = ctx.enqueuedAt() == null ? Double.NaN : ctx.enqueuedAt().toEpochMilli();
                if (callbacks.putIfAbsent(set, new double[] {(start - last) / 1e6, sent - clock.redisMs(last),
                        clock.redisMs(start) - sent}) != null) {
                    twice.increment();
                }
            });
            Thread.sleep(200); // let the consumers subscribe

            // one set of count: the cost per member
            String big = "big";
            lastReturn.put(big, new AtomicLong());
            JobSet one = JobSet.builder().id(big).add(QUEUE, setMessages(count, "m-"))
                    .onSuccess(CALLBACKS, SendRequest.of(payload("done-big"), Duration.ZERO)).build();
            Map<String, String> stats0 = bench.resp.info("commandstats");
            Bench.CpuMeter cpu = bench.cpu();
            long t0 = System.nanoTime();
            run.sender.sendSet(one);
            double sendSecs = (System.nanoTime() - t0) / 1e9;
            if (!awaitCallbacks(callbacks, 1, 120)) {
                return Measure.of(Double.NaN).with("error", "no callback of the set of " + count + " after 120 s, "
                        + handled.sum() + " members handled");
            }
            run.awaitSettled(60_000);
            run.awaitSettled(CALLBACKS, 60_000);
            awaitNoMarks(run, 60_000);
            double secs = (System.nanoTime() - t0) / 1e9;
            Measure window = cpu.addTo(Measure.of(0), "window_");
            Map<String, String> stats1 = bench.resp.info("commandstats");
            long acked = run.sender.setStatus(big).map(io.github.delayqueue.core.sets.SetStatus::acknowledged).orElse(-1L);
            // what the set keeps in Redis once every member settled (one field each) until its retention ends
            long setBytes = bench.resp.memoryOfKeys(run.prefix + ":set:{" + big + "}:*");
            double redisUs = Double.parseDouble(window.detail().get("window_redis_cpu_s")) * 1e6 / count;
            Measure m = Measure.of(redisUs);
            m.detail().putAll(window.detail());
            m.with("messages", count).with("set_acked", acked).with("send_s", sendSecs).with("total_s", secs)
                    .with("big_set_return_to_callback_ms", callbacks.get(big)[0])
                    .with("set_bytes", setBytes).with("set_bytes_per_member", (double) setBytes / count)
                    .with("cmd_usec_per_msg", commandCost(stats0, stats1, count, false))
                    .with("cmd_calls_per_1000_msg", commandCost(stats0, stats1, count, true));
            if (acked != count) {
                return Measure.of(Double.NaN).with("error", "the set counts " + acked + " of " + count + " acknowledged");
            }

            // sets of count / sets, back to back: the latency of each one's callback
            int per = count / sets;
            List<JobSet> small = new ArrayList<>(sets);
            for (int i = 0; i < sets; i++) {
                String id = "s-" + i;
                lastReturn.put(id, new AtomicLong());
                small.add(JobSet.builder().id(id).add(QUEUE, setMessages(per, "s" + i + "-"))
                        .onSuccess(CALLBACKS, SendRequest.of(payload("done-" + i), Duration.ZERO)).build());
            }
            Bench.CpuMeter cpu2 = bench.cpu();
            for (JobSet s : small) {
                run.sender.sendSet(s);
            }
            if (!awaitCallbacks(callbacks, 1 + sets, 120)) {
                return Measure.of(Double.NaN).with("error", "only " + (callbacks.size() - 1) + " of " + sets
                        + " callbacks after 120 s");
            }
            run.awaitSettled(60_000);
            run.awaitSettled(CALLBACKS, 60_000);
            awaitNoMarks(run, 60_000);
            Measure window2 = cpu2.addTo(Measure.of(0), "");
            double[] toStart = new double[sets];
            double[] toSent = new double[sets];
            double[] sentToStart = new double[sets];
            for (int i = 0; i < sets; i++) {
                double[] c = callbacks.get("s-" + i);
                toStart[i] = c[0];
                toSent[i] = c[1];
                sentToStart[i] = c[2];
                if (samples != null) {
                    samples.add(c.clone());
                }
            }
            Arrays.sort(toStart);
            Arrays.sort(toSent);
            Arrays.sort(sentToStart);
            return m.with("sets", sets).with("members_per_set", per)
                    .with("return_to_callback_p50_ms", percentile(toStart, sets, 50))
                    .with("return_to_callback_p99_ms", percentile(toStart, sets, 99))
                    .with("return_to_callback_max_ms", toStart[sets - 1])
                    .with("return_to_sent_p50_ms", percentile(toSent, sets, 50))
                    .with("return_to_sent_p99_ms", percentile(toSent, sets, 99))
                    .with("sent_to_start_p50_ms", percentile(sentToStart, sets, 50))
                    .with("sent_to_start_p99_ms", percentile(sentToStart, sets, 99))
                    .with("sets_redis_us_per_member", Double.parseDouble(window2.detail().get("redis_cpu_s")) * 1e6
                            / (per * (double) sets))
                    .with("sets_jvm_us_per_member", Double.parseDouble(window2.detail().get("jvm_cpu_s")) * 1e6
                            / (per * (double) sets))
                    .with("callbacks_twice", twice.sum())
                    .with("consumer", "concurrency=" + consumerOptions().concurrency() + ",batchSize="
                            + consumerOptions().batchSize());
        }
    }

    /**
     * {@code set-completion}'s plain side: the same {@code count} messages as the set side's set, sent with one
     * {@code sendAll} (script calls of 500) from this thread to the same two consumers (the callbacks' queue idle).
     * Value: Redis CPU microseconds per message from before the send until every message is handled and the queues are
     * settled.
     */
    Measure setPlain(int count) throws Exception {
        try (Run run = new Run("setplain")) {
            LongAdder handled = new LongAdder();
            run.start(QUEUE, (payload, ctx) -> handled.increment());
            run.start(CALLBACKS, (payload, ctx) -> { });
            Thread.sleep(200);
            List<SendRequest> messages = setMessages(count, "m-");
            Map<String, String> stats0 = bench.resp.info("commandstats");
            Bench.CpuMeter cpu = bench.cpu();
            long t0 = System.nanoTime();
            run.sender.sendAll(QUEUE, messages);
            double sendSecs = (System.nanoTime() - t0) / 1e9;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (handled.sum() < count && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            if (handled.sum() < count) {
                return Measure.of(Double.NaN).with("error", "only " + handled.sum() + " of " + count + " handled");
            }
            run.awaitSettled(60_000);
            run.awaitSettled(CALLBACKS, 60_000);
            awaitNoMarks(run, 60_000);
            double secs = (System.nanoTime() - t0) / 1e9;
            Measure window = cpu.addTo(Measure.of(0), "window_");
            Map<String, String> stats1 = bench.resp.info("commandstats");
            Measure m = Measure.of(Double.parseDouble(window.detail().get("window_redis_cpu_s")) * 1e6 / count);
            m.detail().putAll(window.detail());
            return m.with("messages", count).with("send_s", sendSecs).with("total_s", secs)
                    .with("cmd_usec_per_msg", commandCost(stats0, stats1, count, false))
                    .with("cmd_calls_per_1000_msg", commandCost(stats0, stats1, count, true))
                    .with("consumer", "concurrency=" + consumerOptions().concurrency() + ",batchSize="
                            + consumerOptions().batchSize());
        }
    }

    /** {@code n} messages of set-completion: 100-char payloads tagged {@code tag<i>}, due at once, ids generated. */
    private static List<SendRequest> setMessages(int n, String tag) {
        List<SendRequest> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(SendRequest.of(payload(tag + i + "-"), Duration.ZERO));
        }
        return list;
    }

    private static boolean awaitCallbacks(Map<String, double[]> callbacks, int n, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (callbacks.size() < n) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(1);
        }
        return true;
    }

    /** Waits until the queue's job-set marks are all forwarded and deleted (the settler deletes them after the forward). */
    private void awaitNoMarks(Run run, long timeoutMs) throws InterruptedException {
        String key = run.prefix + ":{" + QUEUE + "}:set-marks";
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!(bench.resp.call("ZCARD", key) instanceof Long n && n == 0)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("set marks left after " + timeoutMs + " ms: " + bench.resp.call("ZCARD", key));
            }
            Thread.sleep(2);
        }
    }

    /**
     * Per command, from two readings of {@code INFO commandstats}: Redis microseconds per message ({@code calls} false)
     * or calls per 1,000 messages, as {@code cmd:value,...}, the largest first, commands that moved only. A command a
     * script runs is counted both on its own line and in the script's {@code evalsha}.
     */
    static String commandCost(Map<String, String> before, Map<String, String> after, int messages, boolean calls) {
        List<Map.Entry<String, Double>> moved = new ArrayList<>();
        for (Map.Entry<String, String> e : after.entrySet()) {
            if (!e.getKey().startsWith("cmdstat_")) {
                continue;
            }
            long[] a = stat(e.getValue());
            long[] b = stat(before.get(e.getKey()));
            double v = calls ? (a[0] - b[0]) * 1000.0 / messages : (a[1] - b[1]) / (double) messages;
            if (a[0] - b[0] > 0) {
                moved.add(Map.entry(e.getKey().substring("cmdstat_".length()), v));
            }
        }
        moved.sort((x, y) -> Double.compare(y.getValue(), x.getValue()));
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, Double> e : moved) {
            sb.append(sb.length() == 0 ? "" : ",").append(e.getKey()).append(':').append(Benchmarks.format(e.getValue()));
        }
        return sb.toString();
    }

    /** {calls, usec} of one {@code cmdstat_} line ({@code calls=N,usec=N,...}); zeros for none. */
    private static long[] stat(@Nullable String line) {
        long calls = 0;
        long usec = 0;
        if (line != null) {
            for (String part : line.split(",")) {
                if (part.startsWith("calls=")) {
                    calls = Long.parseLong(part.substring(6));
                } else if (part.startsWith("usec=")) {
                    usec = Long.parseLong(part.substring(5));
                }
            }
        }
        return new long[] {calls, usec};
    }

    @Override
    Measure bytesPerMessage(int count) throws Exception {
        try (Run run = new Run("memory")) {
            run.sender.send(QUEUE, payload("prime"), Duration.ofMillis(FAR_MS)); // keys and scripts exist before "before"
            Thread.sleep(100);
            long before = bench.usedMemory();
            run.fill(QUEUE, count, 1, null, Duration.ofMillis(FAR_MS), false);
            Thread.sleep(300);
            long after = bench.usedMemory();
            long keys = bench.resp.memoryOfKeys(run.prefix + ":*");
            return Measure.of((after - before) / (double) count).with("messages", count)
                    .with("used_memory_delta", after - before)
                    .with("memory_usage_of_keys_per_msg", keys / (double) (count + 1))
                    .with("payload_json_bytes", PAYLOAD_CHARS + 2).with("ids", "generated (16 chars)");
        }
    }

    /**
     * schedules-100k: {@code count} fixed-rate schedules of one queue, every {@code periodMs} (so all tick at the same
     * instants: every tick a burst of {@code count}), created through {@code Schedules.put} from {@code threads}
     * threads; then {@code rounds} bursts of ticks handled by one consumer running the schedules' interceptor. Value:
     * p99 lateness of the ticks (handler start less the tick instant, Redis clock); details: Redis bytes per schedule
     * (used_memory delta and MEMORY USAGE of the keys, each with its one pending tick), ticks handled twice, and the
     * put rate.
     */
    Measure schedules(int count, long periodMs, int rounds, int threads) throws Exception {
        try (Run run = new Run("schedules")) {
            Schedules producerSide = Schedules.builder(run.sender).build();
            Schedules consumerSide = Schedules.builder(run.receiver).build();
            String payload = "\"" + payload("s") + "\"";
            producerSide.put(ScheduleSpec.every(QUEUE, "prime", Duration.ofDays(1)).payloadJson("\"prime\"").build()); // keys and scripts first
            Thread.sleep(100);
            long before = bench.usedMemory();
            long putStart = System.nanoTime();
            Chunks chunks = new Chunks(count, SETUP_CHUNK);
            parallel(threads, t -> {
                for (int from = chunks.take(); from >= 0; from = chunks.take()) {
                    for (int i = from; i < chunks.end(from); i++) {
                        producerSide.put(ScheduleSpec.every(QUEUE, "customer:" + i, Duration.ofMillis(periodMs))
                                .payloadJson(payload).build());
                    }
                }
            });
            double putSeconds = (System.nanoTime() - putStart) / 1e9;
            Thread.sleep(300);
            long after = bench.usedMemory();
            long keys = bench.resp.memoryOfKeys(run.prefix + ":*");
            int total = count * rounds;
            double[] late = new double[total];
            AtomicInteger index = new AtomicInteger();
            java.util.Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
            java.util.concurrent.atomic.AtomicLong twice = new java.util.concurrent.atomic.AtomicLong();
            CountDownLatch done = new CountDownLatch(total);
            RedisClock clock = bench.clock;
            DelayQueueConsumer consumer = run.receiver.newConsumer(QUEUE, String.class, (String p, MessageContext ctx) -> {
                long tick = Long.parseLong(ctx.headers().get(Schedules.TICK_HEADER));
                double l = clock.nowMs() - tick;
                if (!seen.add(ctx.id())) {
                    twice.incrementAndGet();
                    return;
                }
                int i = index.getAndIncrement();
                if (i < total) {
                    late[i] = l;
                }
                done.countDown();
            }, consumerOptions().toBuilder().interceptors(List.of(consumerSide.interceptor())).build());
            run.consumers.add(consumer);
            consumer.start();
            if (!done.await(periodMs * (rounds + 1) / 1000 + 600, TimeUnit.SECONDS)) {
                return Measure.of(Double.NaN).with("error", "timed out with " + (total - done.getCount()) + " of "
                        + total + " ticks handled");
            }
            double[] sorted = sortedCopy(late, total);
            return Measure.of(percentile(sorted, total, 99)).with("p50_ms", percentile(sorted, total, 50))
                    .with("max_ms", sorted[total - 1]).with("ticks", total).with("schedules", count)
                    .with("period_ms", periodMs).with("handled_twice", twice.get())
                    .with("used_memory_per_schedule", (after - before) / (double) count)
                    .with("memory_usage_of_keys_per_schedule", keys / (double) (count + 1))
                    .with("put_per_s", count / putSeconds)
                    .with("consumer", "concurrency=" + consumerOptions().concurrency() + ",batchSize="
                            + consumerOptions().batchSize());
        }
    }

    @Override
    void warmUp() throws Exception {
        try (Run run = new Run("warmup")) {
            int n = 20_000;
            CountDownLatch done = new CountDownLatch(n + 2_000);
            run.start((payload, ctx) -> done.countDown());
            run.fill(QUEUE, n, 2, null, Duration.ZERO, false);
            for (int i = 0; i < 2_000; i++) {
                run.sender.send(QUEUE, payload("w-" + i), Duration.ZERO, SendOptions.id("w-" + i).replaceExisting());
            }
            done.await(60, TimeUnit.SECONDS);
            run.awaitSettled(30_000);
        }
        // the measured code paths themselves, at full size where that is cheap: until C2 has compiled
        // them, the JIT takes most of a core on 2 cores and the first scenario measures the compiler
        int threads = bench.settings.integer("threads");
        for (int i = 0; i < 2; i++) {
            burstDrain(50_000, 60);
            enqueueRate(20_000, threads);
            enqueueBatchRate(100_000, threads, 1_000);
        }
        // job sets' paths (set.lua's calls, the marks' forward, the callbacks), or set-completion's first round
        // measures their compilation
        if (bench.settings.scenarios.contains("set-completion")) {
            for (int i = 0; i < 2; i++) {
                setCompletion(20_000, 20, null);
                setPlain(20_000);
            }
        }
        // the priorities' claim (its reads of the priorities' sets and the sort), or priorities' first round measures
        // its compilation
        if (bench.settings.scenarios.contains("priorities")) {
            Priorities.warmUp(bench, consumerOptions(), 20_000);
        }
        // the observed path (Micrometer, Brave) too, or end-to-end-rate-observed measures its compilation
        if (bench.settings.scenarios.contains("end-to-end-rate-observed")) {
            for (int i = 0; i < 2; i++) {
                try (Observability observed = new Observability(bench.settings.get("observe"), bench.settings.traceSampling)) {
                    endToEnd(3, 2, 100, 20_000, observed);
                }
            }
        }
    }
}
