package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.LongAdder;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.protocol.HistoryRecord;
import io.github.delayqueue.core.protocol.QueueRoute;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;
import io.github.delayqueue.core.history.HistoryTrim;
import io.github.delayqueue.core.history.MessageStatus;
import io.github.delayqueue.core.history.RunningMessage;
import io.github.delayqueue.core.history.SettledMessage;

/**
 * A message's life after the fact: {@link DelayQueueClient#status} in each state, and the history that keeps the
 * records of settled messages ({@link ConsumerOptions.Builder#keepHistory}) bounded by count and by age. The
 * partitioned and Cluster variants run every test again.
 */
@ExtendWith(RedisExtension.class)
class HistoryTest {

    private static final Duration BOUND = Duration.ofSeconds(20);
    private static final RetryPolicy ONCE = new RetryPolicy(1, Duration.ofMillis(10), 1, Duration.ofMillis(10), 0);

    private final RedisContext redis;
    private DelayQueueClient client;
    private final List<DelayQueueConsumer> consumers = new ArrayList<>();

    HistoryTest(RedisContext redis) {
        this.redis = redis;
    }

    /** The options of the client under test; the partitioned variants add several partitions per queue. */
    ClientOptions.Builder clientOptions() {
        return ClientOptions.builder().keyPrefix(redis.prefix());
    }

    DelayQueueClient newClient() {
        return DelayQueueClient.create(redis.redisson(), clientOptions().build());
    }

    RedisContext redis() {
        return redis;
    }

    @BeforeEach
    void setUp() {
        client = newClient();
    }

    @AfterEach
    void tearDown() {
        consumers.forEach(DelayQueueConsumer::stop);
    }

