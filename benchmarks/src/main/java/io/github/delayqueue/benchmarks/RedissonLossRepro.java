package io.github.delayqueue.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import org.redisson.Redisson;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.SendRequest;

/**
 * Counts what a burst of delayed messages becomes: sent, handled, left in the queue's keys, and lost (sent, not
 * handled, in no key). Written for issue 37's "Redisson's drain loses messages under load":
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.github.delayqueue.benchmarks.RedissonLossRepro [mode] [key=value ...]
 *   mode burst   (default) Redisson's RDelayedQueue as the harness uses it: count messages due at one instant,
 *                consumers threads looping on RBlockingQueue.poll(poll-seconds)
 *   mode stall   the mechanism alone, deterministic: one poll(1 s) while Redis is busy for stall-ms with a script
 *                that pushes one element at its end (take=true: take() instead, which Redisson gives no timer)
 *   mode ours    the same burst through our engine (DelayQueueClient, a consumer of concurrency consumers)
 *   mode ours-stall  the stall through our engine: one message falls due while Redis is busy for stall-ms, its
 *                claim's reply comes after the client's 3 s timeout (Redisson's default)
 *   url=redis://host:port (default DELAYQUEUE_REDIS_URL, else an embedded Redis), count=50000, consumers=8,
 *   poll-seconds=1, stall-ms=4500, runs=1
 * </pre>
 * Keys use a fresh name and are deleted at the end, so the machine's shared Redis may be used. One line per run.
 */
public final class RedissonLossRepro {

    private RedissonLossRepro() {
    }

