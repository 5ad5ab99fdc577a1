package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.activity.ActivityMinute;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * A queue's activity per minute ({@link DelayQueueClient#activity}): counted by each client, added to Redis by its
 * flush, summed over the clients; the lateness of the handlers started; counts kept over a failed flush; the opt-out.
 */
@ExtendWith(RedisExtension.class)
class ActivityTest {

    private static final Duration BOUND = Duration.ofSeconds(20);
    /** Two attempts: a failing message is retried once, then dead-lettered. */
    private static final RetryPolicy TWICE = new RetryPolicy(2, Duration.ofMillis(10), 1, Duration.ofMillis(10), 0);

    private final RedisContext redis;
    private final List<DelayQueueConsumer> consumers = new CopyOnWriteArrayList<>();

    ActivityTest(RedisContext redis) {
        this.redis = redis;
    }

    @AfterEach
    void tearDown() {
        consumers.forEach(DelayQueueConsumer::stop);
    }

    private DelayQueueClient client(boolean activity, DelayQueueListener listener) {
        return DelayQueueClient.create(redis.redisson(), ClientOptions.builder().keyPrefix(redis.prefix())
                .activity(activity).listener(listener).build());
    }

    /** A consumer whose handler fails the payloads that start with "fail". */
    private DelayQueueConsumer start(DelayQueueClient client, String queue) {
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            if (payload.startsWith("fail")) {
                throw new IllegalStateException("fails on purpose");
            }
        }, ConsumerOptions.builder().retry(TWICE).maxPollInterval(Duration.ofMillis(100)).build());
        consumers.add(consumer);
        consumer.start();
        return consumer;
    }

    private static void sendAll(DelayQueueClient client, String queue, String... payloads) {
        for (String payload : payloads) {
            client.send(queue, payload, Duration.ZERO);
        }
    }

    private static void awaitSettled(DelayQueueClient client, String queue, long dead) {
        await().atMost(BOUND).until(() -> {
            QueueStats stats = client.stats(queue);
            return stats.pending() == 0 && stats.inFlight() == 0 && stats.dead() == dead;
        });
    }

    /** The sums over the minutes: handled, retried, dead, started, lateness sum (ms); and the largest lateness (ms). */
    private static long[] totals(List<ActivityMinute> minutes) {
        long[] sums = new long[6];
        for (ActivityMinute m : minutes) {
            sums[0] += m.handled();
            sums[1] += m.retried();
            sums[2] += m.deadLettered();
            sums[3] += m.started();
            sums[4] += m.latenessSum().toMillis();
            sums[5] = Math.max(sums[5], m.maxLateness().toMillis());
        }
        return sums;
    }

    @Test
    void messagesOfTwoClientsOnOneQueueAreSummedPerMinuteOfTheRedisClock() {
        String queue = "activity-sum";
        DelayQueueClient first = client(true, DelayQueueListener.NONE);
        DelayQueueClient second = client(true, DelayQueueListener.NONE);
        Instant startMinute = first.activity(queue).get(59).minute();

        DelayQueueConsumer consumer = start(first, queue);
        sendAll(first, queue, "a", "b", "c", "fail-1");
        awaitSettled(first, queue, 1);
        consumer.stop(); // the last consumer's stop flushes the client's counts
        assertThat(totals(first.activity(queue))).startsWith(3, 1, 1, 5);

        start(second, queue);
        sendAll(second, queue, "d", "e", "fail-2");
        awaitSettled(second, queue, 2);
        second.flushActivity();

        List<ActivityMinute> minutes = second.activity(queue);
        assertThat(totals(minutes)).startsWith(5, 2, 2, 9);
        assertThat(minutes).hasSize(60);
        for (int i = 1; i < minutes.size(); i++) {
            assertThat(Duration.between(minutes.get(i - 1).minute(), minutes.get(i).minute())).isEqualTo(Duration.ofMinutes(1));
        }
        assertThat(minutes.get(59).minute()).isAfterOrEqualTo(startMinute);
        assertThat(minutes.get(59).minute().toEpochMilli() % 60_000).isZero();
        // nothing happened before the test began: those minutes are all zeros
        assertThat(minutes).filteredOn(m -> m.minute().isBefore(startMinute))
                .allSatisfy(m -> assertThat(m).isEqualTo(new ActivityMinute(m.minute(), 0, 0, 0, 0, Duration.ZERO, Duration.ZERO)));
        assertThat(minutes).filteredOn(m -> !m.minute().isBefore(startMinute)).hasSizeBetween(1, 3);
        assertThat(minutes.stream().mapToLong(ActivityMinute::failed).sum()).isEqualTo(4);
        // a flush with nothing new adds nothing
        first.flushActivity();
        second.flushActivity();
        assertThat(totals(second.activity(queue))).startsWith(5, 2, 2, 9);
    }

    @Test
    void latenessSumAndMaximumAreThoseTheHandlersStartedWith() {
        String queue = "activity-late";
        List<Long> lateness = new CopyOnWriteArrayList<>();
        DelayQueueClient client = client(true, new DelayQueueListener() {
            @Override
            public void handlerStarted(MessageContext context, Duration late) {
                lateness.add(late.toMillis());
            }
        });
        client.pause(queue); // the messages wait past their due time: each handler starts at least 1 s late
        sendAll(client, queue, "a", "b", "c");
        start(client, queue);
        await().pollDelay(Duration.ofMillis(1_000)).atMost(BOUND).until(() -> client.stats(queue).pending() == 3);
        client.resume(queue);
        awaitSettled(client, queue, 0);
        client.flushActivity();

        List<ActivityMinute> minutes = client.activity(queue);
        long[] totals = totals(minutes);
        assertThat(lateness).hasSize(3).allSatisfy(ms -> assertThat(ms).isGreaterThanOrEqualTo(1_000));
        assertThat(totals[3]).isEqualTo(3);
        assertThat(totals[4]).isEqualTo(lateness.stream().mapToLong(Long::longValue).sum());
        assertThat(totals[5]).isEqualTo(lateness.stream().mapToLong(Long::longValue).max().orElseThrow());
        ActivityMinute busiest = minutes.stream().filter(m -> m.started() > 0).reduce((a, b) -> a.started() >= b.started() ? a : b)
                .orElseThrow();
        assertThat(busiest.averageLateness()).isEqualTo(busiest.latenessSum().dividedBy(busiest.started()));
        assertThat(busiest.averageLateness()).isLessThanOrEqualTo(busiest.maxLateness())
                .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void aFlushThatRedisRefusesKeepsTheCountsForTheNext() {
        String queue = "activity-refused";
        DelayQueueClient client = client(true, DelayQueueListener.NONE);
        long from = client.activity(queue).get(59).minute().toEpochMilli() / 60_000 - 2;
        start(client, queue);
        sendAll(client, queue, "a", "b", "fail");
        awaitSettled(client, queue, 1);
        long to = client.activity(queue).get(59).minute().toEpochMilli() / 60_000 + 2;

        // each minute's key holds a string: the flush's first HINCRBY fails (WRONGTYPE) before it writes anything
        List<String> blockers = new ArrayList<>();
        for (long minute = from; minute <= to; minute++) {
            String key = redis.prefix() + ":{" + queue + "}:activity:" + minute;
            redis.redisson().getBucket(key, StringCodec.INSTANCE).set("not a hash");
            blockers.add(key);
        }
        client.flushActivity(); // logged, never thrown: the consumers go on
        redis.redisson().getKeys().delete(blockers.toArray(String[]::new));
        assertThat(totals(client.activity(queue))).containsOnly(0);

        client.flushActivity();
        assertThat(totals(client.activity(queue))).startsWith(2, 1, 1, 4);
    }

    /** A partitioned queue's minutes are one set of hashes, in its first partition's slot, whatever partition settled. */
    @Test
    void aPartitionedQueueCountsEveryPartitionInItsFirstPartitionsSlot() {
        String queue = "activity-parts";
        DelayQueueClient client = DelayQueueClient.create(redis.redisson(), ClientOptions.builder().keyPrefix(redis.prefix())
                .partitions(queue, 3).build());
        start(client, queue);
        for (int i = 0; i < 9; i++) {
            client.send(queue, "m-" + i, Duration.ZERO, SendOptions.id("id-" + i));
        }
        awaitSettled(client, queue, 0);
        client.flushActivity();
        assertThat(totals(client.activity(queue))).startsWith(9, 0, 0, 9);
        String first = io.github.delayqueue.core.protocol.Partitions.tag(queue, 0, 3);
        assertThat(redis.redisson().getKeys().getKeysStreamByPattern(redis.prefix() + ":{" + queue + "*:activity:*"))
                .isNotEmpty().allSatisfy(key -> assertThat(key).startsWith(redis.prefix() + ":{" + first + "}:activity:"));
    }

    @Test
    void withActivityOffNothingIsCountedOrWritten() {
        String queue = "activity-off";
        DelayQueueClient client = client(false, DelayQueueListener.NONE);
        start(client, queue);
        sendAll(client, queue, "a", "fail");
        awaitSettled(client, queue, 1);
        client.flushActivity();
        assertThat(redis.redisson().getKeys().getKeysStreamByPattern(redis.prefix() + ":{" + queue + "}:activity*"))
                .isEmpty();
        assertThat(client.activity(queue)).hasSize(60).allSatisfy(m -> assertThat(m.handled() + m.started()).isZero());
    }

}
