package io.github.delayqueue.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The floor (issue 37): the least Redis and JVM work that moving a message through a delay queue can cost, written
 * as plainly as possible with the same client (Redisson, {@code EVALSHA} with {@link StringCodec}), on the same
 * Redis, with the same payloads and batch sizes as the other sides. Three keys: a sorted set of due times, a hash of
 * bodies, a sorted set of in-flight deadlines. Three scripts:
 * <ul>
 * <li>send: {@code ZADD} of the due time and {@code HSET} of the body, variadic for a batch (the due time from the
 * JVM's estimate of the Redis clock, one per call);</li>
 * <li>claim: {@code ZRANGEBYSCORE … LIMIT}, {@code ZREM}, {@code ZADD} to the in-flight set with a deadline,
 * {@code HMGET} (and, only when nothing is due, {@code ZRANGE} of the head, so that an idle poller sleeps until
 * the first message is due instead of polling);</li>
 * <li>ack: {@code ZREM} from the in-flight set, {@code HDEL}, for every message of a claim at once.</li>
 * </ul>
 * No ids from the caller, no retries, no dead letters, no wake-ups: its consumer is {@value #POLLERS} threads that
 * claim up to {@code --batch-size} messages, call the handler on each in turn, ack them; a claim that finds
 * nothing due answers how long until the first message is, and the poller sleeps that long (at most
 * {@value #MAX_SLEEP_MS} ms; {@value #IDLE_SLEEP_MS} ms when the queue is empty). Only the throughput scenarios and the bytes per message have a floor.
 */
final class FloorSide {

    static final String NAME = "floor";

    /** Claiming threads of the floor's consumer (the box has 2 cores). */
    static final int POLLERS = 2;

    /** Sleep of a poller whose claim found the queue empty. */
    static final long IDLE_SLEEP_MS = 1;

    /** Longest sleep of a poller whose claim found messages not yet due (it sleeps until the first is due). */
    static final long MAX_SLEEP_MS = 100;

    /** Most messages per send call while filling a burst (Lua's unpack takes a few thousand values at most). */
    private static final int FILL_CHUNK = 1_000;

    private static final String SEND = """
            local z, h = {}, {}
            for i = 2, #ARGV, 2 do
              z[#z + 1] = ARGV[1]; z[#z + 1] = ARGV[i]
              h[#h + 1] = ARGV[i]; h[#h + 1] = ARGV[i + 1]
            end
            redis.call('ZADD', KEYS[1], unpack(z))
            redis.call('HSET', KEYS[2], unpack(h))
            return #h / 2
            """;

    private static final String CLAIM = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, ARGV[1])
            if #ids == 0 then
              local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
              return { head[2] and tostring(tonumber(head[2]) - now) or '-1' }
            end
            redis.call('ZREM', KEYS[1], unpack(ids))
            local deadline = now + tonumber(ARGV[2])
            local z = {}
            for _, id in ipairs(ids) do z[#z + 1] = deadline; z[#z + 1] = id end
            redis.call('ZADD', KEYS[2], unpack(z))
            local bodies = redis.call('HMGET', KEYS[3], unpack(ids))
            local out = {}
            for i, id in ipairs(ids) do out[#out + 1] = id; out[#out + 1] = bodies[i] end
            return out
            """;

    private static final String ACK = """
            redis.call('ZREM', KEYS[1], unpack(ARGV))
            return redis.call('HDEL', KEYS[2], unpack(ARGV))
            """;

    /** Lease of a claimed message (never expires in these scenarios: nothing redelivers). */
    private static final long VISIBILITY_MS = 30_000;

    private final Bench bench;
    private final RScript producerScripts;
    private final RScript consumerScripts;
    private final String send;
    private final String claim;
    private final String ack;
    private final int batchSize;

    FloorSide(Bench bench) {
        this.bench = bench;
        this.producerScripts = bench.producer.getScript(StringCodec.INSTANCE);
        this.consumerScripts = bench.consumer.getScript(StringCodec.INSTANCE);
        this.send = producerScripts.scriptLoad(SEND);
        this.claim = producerScripts.scriptLoad(CLAIM);
        this.ack = producerScripts.scriptLoad(ACK);
        this.batchSize = bench.settings.integer("batch-size");
    }

    String name() {
        return NAME;
    }

    /** One scenario's keys (one hash tag) and its consumer; {@link #close} stops it and deletes the keys. */
    private final class Run implements AutoCloseable {
        final String prefix;
        final List<Object> sendKeys;
        final List<Object> claimKeys;
        final List<Object> ackKeys;
        /** A per-run base of the 16-character ids (as long as ours). */
        private final long idBase = ThreadLocalRandom.current().nextLong() & 0x0fff_ffff_ffff_ffffL;
        private final AtomicLong nextId = new AtomicLong();
        private final List<Thread> pollers = new ArrayList<>();
        private volatile boolean stopping;
        private volatile Throwable failure;

        Run(String what) {
            prefix = Side.unique("floor-" + what);
            String tag = "{" + prefix + "}";
            sendKeys = List.of(tag + ":due", tag + ":bodies");
            claimKeys = List.of(tag + ":due", tag + ":inflight", tag + ":bodies");
            ackKeys = List.of(tag + ":inflight", tag + ":bodies");
        }

        /** Sends {@code bodies} due at {@code dueMs} (Redis clock) in one call. */
        void send(List<String> bodies, long dueMs) {
            Object[] args = new Object[1 + 2 * bodies.size()];
            args[0] = Long.toString(dueMs);
            int a = 1;
            for (String body : bodies) {
                args[a++] = String.format("%016x", idBase + nextId.incrementAndGet());
                args[a++] = body;
            }
            producerScripts.evalSha(RScript.Mode.READ_WRITE, send, RScript.ReturnType.LONG, sendKeys, args);
        }

        /** Sends {@code count} messages due at {@code dueMs}, in calls of {@value #FILL_CHUNK} from 2 threads. */
        void fill(int count, long dueMs) throws Exception {
            Side.Chunks chunks = new Side.Chunks(count, FILL_CHUNK);
            Side.parallel(2, t -> {
                for (int from = chunks.take(); from >= 0; from = chunks.take()) {
                    List<String> bodies = new ArrayList<>(FILL_CHUNK);
                    for (int i = from; i < chunks.end(from); i++) {
                        bodies.add(Side.payload("m-" + i + "-"));
                    }
                    send(bodies, dueMs);
                }
            });
        }

        long dueAfter(long delayMs) {
            return (long) bench.clock.nowMs() + delayMs;
        }

        /** Starts the consumer: every claimed body goes to {@code handler}, then the claim is acked. */
        void start(Consumer<String> handler) {
            for (int p = 0; p < POLLERS; p++) {
                Thread t = new Thread(() -> {
                    try {
                        while (!stopping) {
                            List<Object> claimed = consumerScripts.evalSha(RScript.Mode.READ_WRITE, claim,
                                    RScript.ReturnType.LIST, claimKeys, Integer.toString(batchSize),
                                    Long.toString(VISIBILITY_MS));
                            if (claimed.size() == 1) { // nothing due: milliseconds until the head is, or -1
                                long untilHead = Long.parseLong((String) claimed.get(0));
                                Thread.sleep(untilHead < 0 ? IDLE_SLEEP_MS : Math.max(1, Math.min(untilHead, MAX_SLEEP_MS)));
                                continue;
                            }
                            Object[] ids = new Object[claimed.size() / 2];
                            for (int i = 0; i < ids.length; i++) {
                                ids[i] = claimed.get(2 * i);
                                handler.accept((String) claimed.get(2 * i + 1));
                            }
                            consumerScripts.evalSha(RScript.Mode.READ_WRITE, ack, RScript.ReturnType.LONG, ackKeys, ids);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (RuntimeException | Error e) {
                        if (!stopping) {
                            failure = e;
                        }
                    }
                }, "bench-floor-poller-" + p);
                t.setDaemon(true);
                pollers.add(t);
                t.start();
            }
        }

        /** Messages still due or in flight. */
        long unsettled() {
            return bench.resp.number("ZCARD", claimKeys.get(0).toString())
                    + bench.resp.number("ZCARD", claimKeys.get(1).toString());
        }

        void check() {
            if (failure != null) {
                throw new IllegalStateException("floor consumer failed: " + failure, failure);
            }
        }

        @Override
        public void close() throws InterruptedException {
            stopping = true;
            for (Thread t : pollers) {
                t.join(10_000);
            }
            bench.producer.getKeys().delete(sendKeys.get(0).toString(), sendKeys.get(1).toString(),
                    claimKeys.get(1).toString());
        }
    }

    /** enqueue-rate-N: one message per send call from {@code threads} threads. */
    Side.Measure enqueueRate(int count, int threads) throws Exception {
        try (Run run = new Run("enqueue")) {
            AtomicInteger next = new AtomicInteger();
            Bench.CpuMeter cpu = bench.cpu();
            long t0 = System.nanoTime();
            Side.parallel(threads, t -> {
                for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                    run.send(List.of(Side.payload("m-" + i + "-")), run.dueAfter(Side.FAR_MS));
                }
            });
            double secs = (System.nanoTime() - t0) / 1e9;
            return cpu.addTo(Side.Measure.of(count / secs), "window_").with("messages", count).with("threads", threads)
                    .with("seconds", secs);
        }
    }

    /** enqueue-batch-rate: {@code batch} messages per send call from {@code threads} threads. */
    Side.Measure enqueueBatchRate(int count, int threads, int batch) throws Exception {
        try (Run run = new Run("batch")) {
            Side.Chunks chunks = new Side.Chunks(count, batch);
            Bench.CpuMeter cpu = bench.cpu();
            long t0 = System.nanoTime();
            Side.parallel(threads, t -> {
                for (int from = chunks.take(); from >= 0; from = chunks.take()) {
                    List<String> bodies = new ArrayList<>(batch);
                    for (int i = from; i < chunks.end(from); i++) {
                        bodies.add(Side.payload("m-" + i + "-"));
                    }
                    run.send(bodies, run.dueAfter(Side.FAR_MS));
                }
            });
            double secs = (System.nanoTime() - t0) / 1e9;
            return cpu.addTo(Side.Measure.of(count / secs), "window_").with("messages", count).with("threads", threads)
                    .with("batch", batch).with("seconds", secs);
        }
    }

    /**
     * burst-drain: {@code count} messages due at one instant, written before it (in calls of {@value #FILL_CHUNK}
     * from 2 threads; the due instant from a calibrated write rate, as ours), then drained; the value is the last handler start less the due instant, as the other sides'.
     */
    Side.Measure burstDrain(int count, long timeoutSeconds) throws Exception {
        double rate;
        try (Run calibration = new Run("calibration")) { // the write rate, so the due instant leaves just enough time
            int probe = Math.min(count, 20_000);
            long c0 = System.nanoTime();
            calibration.fill(probe, calibration.dueAfter(Side.FAR_MS));
            rate = probe / ((System.nanoTime() - c0) / 1e9);
        }
        try (Run run = new Run("burst")) {
            long due = run.dueAfter(Side.burstLeadMs(count, rate));
            long w0 = System.nanoTime();
            run.fill(count, due);
            double writeSeconds = (System.nanoTime() - w0) / 1e9;
            boolean writtenLate = bench.clock.nowMs() > due;
            long[] stamps = new long[count];
            AtomicInteger index = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(count);
            Bench.CpuMeter cpu = bench.cpu();
            run.start(body -> {
                int i = index.getAndIncrement();
                if (i < count) {
                    stamps[i] = System.nanoTime();
                }
                done.countDown();
            });
            long waitMs = Math.max(0, due - (long) bench.clock.nowMs());
            if (!done.await(timeoutSeconds + waitMs / 1000, TimeUnit.SECONDS)) {
                run.check();
                return Side.Measure.of(Double.NaN).with("error", "timed out with " + (count - done.getCount()) + " of "
                        + count + " handled");
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (run.unsettled() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            Side.Measure m = cpu.addTo(Side.Measure.of(Double.NaN), "");
            double[] late = new double[count];
            for (int i = 0; i < count; i++) {
                late[i] = bench.clock.redisMs(stamps[i]) - due;
            }
            java.util.Arrays.sort(late);
            Side.Measure result = new Side.Measure(late[count - 1] / 1000.0, m.detail()).with("messages", count)
                    .with("first_ms", late[0]).with("median_late_ms", Side.percentile(late, count, 50))
                    .with("drain_rate_msg_s", count / (late[count - 1] / 1000.0)).with("write_s", writeSeconds)
                    .with("consumer", "pollers=" + POLLERS + ",batchSize=" + batchSize);
            if (writtenLate) {
                result.with("warning", "writing ended after the due instant; drain time is understated");
            }
            run.check();
            return result;
        }
    }

    /**
     * redis-bytes-per-message: {@code used_memory} growth per pending message over {@code count} messages (the same
     * 100-character bodies as the other sides, 16-character ids), as {@link OursSide#bytesPerMessage}; DETAIL also has
     * {@code MEMORY USAGE} of the floor's keys per message.
     */
    Side.Measure bytesPerMessage(int count) throws Exception {
        try (Run run = new Run("memory")) {
            run.send(List.of(Side.payload("prime")), run.dueAfter(Side.FAR_MS)); // the keys and script exist before "before"
            Thread.sleep(100);
            long before = bench.usedMemory();
            run.fill(count, run.dueAfter(Side.FAR_MS));
            Thread.sleep(300);
            long after = bench.usedMemory();
            long keys = bench.resp.memoryOfKeys("{" + run.prefix + "}:*");
            return Side.Measure.of((after - before) / (double) count).with("messages", count)
                    .with("used_memory_delta", after - before)
                    .with("memory_usage_of_keys_per_msg", keys / (double) (count + 1))
                    .with("payload_bytes", Side.PAYLOAD_CHARS).with("ids", "16 chars");
        }
    }

    /** end-to-end-rate: {@code producers} threads send {@code batch} messages per call, due at once, while the consumer drains. */
    Side.Measure endToEnd(int seconds, int producers, int batch, int backlog) throws Exception {
        try (Run run = new Run("e2e")) {
            LongAdder handled = new LongAdder();
            run.start(body -> handled.increment());
            Thread.sleep(200);
            AtomicLong sent = new AtomicLong();
            Bench.CpuMeter cpu = bench.cpu();
            long t0 = System.nanoTime();
            long stopAt = t0 + TimeUnit.SECONDS.toNanos(seconds);
            Side.parallel(producers, t -> {
                int n = 0;
                while (System.nanoTime() < stopAt) {
                    if (sent.get() - handled.sum() > backlog) {
                        Thread.sleep(1);
                        continue;
                    }
                    List<String> bodies = new ArrayList<>(batch);
                    for (int i = 0; i < batch; i++) {
                        bodies.add(Side.payload("m-" + t + "-" + n++ + "-"));
                    }
                    run.send(bodies, run.dueAfter(0));
                    sent.addAndGet(batch);
                }
            });
            double sendSecs = (System.nanoTime() - t0) / 1e9;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while ((handled.sum() < sent.get() || run.unsettled() > 0) && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            run.check();
            double secs = (System.nanoTime() - t0) / 1e9;
            return cpu.addTo(Side.Measure.of(sent.get() / secs), "window_").with("sent", sent.get())
                    .with("handled_and_acked", handled.sum()).with("send_s", sendSecs).with("total_s", secs)
                    .with("producers", producers).with("send", "one script per " + batch).with("delay_ms", 0)
                    .with("consumer", "pollers=" + POLLERS + ",batchSize=" + batchSize);
        }
    }
}
