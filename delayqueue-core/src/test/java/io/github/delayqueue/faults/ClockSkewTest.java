package io.github.delayqueue.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * Issue #6, clock skew: two producers whose JVM clocks ({@link ClientOptions#clock}, the only place the engine
 * reads wall-clock time) run 7 minutes ahead and 7 minutes behind, and two competing consumers skewed the same
 * ways, exchange 400 messages. Every message is due at send time + delay on the <em>Redis</em> clock (never at
 * a producer's skewed time), none is delivered before that, and each is delivered within milliseconds of it.
 * A {@code sendAt} instant read from the Redis clock is accepted and honoured by both skewed producers.
 *
 * <p>Lateness is measured on this JVM's real clock, translated to the Redis clock by an offset measured
 * with {@code TIME} (via {@link QueueStats#serverTime()}), to within half a round trip.
 */
@ExtendWith(RedisExtension.class)
class ClockSkewTest {

    private static final Duration SKEW = Duration.ofMinutes(7);
    private static final int PER_PRODUCER = 200;

    @Test
    void skewedProducersAndConsumersDeliverAtTheRedisClockDueTime(RedisContext redis) throws Exception {
        String queue = "skew";
        DelayQueueClient ahead = client(redis, SKEW);
        DelayQueueClient behind = client(redis, SKEW.negated());
        long[] offset = redisOffset(ahead, queue); // redis clock - real clock, and its uncertainty

        Map<String, Long> dueMs = new ConcurrentHashMap<>(); // earliest possible due time, Redis clock
        Map<String, Long> dueLatestMs = new ConcurrentHashMap<>(); // latest possible due time, Redis clock
        Map<String, Long> handledRedisMs = new ConcurrentHashMap<>(); // arrival, translated to the Redis clock
        Map<String, Long> contextDueMs = new ConcurrentHashMap<>();
        AtomicInteger deliveries = new AtomicInteger();
        List<DelayQueueConsumer> consumers = new ArrayList<>();
        for (DelayQueueClient c : List.of(ahead, behind)) {
            consumers.add(c.newConsumer(queue, String.class, (payload, context) -> {
                handledRedisMs.putIfAbsent(context.id(), System.currentTimeMillis() + offset[0]);
                contextDueMs.put(context.id(), context.dueAt().toEpochMilli());
                deliveries.incrementAndGet();
            }, ConsumerOptions.builder().concurrency(8).build()));
        }
        consumers.forEach(DelayQueueConsumer::start);
        try {
            long sendStartReal = System.currentTimeMillis();
            for (int i = 0; i < PER_PRODUCER; i++) {
                for (DelayQueueClient producer : List.of(ahead, behind)) {
                    String id = (producer == ahead ? "ahead-" : "behind-") + i;
                    long delay = 200 + ThreadLocalRandom.current().nextLong(1_300);
                    long before = System.currentTimeMillis();
                    producer.send(queue, "skewed " + id, Duration.ofMillis(delay), SendOptions.id(id));
                    long after = System.currentTimeMillis();
                    dueMs.put(id, before + offset[0] + delay); // Redis ran the script within [before, after]
                    dueLatestMs.put(id, after + offset[0] + delay);
                }
            }
            // sendAt with an instant taken from the Redis clock, 1 s out: accepted by both skewed producers
            Instant redisNow = ahead.stats(queue).serverTime();
            ahead.sendAt(queue, "at", redisNow.plusSeconds(1), SendOptions.id("at-ahead"));
            behind.sendAt(queue, "at", redisNow.plusSeconds(1), SendOptions.id("at-behind"));
            for (String id : List.of("at-ahead", "at-behind")) {
                dueMs.put(id, redisNow.plusSeconds(1).toEpochMilli());
                dueLatestMs.put(id, redisNow.plusSeconds(1).toEpochMilli());
            }
            long sendMs = System.currentTimeMillis() - sendStartReal;

            int total = dueMs.size();
            await("all delivered").atMost(Duration.ofSeconds(20)).until(() -> handledRedisMs.size() == total);
            await("queue drained").atMost(Duration.ofSeconds(5)).until(() -> {
                QueueStats s = ahead.stats(queue);
                return s.pending() == 0 && s.inFlight() == 0;
            });

            long worstDueError = 0; // how far a due time lies outside [send began, send returned] + delay
            List<Long> lateness = new ArrayList<>();
            for (String id : dueMs.keySet()) {
                long due = contextDueMs.get(id);
                long error = Math.max(dueMs.get(id) - due, due - dueLatestMs.get(id));
                worstDueError = Math.max(worstDueError, Math.max(0, error - offset[1]));
                lateness.add(handledRedisMs.get(id) - due);
            }
            lateness.sort(null);
            long early = lateness.stream().filter(ms -> ms < -offset[1]).count();
            long p50 = lateness.get(lateness.size() / 2);
            long p99 = lateness.get((int) (lateness.size() * 0.99));
            long max = lateness.get(lateness.size() - 1);
            FaultSupport.report("clock-skew", total, handledRedisMs.size(), total - handledRedisMs.size(),
                    deliveries.get() - handledRedisMs.size(), 0,
                    "skew=+-" + SKEW.toMinutes() + "min(producers_and_consumers) early=" + early + " late_ms_p50=" + p50
                            + " late_ms_p99=" + p99 + " late_ms_max=" + max + " due_outside_send_window_ms_max=" + worstDueError
                            + " redis_offset_ms=" + offset[0] + "+-" + offset[1] + " send_ms=" + sendMs);

            assertThat(worstDueError).as("due time = Redis clock at the send + delay, not a clock %s off", SKEW)
                    .isLessThan(50);
            assertThat(early).as("deliveries before the Redis-clock due time").isZero();
            // The skew is minutes; these bounds are two orders of magnitude below it, and loose enough
            // for a loaded 2-core CI machine (a 250 ms p99 bound failed once at load average 7).
            // The measured figures are in the FAULT line above, not in these bounds.
            assertThat(p99).as("late by a moment, not by the skew").isLessThan(2_000);
            assertThat(max).isLessThan(5_000);
            assertThat(deliveries.get()).isEqualTo(total);
        } finally {
            consumers.forEach(DelayQueueConsumer::stop);
        }
    }

    private static DelayQueueClient client(RedisContext redis, Duration skew) {
        return DelayQueueClient.create(redis.redisson(), ClientOptions.builder().keyPrefix(redis.prefix())
                .clock(Clock.offset(Clock.systemUTC(), skew)).build());
    }

    /** {Redis clock minus this JVM's clock in ms, uncertainty in ms}, from the sample with the shortest round trip. */
    private static long[] redisOffset(DelayQueueClient client, String queue) {
        long bestRtt = Long.MAX_VALUE;
        long bestOffset = 0;
        for (int i = 0; i < 20; i++) {
            long before = System.currentTimeMillis();
            long server = client.stats(queue).serverTime().toEpochMilli();
            long after = System.currentTimeMillis();
            if (after - before < bestRtt) {
                bestRtt = after - before;
                bestOffset = server - (before + after) / 2;
            }
        }
        return new long[] {bestOffset, bestRtt / 2 + 2};
    }
}