    private DelayQueueConsumer start(String queue, MessageHandler<String> handler, ConsumerOptions options) {
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, handler, options);
        consumers.add(consumer);
        consumer.start();
        return consumer;
    }

    @Test
    void statusTellsPendingInFlightCompletedDeadLetteredAndUnknown() throws Exception {
        String queue = "status";
        CountDownLatch release = new CountDownLatch(1);
        Set<String> handled = ConcurrentHashMap.newKeySet();
        start(queue, (payload, context) -> {
            try {
                if (payload.equals("slow")) {
                    release.await();
                } else if (payload.equals("bad")) {
                    throw new IllegalStateException("payment service down");
                }
            } finally {
                handled.add(context.id());
            }
        }, ConsumerOptions.builder().retry(ONCE).keepHistory(Duration.ofHours(1), 1_000).build());
        Instant before = client.stats(queue).serverTime();
        client.send(queue, "later", Duration.ofHours(1), SendOptions.id("later"));
        client.send(queue, "ok", Duration.ZERO, SendOptions.id("ok"));
        client.send(queue, "ok", Duration.ZERO, SendOptions.id("grouped").group("customer-7"));
        client.send(queue, "bad", Duration.ZERO, SendOptions.id("bad"));
        client.send(queue, "slow", Duration.ZERO, SendOptions.id("slow"));
        try {
            await().atMost(BOUND).until(() -> handled.containsAll(List.of("ok", "grouped", "bad"))
                    && client.status(queue, "ok").state() == MessageStatus.State.COMPLETED
                    && client.status(queue, "grouped").state() == MessageStatus.State.COMPLETED
                    && client.status(queue, "bad").state() == MessageStatus.State.DEAD_LETTERED
                    && client.status(queue, "slow").state() == MessageStatus.State.IN_FLIGHT);

            MessageStatus later = client.status(queue, "later");
            assertThat(later.state()).isEqualTo(MessageStatus.State.PENDING);
            assertThat(later.live().dueAt()).isAfter(before.plus(Duration.ofMinutes(59)));
            assertThat(later.settled()).isNull();

            MessageStatus slow = client.status(queue, "slow");
            assertThat(slow.live().leaseDeadline()).isAfter(before);
            assertThat(slow.live().attempts()).isEqualTo(1);

            MessageStatus ok = client.status(queue, "ok");
            SettledMessage record = ok.settled();
            assertThat(ok.live()).isNull();
            assertThat(record.outcome()).isEqualTo(SettledMessage.Outcome.COMPLETED);
            assertThat(record.attempts()).isEqualTo(1);
            assertThat(record.instance()).isEqualTo(HistoryRecord.INSTANCE).contains("@");
            assertThat(record.dueAt()).isAfterOrEqualTo(before);
            assertThat(record.settledAt()).isAfterOrEqualTo(record.dueAt()); // never early, on the Redis clock
            assertThat(record.took().isNegative()).isFalse();
            assertThat(record.group()).isNull();
            assertThat(record.reason()).isNull();
            assertThat(client.status(queue, "grouped").settled().group()).isEqualTo("customer-7");

            SettledMessage dead = client.status(queue, "bad").settled();
            assertThat(dead.outcome()).isEqualTo(SettledMessage.Outcome.DEAD_LETTERED);
            assertThat(dead.reason()).contains("IllegalStateException").contains("payment service down");
            assertThat(client.deadLetters(queue, 10)).extracting(DeadLetter::id).containsExactly("bad");

            MessageStatus never = client.status(queue, "never-sent");
            assertThat(never.state()).isEqualTo(MessageStatus.State.UNKNOWN);
            assertThat(never.live()).isNull();
            assertThat(never.settled()).isNull();

            // sent again under a kept id: live first
            client.send(queue, "again", Duration.ofHours(1), SendOptions.id("ok"));
            assertThat(client.status(queue, "ok").state()).isEqualTo(MessageStatus.State.PENDING);
        } finally {
            release.countDown();
        }
    }

    @Test
    void withoutHistoryASettledMessageIsUnknownAndNothingIsWritten() {
        String queue = "no-history";
        Set<String> handled = ConcurrentHashMap.newKeySet();
        start(queue, (payload, context) -> {
            context.progress(1); // ignored without a history: no running record, nothing written
            context.result("r");
            handled.add(context.id());
        }, ConsumerOptions.builder().build());
        client.send(queue, "x", Duration.ZERO, SendOptions.id("x"));
        await().atMost(BOUND).until(() -> handled.contains("x") && client.stats(queue).inFlight() == 0);
        assertThat(client.status(queue, "x").state()).isEqualTo(MessageStatus.State.UNKNOWN);
        assertThat(historySize(queue)).isZero();
    }

    /**
     * A running message's status says where and since when it runs and its progress; its record keeps the handler's
     * result and last progress; a cancel of a running message leaves a cancelled record, of a pending one none; a
     * result too large fails the delivery.
     */
    @Test
    void runningProgressResultsAndCancelsAreRecorded() {
        String queue = "running";
        CountDownLatch release = new CountDownLatch(1);
        start(queue, (payload, context) -> {
            switch (payload) {
                case "work" -> {
                    context.progress(Map.of("step", 1));
                    context.progress(Map.of("step", 2)); // within the write interval: written after it, not lost
                    release.await();
                    context.result("done-" + context.id());
                }
                case "stuck" -> {
                    context.progress("half");
                    while (!context.cancelled()) {
                        Thread.sleep(10);
                    }
                }
                case "huge" -> context.result("x".repeat(MessageContext.MAX_RESULT_BYTES));
                case "no-progress" -> context.progress(null);
                case "quiet" -> release.await(); // reports nothing: its record comes with its first lease extension
                default -> throw new IllegalStateException(payload);
            }
        }, ConsumerOptions.builder().retry(ONCE).concurrency(6).visibilityTimeout(Duration.ofMillis(600))
                .keepHistory(Duration.ofHours(1), 1_000).build());
        Instant before = client.stats(queue).serverTime();
        client.send(queue, "later", Duration.ofHours(1), SendOptions.id("pending"));
        client.send(queue, "work", Duration.ZERO, SendOptions.id("work"));
        client.send(queue, "stuck", Duration.ZERO, SendOptions.id("stuck"));
        client.send(queue, "huge", Duration.ZERO, SendOptions.id("huge"));
        client.send(queue, "quiet", Duration.ZERO, SendOptions.id("quiet"));
        client.send(queue, "no-progress", Duration.ZERO, SendOptions.id("no-progress"));
        try {
            await().atMost(BOUND).until(() -> client.status(queue, "quiet").running() != null);
            assertThat(client.status(queue, "quiet").running().instance()).isEqualTo(HistoryRecord.INSTANCE);
            assertThat(client.status(queue, "quiet").running().progress()).isNull();
            await().atMost(BOUND).until(() -> client.status(queue, "work").running() != null
                    && "{\"step\":2}".equals(client.status(queue, "work").running().progress())
                    && client.status(queue, "stuck").running() != null
                    && client.status(queue, "stuck").running().progress() != null);
            MessageStatus work = client.status(queue, "work");
            assertThat(work.state()).isEqualTo(MessageStatus.State.IN_FLIGHT);
            RunningMessage running = work.running();
            assertThat(running.instance()).isEqualTo(HistoryRecord.INSTANCE);
            assertThat(running.attempt()).isEqualTo(1);
            assertThat(running.claimedAt()).isAfterOrEqualTo(before).isBefore(running.leaseUntil());
            assertThat(running.leaseUntil()).isEqualTo(work.live().leaseDeadline());
            assertThat(running.progress()).isEqualTo("{\"step\":2}");

            // cancel the running one: interrupted, and recorded as cancelled with where it ran
            assertThat(client.cancel(queue, "stuck")).isTrue();
            await().atMost(BOUND).until(() -> client.status(queue, "stuck").state() == MessageStatus.State.CANCELLED);
            SettledMessage stuck = client.status(queue, "stuck").settled();
            assertThat(stuck.outcome()).isEqualTo(SettledMessage.Outcome.CANCELLED);
            assertThat(stuck.instance()).isEqualTo(HistoryRecord.INSTANCE);
            assertThat(stuck.claimedAt()).isNotNull();
            assertThat(stuck.attempts()).isEqualTo(1);
            assertThat(stuck.progress()).isEqualTo("\"half\"");
            assertThat(stuck.settledAt()).isAfterOrEqualTo(stuck.claimedAt());

            // cancel the pending one: never claimed, so no record (a queue without a history never grows one)
            assertThat(client.cancel(queue, "pending")).isTrue();
            assertThat(client.status(queue, "pending").state()).isEqualTo(MessageStatus.State.UNKNOWN);
            assertThat(client.cancel(queue, "pending")).as("a second cancel finds nothing and says so").isFalse();

            // a result larger than allowed fails the delivery, which is dead-lettered after its one attempt
            await().atMost(BOUND).until(() -> client.status(queue, "huge").state() == MessageStatus.State.DEAD_LETTERED);
            assertThat(client.status(queue, "huge").settled().reason()).contains("at most " + MessageContext.MAX_RESULT_BYTES);
            await().atMost(BOUND).until(() -> client.status(queue, "no-progress").state()
                    == MessageStatus.State.DEAD_LETTERED);
            assertThat(client.status(queue, "no-progress").settled().reason()).contains("progress must not be null");
        } finally {
            release.countDown();
        }
        await().atMost(BOUND).until(() -> client.status(queue, "work").state() == MessageStatus.State.COMPLETED);
        SettledMessage work = client.status(queue, "work").settled();
        assertThat(work.result()).isEqualTo("\"done-work\"");
        assertThat(work.progress()).isEqualTo("{\"step\":2}");
        assertThat(work.instance()).isEqualTo(HistoryRecord.INSTANCE);
    }

    /** 10,000 messages drained with a count of 100: the history holds each partition's share of it, no more. */
    @Test
    void theHistoryKeepsItsCountUnderADrain() {
        String queue = "history-count";
        int messages = 10_000;
        int keep = 100;
        Set<String> handled = ConcurrentHashMap.newKeySet();
        start(queue, (payload, context) -> handled.add(context.id()),
                ConsumerOptions.builder().concurrency(16).keepHistory(Duration.ZERO, keep).build());
        drain(queue, messages, handled);
        int partitions = client.queueRoute(queue).count();
        int share = (keep + partitions - 1) / partitions;
        assertThat(historySize(queue)).isEqualTo((long) share * partitions);
        assertThat(client.stats(queue).history()).as("the stats' count, summed over the partitions")
                .isEqualTo((long) share * partitions);
        QueueRoute route = client.queueRoute(queue);
        for (int p = 0; p < partitions; p++) {
            String base = route.part(p).keys().sibling("history");
            assertThat(redis.redisson().getMap(base, StringCodec.INSTANCE).size())
                    .as("records and their times in step").isEqualTo(share);
        }
    }

    /**
     * A count lowered by a deploy: 9,000 records kept, then consumers that keep 100. Each settle deletes at most its
     * batch plus 100 beyond the count, so the acknowledgements go through and the history shrinks over the settles
     * (deleting all 8,900 at once failed every acknowledgement: Lua cannot unpack that many).
     */
    @Test
    void aLoweredCountIsReachedOverSeveralSettlesWithoutFailingThem() {
        String queue = "history-lowered";
        QueueRoute route = client.queueRoute(queue);
        for (int p = 0; p < route.count(); p++) {
            List<Object> keys = List.of(route.part(p).keys().sibling("history"), route.part(p).keys().sibling("history-at"));
            redis.redisson().getScript(StringCodec.INSTANCE).eval(org.redisson.api.RScript.Mode.READ_WRITE, """
                    for i = 1, 9000 do
                      redis.call('HSET', KEYS[1], 'old-' .. i, '{}')
                      redis.call('ZADD', KEYS[2], i, 'old-' .. i)
                    end
                    """, org.redisson.api.RScript.ReturnType.VALUE, keys);
        }
        Set<String> handled = ConcurrentHashMap.newKeySet();
        start(queue, (payload, context) -> handled.add(context.id()),
                ConsumerOptions.builder().keepHistory(Duration.ZERO, 100).build());
        for (int i = 0; i < 5; i++) {
            client.send(queue, "x", Duration.ZERO, SendOptions.id("new-" + i));
        }
        await().atMost(BOUND).until(() -> handled.size() == 5 && client.stats(queue).inFlight() == 0);
        for (int i = 0; i < 5; i++) {
            assertThat(client.status(queue, "new-" + i).state()).isEqualTo(MessageStatus.State.COMPLETED);
        }
        assertThat(historySize(queue)).isLessThan(9_000L * route.count());
    }

    /**
     * 10,000 messages drained with both bounds: the listener hears every record deleted, by count in the settles and by
     * age in the housekeeping, once: when the age has emptied the history, the two counts add up to the messages. The
     * count (50) is reached within the age (1 s) by any drain faster than 50 messages a second, so both trims happen.
     */
    @Test
    void trimsByCountAndByAgeAreReportedOnceEachUnderADrain() {
        String queue = "history-trims";
        int messages = 10_000;
        Map<HistoryTrim, LongAdder> trimmed = new EnumMap<>(HistoryTrim.class);
        for (HistoryTrim reason : HistoryTrim.values()) {
            trimmed.put(reason, new LongAdder());
        }
        client = DelayQueueClient.create(redis.redisson(), clientOptions().listener(new DelayQueueListener() {
            @Override
            public void historyTrimmed(String q, HistoryTrim reason, int records) {
                if (q.equals(queue)) {
                    trimmed.get(reason).add(records);
                }
            }
        }).build());
        Set<String> handled = ConcurrentHashMap.newKeySet();
        start(queue, (payload, context) -> handled.add(context.id()), ConsumerOptions.builder().concurrency(16)
                .maxPollInterval(Duration.ofMillis(100)).keepHistory(Duration.ofSeconds(1), 50).build());
        drain(queue, messages, handled);
        // the last records age out on the housekeeping's idle turn (every 30 poll intervals: 3 s here)
        await().atMost(BOUND).until(() -> client.stats(queue).history() == 0);
        assertThat(historySize(queue)).isZero();
        assertThat(trimmed.get(HistoryTrim.COUNT).sum()).as("by count").isPositive();
        assertThat(trimmed.get(HistoryTrim.AGE).sum()).as("by age").isPositive();
        assertThat(trimmed.get(HistoryTrim.COUNT).sum() + trimmed.get(HistoryTrim.AGE).sum()).isEqualTo(messages);
    }

    @Test
    void recordsOlderThanTheAgeAreTrimmed() {
        String queue = "history-age";
        Set<String> handled = ConcurrentHashMap.newKeySet();
        start(queue, (payload, context) -> handled.add(context.id()), ConsumerOptions.builder()
                .maxPollInterval(Duration.ofMillis(100)).keepHistory(Duration.ofSeconds(2), 0).build());
        client.send(queue, "x", Duration.ZERO, SendOptions.id("x"));
        await().atMost(BOUND).until(() -> client.status(queue, "x").state() == MessageStatus.State.COMPLETED);
        // trimmed by the queue's housekeeping: on its periodic turn while idle (every 30 poll intervals, 3 s here)
        await().atMost(BOUND).until(() -> client.status(queue, "x").state() == MessageStatus.State.UNKNOWN);
        assertThat(historySize(queue)).isZero();
    }

    @Test
    void badInputIsRefusedAndWritesNothing() {
        assertThatThrownBy(() -> ConsumerOptions.builder().keepHistory(Duration.ofSeconds(-1), 10).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("history max age");
        assertThatThrownBy(() -> ConsumerOptions.builder().keepHistory(null, 10).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("history max age");
        assertThatThrownBy(() -> ConsumerOptions.builder().keepHistory(Duration.ZERO, -1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("history max count");
        assertThatThrownBy(() -> ConsumerOptions.builder().keepHistory(Duration.ZERO, ConsumerOptions.MAX_HISTORY_COUNT + 1)
                .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("history max count");
        assertThatThrownBy(() -> client.status("bad queue", "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.status("q", "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.status("q", null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(ConsumerOptions.builder().build().keepsHistory()).isFalse();
        assertThat(ConsumerOptions.builder().keepHistory(Duration.ofDays(1), 0).build().keepsHistory()).isTrue();
    }

    /** Sends {@code messages} messages due now, ids m0, m1, …, and waits until all are handled and settled. */
    private void drain(String queue, int messages, Set<String> handled) {
        List<SendRequest> batch = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            batch.add(SendRequest.of("m" + i, Duration.ZERO, SendOptions.id("m" + i)));
            if (batch.size() == 1_000) {
                client.sendAll(queue, batch);
                batch.clear();
            }
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> handled.size() == messages
                && client.stats(queue).inFlight() == 0 && client.stats(queue).pending() == 0);
    }

    /** Records of a queue over its partitions (history-at's size). */
    private long historySize(String queue) {
        QueueRoute route = client.queueRoute(queue);
        long size = 0;
        for (int p = 0; p < route.count(); p++) {
            size += redis.redisson().getScoredSortedSet(route.part(p).keys().sibling("history-at"), StringCodec.INSTANCE)
                    .size();
        }
        return size;
    }
}
