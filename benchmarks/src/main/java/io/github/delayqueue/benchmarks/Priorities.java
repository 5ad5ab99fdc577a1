package io.github.delayqueue.benchmarks;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;

/**
 * {@code priorities} (only when named): a backlog of {@code count} messages, all due (due times spread evenly over
 * the {@link #SPREAD_MS} before the send, so every one is due when it is written), sent with {@code sendAll} (calls of
 * 5,000 from 2 threads) before the consumer starts, then drained by the usual consumer (the run's
 * {@code --concurrency} and {@code --batch-size}, the default priority aging of a minute a level, a no-op handler).
 * Each message has a level from 0 to 9, drawn from a seeded generator, one in ten of each ({@link #levels}: the same
 * levels on both sides, in every round); {@code prioritized} sends each with {@code SendOptions.priority(level)},
 * otherwise every message is sent without one (the queue's default, 4) and the level is only in the payload. The
 * spread is shorter than a level's aging, so with priorities a claim takes the levels strictly from 9 down; without,
 * due order, where the level-9 messages are spread through the backlog.
 *
 * <p>Value: messages per second from the consumer's start until every message is acknowledged. DETAIL:
 * {@code last_high_s}, the seconds from the consumer's start until the last level-9 message's handler starts, and
 * {@code last_high_at}, how many messages had been handed to the handler by then; {@code write_s} (the sends), the
 * Redis and JVM CPU of the drain ({@code window_*_cpu_s}), and {@code INFO commandstats} deltas over the drain
 * ({@code cmd_usec_per_msg}, {@code cmd_calls_per_1000_msg}: a command a script runs counts on its own line and in
 * {@code evalsha}).
 */
final class Priorities {

    /** The backlog's due times: evenly over this long before the send, shorter than a level's default aging (1 min). */
    static final long SPREAD_MS = 50_000;

    /** The level that counts as high: the figure is when its last message is handled. */
    static final int HIGH = 9;

    private static final String QUEUE = "q";
    private static final int CHUNK = 5_000;

    private Priorities() {
    }

    /** The level of each of {@code count} messages: 0 to 9, one in ten each, from a fixed seed. */
    static int[] levels(int count) {
        int[] levels = new int[count];
        SplittableRandom random = new SplittableRandom(20_261_130L);
        for (int i = 0; i < count; i++) {
            levels[i] = random.nextInt(10);
        }
        return levels;
    }

    /**
     * Two untimed rounds of both sides, of {@code count} messages each: until C2 has compiled the paths a drain takes,
     * the first round measures the compiler (a first round without a warm-up used four times the JVM CPU per message of
     * the next ones).
     */
    static void warmUp(Bench bench, ConsumerOptions consumerOptions, int count) throws Exception {
        for (int i = 0; i < 2; i++) {
            measure(bench, consumerOptions, count, true, 60);
            measure(bench, consumerOptions, count, false, 60);
        }
    }

    static Side.Measure measure(Bench bench, ConsumerOptions consumerOptions, int count, boolean prioritized,
            long timeoutSeconds) throws Exception {
        String prefix = Side.unique(prioritized ? "prio" : "noprio");
        ClientOptions options = ClientOptions.builder().keyPrefix(prefix).maxBatchSize(100_000).build();
        DelayQueueClient sender = DelayQueueClient.create(bench.producer, options);
        DelayQueueClient receiver = DelayQueueClient.create(bench.consumer, options);
        DelayQueueConsumer consumer = null;
        try {
            int[] levels = levels(count);
            int high = 0;
            for (int level : levels) {
                high += level == HIGH ? 1 : 0;
            }
            // due from SPREAD_MS before now to now, in index order: all due when written
            Instant base = sender.stats(QUEUE).serverTime().minusMillis(SPREAD_MS);
            List<SendRequest> requests = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                SendOptions send = prioritized ? SendOptions.none().priority(levels[i]) : SendOptions.none();
                requests.add(SendRequest.at(Side.payload("p" + levels[i] + "-" + i + "-"),
                        base.plusMillis(i * SPREAD_MS / count), send));
            }
            Side.Chunks chunks = new Side.Chunks(count, CHUNK);
            long w0 = System.nanoTime();
            Side.parallel(2, t -> {
                for (int from = chunks.take(); from >= 0; from = chunks.take()) {
                    sender.sendAll(QUEUE, requests.subList(from, chunks.end(from)));
                }
            });
            double writeSeconds = (System.nanoTime() - w0) / 1e9;
            requests.clear();

            AtomicInteger handled = new AtomicInteger();
            AtomicInteger highHandled = new AtomicInteger();
            AtomicLong lastHigh = new AtomicLong();
            AtomicInteger lastHighAt = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(count);
            int highCount = high;
            Map<String, String> stats0 = bench.resp.info("commandstats");
            Bench.CpuMeter cpu = bench.cpu();
            long t0 = System.nanoTime();
            consumer = receiver.newConsumer(QUEUE, String.class, (payload, ctx) -> {
                int at = handled.incrementAndGet();
                if (payload.charAt(1) == '0' + HIGH && payload.charAt(2) == '-'
                        && highHandled.incrementAndGet() == highCount) {
                    lastHigh.set(System.nanoTime());
                    lastHighAt.set(at);
                }
                done.countDown();
            }, consumerOptions);
            consumer.start();
            if (!done.await(timeoutSeconds, TimeUnit.SECONDS)) {
                return Side.Measure.of(Double.NaN).with("error", "timed out with " + (count - done.getCount()) + " of "
                        + count + " handled");
            }
            long allHandled = System.nanoTime();
            Instant settled = awaitSettled(sender, 60_000);
            Side.Measure window = cpu.addTo(Side.Measure.of(0), "window_");
            Map<String, String> stats1 = bench.resp.info("commandstats");
            double drainSeconds = (settled.toEpochMilli() - bench.clock.redisMs(t0)) / 1000.0;
            Side.Measure m = Side.Measure.of(count / drainSeconds);
            m.with("priorities", prioritized).with("messages", count).with("high", highCount)
                    .with("last_high_s", (lastHigh.get() - t0) / 1e9).with("last_high_at", lastHighAt.get())
                    .with("all_handled_s", (allHandled - t0) / 1e9).with("all_acked_s", drainSeconds)
                    .with("write_s", writeSeconds);
            m.detail().putAll(window.detail());
            return m.with("cmd_usec_per_msg", OursSide.commandCost(stats0, stats1, count, false))
                    .with("cmd_calls_per_1000_msg", OursSide.commandCost(stats0, stats1, count, true))
                    .with("consumer", "concurrency=" + consumerOptions.concurrency() + ",batchSize="
                            + consumerOptions.batchSize() + ",priorityAging=" + consumerOptions.priorityAging()
                            + ",strictPriority=" + consumerOptions.strictPriority());
        } finally {
            if (consumer != null) {
                consumer.stop();
            }
            bench.producer.getKeys().unlinkByPattern(prefix + ":*");
        }
    }

    /** Waits until nothing of the queue is pending or in flight; returns the Redis time then. */
    private static Instant awaitSettled(DelayQueueClient client, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            QueueStats stats = client.stats(QUEUE);
            if (stats.pending() == 0 && stats.inFlight() == 0) {
                return stats.serverTime();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("queue not settled after " + timeoutMs + " ms: " + stats);
            }
            Thread.sleep(2);
        }
    }
}