    public static void main(String[] args) throws Exception {
        String mode = "burst";
        Map<String, String> opts = new LinkedHashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq < 0) {
                mode = arg;
            } else {
                opts.put(arg.substring(0, eq).replaceFirst("^--", ""), arg.substring(eq + 1));
            }
        }
        String configured = opts.getOrDefault("url", System.getenv("DELAYQUEUE_REDIS_URL"));
        int runs = Integer.parseInt(opts.getOrDefault("runs", "1"));
        EmbeddedRedis embedded = configured == null || configured.isBlank() || configured.equals("embedded") ? new EmbeddedRedis() : null;
        String url = embedded != null ? embedded.url() : configured;
        try {
            for (int r = 0; r < runs; r++) {
                switch (mode) {
                    case "burst" -> redissonBurst(url, opts, embedded != null);
                    case "stall" -> stall(url, opts);
                    case "ours" -> oursBurst(url, opts);
                    case "ours-stall" -> oursStall(url, opts);
                    default -> throw new IllegalArgumentException("unknown mode " + mode + " (burst, stall, ours or ours-stall)");
                }
            }
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    /** A client set up as the benchmark harness's ({@link Bench#client}): 30 s command timeout. */
    static RedissonClient client(String url, int blocking) {
        Config config = new Config();
        config.setThreads(4);
        config.setNettyThreads(8);
        config.useSingleServer().setAddress(url).setConnectionMinimumIdleSize(4)
                .setConnectionPoolSize(Math.max(32, 2 * (blocking + 32))).setSubscriptionConnectionMinimumIdleSize(1)
                .setTimeout(30_000);
        return Redisson.create(config);
    }

    private static String where(String url) {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return "redis=" + url + " load1=" + String.format("%.1f", load);
    }

    /** Sent, handled (distinct), handled twice, polls that returned null only after popTimeout + 3 s. */
    private static final class Tally {
        final Set<String> seen = ConcurrentHashMap.newKeySet();
        final LongAdder twice = new LongAdder();
        final LongAdder polls = new LongAdder();
        final LongAdder lateNulls = new LongAdder();
        final LongAdder earlyNulls = new LongAdder();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final LongAdder errors = new LongAdder();

        void handled(String value) {
            if (!seen.add(value)) {
                twice.increment();
            }
        }
    }

    static void redissonBurst(String url, Map<String, String> opts, boolean embedded) throws Exception {
        int count = Integer.parseInt(opts.getOrDefault("count", "50000"));
        int consumers = Integer.parseInt(opts.getOrDefault("consumers", "8"));
        int pollSeconds = Integer.parseInt(opts.getOrDefault("poll-seconds", "1"));
        RedissonClient producer = client(url, consumers);
        RedissonClient consumer = client(url, consumers);
        Resp resp = new Resp(url);
        String name = "loss-repro-" + UUID.randomUUID().toString().substring(0, 8);
        String timeoutSet = "redisson_delay_queue_timeout:{" + name + "}";
        String queueList = "redisson_delay_queue:{" + name + "}";
        @SuppressWarnings("deprecation")
        RDelayedQueue<String> delayed = producer.getDelayedQueue(producer.<String>getBlockingQueue(name, StringCodec.INSTANCE));
        List<Thread> threads = new ArrayList<>();
        Tally tally = new Tally();
        RDelayedQueue<String> consumerDelayed = null;
        stopping = false;
        try {
            // all due at one instant, after the writing ends if it keeps 10,000 offers a second (reported when it does not)
            long dueLocalMs = System.currentTimeMillis() + 3_000 + count / 10;
            Semaphore window = new Semaphore(1_000);
            AtomicReference<Throwable> offerError = new AtomicReference<>();
            for (int i = 0; i < count; i++) {
                window.acquire();
                long delay = Math.max(0, dueLocalMs - System.currentTimeMillis());
                delayed.offerAsync(Side.payload("m-" + i + "-"), delay, TimeUnit.MILLISECONDS).whenComplete((v, e) -> {
                    if (e != null) {
                        offerError.compareAndSet(null, e);
                    }
                    window.release();
                });
            }
            window.acquire(1_000);
            if (offerError.get() != null) {
                throw new IllegalStateException("an offer failed, nothing counted: " + offerError.get(), offerError.get());
            }
            long writtenLate = Math.max(0, System.currentTimeMillis() - dueLocalMs);
            if (embedded) {
                resp.call("CONFIG", "SET", "slowlog-max-len", "100000");
            }
            Map<String, Double> before = redisStats(resp);

            // the consumer application: its delayed queue (Redisson's transfer task) and the poll threads
            RBlockingQueue<String> target = consumer.getBlockingQueue(name, StringCodec.INSTANCE);
            consumerDelayed = deprecatedDelayed(consumer, target);
            long lateNullMs = (pollSeconds + 3) * 1000L - 50; // Redisson's "connection lost" timer: popTimeout + 3000 ms
            for (int t = 0; t < consumers; t++) {
                Thread thread = new Thread(() -> {
                    while (!stopping) {
                        long p0 = System.nanoTime();
                        try {
                            String value = target.poll(pollSeconds, TimeUnit.SECONDS);
                            tally.polls.increment();
                            if (value != null) {
                                tally.handled(value);
                            } else if ((System.nanoTime() - p0) / 1_000_000 >= lateNullMs) {
                                tally.lateNulls.increment();
                            } else if ((System.nanoTime() - p0) / 1_000_000 < pollSeconds * 1000L - 50) {
                                tally.earlyNulls.increment(); // sooner than Redis's own timeout: not a reply of Redis
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        } catch (RuntimeException e) {
                            if (!stopping) {
                                tally.errors.increment();
                                tally.error.compareAndSet(null, e);
                            }
                        }
                    }
                }, "loss-repro-consumer-" + t);
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }

            // until every message is handled, or nothing moved for 30 s with the three keys empty (or 20 minutes)
            long started = System.nanoTime();
            long lastChange = started;
            int last = -1;
            long zcard;
            long queued;
            long ready;
            while (true) {
                Thread.sleep(1_000);
                int handled = tally.seen.size();
                zcard = resp.number("ZCARD", timeoutSet);
                queued = resp.number("LLEN", queueList);
                ready = resp.number("LLEN", name);
                if (handled != last) {
                    last = handled;
                    lastChange = System.nanoTime();
                }
                boolean empty = zcard == 0 && queued == 0 && ready == 0;
                if (handled == count || (empty && System.nanoTime() - lastChange > TimeUnit.SECONDS.toNanos(30))
                        || System.nanoTime() - started > TimeUnit.MINUTES.toNanos(20)) {
                    break;
                }
            }
            double drainS = (System.nanoTime() - started) / 1e9;
            Map<String, Double> after = redisStats(resp);
            long handled = tally.seen.size();
            long lost = count - handled - zcard - ready;
            System.out.printf("REDISSON-BURST sent=%d handled=%d handled_twice=%d left_timeout_zset=%d left_queue_list=%d "
                    + "left_target_list=%d lost=%d polls=%d polls_null_after_%ds=%d polls_null_before_%ds=%d redis_connections_opened=%.0f "
                    + "slowest_logged_command=%s consumer_error=%s consumers=%d poll_s=%d writing_ended_after_due_ms=%d run_s=%.1f redis_cpu_s=%.1f %s%n",
                    count, handled, tally.twice.sum(), zcard, queued, ready, lost, tally.polls.sum(), pollSeconds + 3,
                    tally.lateNulls.sum(), pollSeconds, tally.earlyNulls.sum(), after.get("total_connections_received") - before.get("total_connections_received"),
                    slowest(resp, name), tally.error.get() == null ? "none"
                            : tally.errors.sum() + "x_" + tally.error.get().getClass().getSimpleName() + "(\"" + firstWords(tally.error.get()) + "\")",
                    consumers, pollSeconds,
                    writtenLate, drainS, after.get("cpu") - before.get("cpu"), where(url));
        } finally {
            stopping = true;
            for (Thread t : threads) {
                t.join(10_000);
            }
            delayed.destroy();
            if (consumerDelayed != null) {
                consumerDelayed.destroy();
            }
            producer.getKeys().unlink(name, timeoutSet, queueList);
            producer.shutdown();
            consumer.shutdown();
            resp.close();
        }
    }

    /** Tells the poll threads of {@link #redissonBurst} to end. */
    private static volatile boolean stopping;

    /** The start of an exception's message, for one line of output. */
    private static String firstWords(Throwable e) {
        String message = String.valueOf(e.getMessage());
        return message.substring(0, Math.min(60, message.length())).replace(' ', '_');
    }

    @SuppressWarnings("deprecation")
    private static RDelayedQueue<String> deprecatedDelayed(RedissonClient client, RBlockingQueue<String> target) {
        return client.getDelayedQueue(target);
    }

    /**
     * The mechanism alone: a poll(1 s) is blocked on an empty list; Redis then runs one script for {@code stall-ms}
     * that pushes an element at its end (as the delayed queue's transfer script does). Redis hands the element to
     * the blocked BLPOP and writes the reply; Redisson has already completed the poll with null 4 s after writing
     * it ({@code RedisExecutor.handleBlockingOperations}: popTimeout + 3000 ms) and closed the connection.
     */
    static void stall(String url, Map<String, String> opts) throws Exception {
        long stallMs = Long.parseLong(opts.getOrDefault("stall-ms", "4500"));
        boolean take = Boolean.parseBoolean(opts.getOrDefault("take", "false"));
        RedissonClient consumer = client(url, 1);
        Resp resp = new Resp(url);
        String name = "loss-repro-stall-" + UUID.randomUUID().toString().substring(0, 8);
        try {
            RBlockingQueue<String> target = consumer.getBlockingQueue(name, StringCodec.INSTANCE);
            double blockedBefore = info(resp, "clients").get("blocked_clients");
            AtomicReference<String> polled = new AtomicReference<>("(not returned)");
            long[] pollMs = new long[1];
            Thread poller = new Thread(() -> {
                long p0 = System.nanoTime();
                try {
                    polled.set(String.valueOf(take ? target.take() : target.poll(1, TimeUnit.SECONDS)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                pollMs[0] = (System.nanoTime() - p0) / 1_000_000;
            }, "loss-repro-stall-poller");
            poller.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (info(resp, "clients").get("blocked_clients") <= blockedBefore) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the poll never blocked in Redis");
                }
                Thread.sleep(1);
            }
            // busy for stallMs, then push: what a long transfer script (or a slow Redis) does
            busyThenPush(resp, stallMs, name, "the-element");
            poller.join(30_000);
            long left = resp.number("LLEN", name);
            System.out.printf("REDISSON-STALL pushed=1 call=%s returned=%s call_ms=%d left_in_list=%d lost=%d stall_ms=%d %s%n",
                    take ? "take()" : "poll(1s)", polled.get(), pollMs[0], left, polled.get().equals("null") && left == 0 ? 1 : 0, stallMs, where(url));
        } finally {
            consumer.getKeys().unlink(name);
            consumer.shutdown();
            resp.close();
        }
    }

    /** Runs a script that keeps Redis busy for {@code stallMs}, then pushes {@code element} to {@code list} (if not null). */
    private static void busyThenPush(Resp resp, long stallMs, String list, @org.jspecify.annotations.Nullable String element) {
        resp.call("EVAL", "local t = redis.call('TIME'); local until_us = (t[1] * 1000000 + t[2]) + tonumber(ARGV[1]) * 1000; "
                + "repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] >= until_us; "
                + "if ARGV[2] ~= '' then return redis.call('RPUSH', KEYS[1], ARGV[2]) end return 0", "1", list,
                String.valueOf(stallMs), element == null ? "" : element);
    }

    /**
     * The stall through our engine: one message falls due while Redis runs a script for {@code stall-ms}; the
     * consumer's claim waits behind it and its reply comes after the client's timeout (3 s, Redisson's default), so
     * the claim ran but its envelope never reached the consumer. The message is in flight with a lease (2 s here):
     * when the lease expires a later claim hands it out again. Prints whether it was delivered, and how often.
     */
    static void oursStall(String url, Map<String, String> opts) throws Exception {
        long stallMs = Long.parseLong(opts.getOrDefault("stall-ms", "4500"));
        Config config = new Config();
        config.useSingleServer().setAddress(url).setTimeout(3_000);
        RedissonClient redisson = Redisson.create(config);
        Resp resp = new Resp(url);
        String prefix = "loss-repro-ours-stall-" + UUID.randomUUID().toString().substring(0, 8);
        DelayQueueClient client = DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix(prefix).build());
        Tally tally = new Tally();
        LongAdder deliveries = new LongAdder();
        AtomicReference<Instant> firstDelivery = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicInteger attempt = new java.util.concurrent.atomic.AtomicInteger();
        DelayQueueConsumer c = client.newConsumer("stall", String.class, (payload, ctx) -> {
            deliveries.increment();
            attempt.set(ctx.attempt());
            firstDelivery.compareAndSet(null, Instant.now());
            tally.handled(payload);
        }, ConsumerOptions.builder().visibilityTimeout(Duration.ofSeconds(2)).build());
        try {
            c.start();
            Instant due = client.stats("stall").serverTime().plusMillis(500);
            client.sendAt("stall", "the-message", due);
            long lead = Duration.between(client.stats("stall").serverTime(), due).toMillis() - 100;
            Thread.sleep(Math.max(0, lead));
            busyThenPush(resp, stallMs, prefix + ":stall-marker", null); // the claim at the due time waits behind it
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (tally.seen.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            Thread.sleep(3_000); // a second delivery would show by now
            c.stop();
            QueueStats stats = client.stats("stall");
            System.out.printf("OURS-STALL sent=1 delivered=%d deliveries=%d attempt_of_the_delivery=%d left_pending=%d left_in_flight=%d lost=%d "
                    + "first_delivery_after_due_ms=%s stall_ms=%d client_timeout_ms=3000 lease_ms=2000 %s%n",
                    tally.seen.size(), deliveries.sum(), attempt.get(), stats.pending(), stats.inFlight(),
                    1 - tally.seen.size() - stats.pending() - stats.inFlight(),
                    firstDelivery.get() == null ? "never" : String.valueOf(Duration.between(due, firstDelivery.get()).toMillis()),
                    stallMs, where(url));
        } finally {
            c.stop();
            redisson.getKeys().unlinkByPattern(prefix + ":*");
            redisson.shutdown();
            resp.close();
        }
    }

    /** The same burst through our engine: sent, handled, pending and in flight at the end, lost. */
    static void oursBurst(String url, Map<String, String> opts) throws Exception {
        int count = Integer.parseInt(opts.getOrDefault("count", "50000"));
        int concurrency = Integer.parseInt(opts.getOrDefault("concurrency", "256"));
        RedissonClient producer = client(url, 8);
        RedissonClient consumer = client(url, 8);
        Resp resp = new Resp(url);
        String prefix = "loss-repro-ours-" + UUID.randomUUID().toString().substring(0, 8);
        ClientOptions options = ClientOptions.builder().keyPrefix(prefix).maxBatchSize(100_000).build();
        DelayQueueClient sender = DelayQueueClient.create(producer, options);
        DelayQueueClient receiver = DelayQueueClient.create(consumer, options);
        Tally tally = new Tally();
        DelayQueueConsumer c = null;
        try {
            Instant due = sender.stats("burst").serverTime().plusMillis(3_000 + count / 20);
            for (int from = 0; from < count; from += 1_000) {
                List<SendRequest> batch = new ArrayList<>(1_000);
                for (int i = from; i < Math.min(count, from + 1_000); i++) {
                    batch.add(SendRequest.at(Side.payload("m-" + i + "-"), due));
                }
                sender.sendAll("burst", batch);
            }
            Instant written = sender.stats("burst").serverTime();
            Map<String, Double> before = redisStats(resp);
            c = receiver.newConsumer("burst", String.class, (payload, ctx) -> tally.handled(payload),
                    ConsumerOptions.builder().concurrency(concurrency).batchSize(256).build());
            c.start();
            long started = System.nanoTime();
            long lastChange = started;
            int last = -1;
            QueueStats stats;
            while (true) {
                Thread.sleep(1_000);
                int handled = tally.seen.size();
                stats = sender.stats("burst");
                if (handled != last) {
                    last = handled;
                    lastChange = System.nanoTime();
                }
                if ((handled == count && stats.inFlight() == 0)
                        || System.nanoTime() - lastChange > TimeUnit.SECONDS.toNanos(30)) {
                    break;
                }
            }
            c.stop();
            Thread.sleep(1_000); // a late second delivery would show by now
            stats = sender.stats("burst");
            double runS = (System.nanoTime() - started) / 1e9;
            Map<String, Double> after = redisStats(resp);
            long handled = tally.seen.size();
            System.out.printf("OURS-BURST sent=%d handled=%d handled_twice=%d left_pending=%d left_in_flight=%d dead=%d lost=%d "
                    + "concurrency=%d writing_ended_after_due_ms=%d run_s=%.1f redis_cpu_s=%.1f %s%n",
                    count, handled, tally.twice.sum(), stats.pending(), stats.inFlight(), stats.dead(),
                    count - handled - stats.pending() - stats.inFlight() - stats.dead(), concurrency,
                    Math.max(0, Duration.between(due, written).toMillis()), runS, after.get("cpu") - before.get("cpu"), where(url));
        } finally {
            if (c != null) {
                c.stop();
            }
            producer.getKeys().unlinkByPattern(prefix + ":*");
            producer.shutdown();
            consumer.shutdown();
            resp.close();
        }
    }

    /**
     * The longest commands Redis logged that touched {@code name} (SLOWLOG, over 10 ms by default): the delayed queue's
     * transfer script among them. Returns "max_ms/count(kind)", kind the slowest's command and, for a script, whether it
     * is the transfer script.
     */
    private static String slowest(Resp resp, String name) {
        double max = 0;
        int n = 0;
        String kind = "none";
        for (Object entry : (List<?>) resp.call("SLOWLOG", "GET", "100000")) {
            List<?> e = (List<?>) entry;
            String args = String.valueOf(e.get(3));
            if (args.contains(name)) {
                n++;
                double ms = ((Long) e.get(2)) / 1000.0;
                if (ms > max) {
                    max = ms;
                    List<?> argv = (List<?>) e.get(3);
                    // the transfer script has 3 keys (the offer's 4): see RedissonDelayedQueue
                    kind = argv.get(0) + (argv.size() > 2 && "3".equals(String.valueOf(argv.get(2))) ? "-transfer" : "");
                }
            }
        }
        return String.format("%.0fms/%d(%s)", max, n, kind);
    }

    private static Map<String, Double> redisStats(Resp resp) {
        Map<String, Double> stats = new LinkedHashMap<>(info(resp, "stats"));
        Map<String, Double> cpu = info(resp, "cpu");
        stats.put("cpu", cpu.get("used_cpu_sys") + cpu.get("used_cpu_user"));
        return stats;
    }

    private static Map<String, Double> info(Resp resp, String section) {
        Map<String, Double> values = new LinkedHashMap<>();
        resp.info(section).forEach((k, v) -> {
            try {
                values.put(k, Double.parseDouble(v));
            } catch (NumberFormatException e) {
                // a text field
            }
        });
        return values;
    }
}
