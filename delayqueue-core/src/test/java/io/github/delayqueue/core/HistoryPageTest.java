package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RScript;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.history.HistoryPage;
import io.github.delayqueue.core.history.MessageStatus;
import io.github.delayqueue.core.history.SettledMessage;
import io.github.delayqueue.core.protocol.HistoryRecord;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.QueueRoute;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * {@link DelayQueueClient#history}: the records a queue keeps, the latest settled first, paged and merged over the
 * partitions; {@link DelayQueueClient#status} reads the same records. The partitioned and Cluster variants run every
 * test again.
 */
@ExtendWith(RedisExtension.class)
class HistoryPageTest {

    private static final Duration BOUND = Duration.ofSeconds(20);
    private static final RetryPolicy ONCE = new RetryPolicy(1, Duration.ofMillis(10), 1, Duration.ofMillis(10), 0);
    private static final Comparator<SettledMessage> NEWEST_FIRST = Comparator.comparing(SettledMessage::settledAt)
            .thenComparing(SettledMessage::id).reversed();

    private final RedisContext redis;
    private DelayQueueClient client;
    private final List<DelayQueueConsumer> consumers = new ArrayList<>();

    HistoryPageTest(RedisContext redis) {
        this.redis = redis;
    }

    /** The client under test; the partitioned variants give one with several partitions per queue. */
    DelayQueueClient newClient() {
        return redis.client();
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

    private void start(String queue, MessageHandler<String> handler, ConsumerOptions options) {
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, handler, options);
        consumers.add(consumer);
        consumer.start();
    }

    @Test
    void theRecordsOfSettledMessagesAreListedNewestFirstAsStatusReadsThem() {
        String queue = "recent";
        Set<String> handled = ConcurrentHashMap.newKeySet();
        start(queue, (payload, context) -> {
            handled.add(context.id());
            if (payload.equals("bad")) {
                throw new IllegalStateException("card declined");
            }
        }, ConsumerOptions.builder().retry(ONCE).keepHistory(Duration.ofHours(1), 1_000).build());
        Instant before = client.stats(queue).serverTime();
        List<String> ids = IntStream.range(0, 30).mapToObj(i -> "order-" + i).toList();
        for (String id : ids) {
            SendOptions options = id.endsWith("5") ? SendOptions.id(id).group("customer-5") : SendOptions.id(id);
            client.send(queue, id.endsWith("7") ? "bad" : "ok", Duration.ZERO, options);
        }
        client.send(queue, "later", Duration.ofHours(1), SendOptions.id("not-yet"));
        await().atMost(BOUND).until(() -> handled.containsAll(ids) && client.stats(queue).inFlight() == 0
                && client.history(queue, 100).total() == ids.size());

        HistoryPage page = client.history(queue, 100);
        assertThat(page.queue()).isEqualTo(queue);
        assertThat(page.offset()).isZero();
        assertThat(page.serverTime()).isAfterOrEqualTo(before);
        assertThat(page.records()).extracting(SettledMessage::id).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(page.records()).isSortedAccordingTo(NEWEST_FIRST);
        for (SettledMessage record : page.records()) {
            assertThat(record).as(record.id()).isEqualTo(client.status(queue, record.id()).settled());
            boolean bad = record.id().endsWith("7");
            assertThat(record.outcome()).as(record.id()).isEqualTo(bad ? SettledMessage.Outcome.DEAD_LETTERED
                    : SettledMessage.Outcome.COMPLETED);
            if (bad) {
                assertThat(record.reason()).as(record.id()).contains("IllegalStateException").contains("card declined");
            } else {
                assertThat(record.reason()).as(record.id()).isNull();
            }
            assertThat(record.group()).as(record.id()).isEqualTo(record.id().endsWith("5") ? "customer-5" : null);
            assertThat(record.attempts()).isEqualTo(1);
            assertThat(record.instance()).isEqualTo(HistoryRecord.INSTANCE);
            assertThat(record.settledAt()).isAfterOrEqualTo(record.dueAt()).isBeforeOrEqualTo(page.serverTime());
            assertThat(record.dueAt()).isAfterOrEqualTo(before);
        }
        assertThat(client.history(queue, 1).records()).containsExactly(page.records().get(0));
        assertThat(client.status(queue, "not-yet").state()).isEqualTo(MessageStatus.State.PENDING);
    }

    /**
     * Records written at known times (several in one millisecond, over every partition): pages cut the one order,
     * latest first and equal times in reverse id order, whatever the partition.
     */
    @Test
    void pagesCutOneOrderAcrossPartitions() {
        String queue = "recent-pages";
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            long settled = 1_000_000L + (i / 3) * 1_000; // three records per millisecond
            keep(queue, "m-" + (char) ('a' + i % 3) + "-" + (100 + i), settled);
        }
        // newest first: time descending, then id descending
        for (int t = 39 / 3; t >= 0; t--) {
            for (int k = 2; k >= 0; k--) {
                int i = t * 3 + k;
                if (i < 40) {
                    expected.add("m-" + (char) ('a' + i % 3) + "-" + (100 + i));
                }
            }
        }

        HistoryPage all = client.history(queue, 0, 1_000);
        assertThat(all.total()).isEqualTo(40);
        assertThat(all.records()).extracting(SettledMessage::id).containsExactlyElementsOf(expected);
        assertThat(all.records().get(0).settledAt()).isEqualTo(Instant.ofEpochMilli(1_013_000L));
        List<String> paged = new ArrayList<>();
        for (int offset = 0; offset < 40; offset += 7) {
            HistoryPage page = client.history(queue, offset, 7);
            assertThat(page.offset()).isEqualTo(offset);
            assertThat(page.total()).isEqualTo(40);
            assertThat(page.records()).hasSize(Math.min(7, 40 - offset));
            page.records().forEach(r -> paged.add(r.id()));
        }
        assertThat(paged).containsExactlyElementsOf(expected);
        HistoryPage past = client.history(queue, 40, 10);
        assertThat(past.records()).isEmpty();
        assertThat(past.total()).isEqualTo(40);
    }

    @Test
    void aRecordThisVersionCannotReadIsLeftOutAndCounted() {
        String queue = "recent-unreadable";
        keep(queue, "readable", 2_000);
        QueueOps part = client.queueRoute(queue).of("garbled");
        redis.redisson().getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_WRITE,
                "redis.call('HSET', KEYS[1], 'garbled', '{\"v\":9}') redis.call('ZADD', KEYS[2], 3000, 'garbled')",
                RScript.ReturnType.VALUE, List.of(part.keys().sibling("history"), part.keys().sibling("history-at")));

        HistoryPage page = client.history(queue, 10);

        assertThat(page.total()).isEqualTo(2);
        assertThat(page.records()).extracting(SettledMessage::id).containsExactly("readable");
        assertThat(client.status(queue, "garbled").state()).isEqualTo(MessageStatus.State.UNKNOWN);
        assertThat(client.status(queue, "readable").state()).isEqualTo(MessageStatus.State.COMPLETED);
    }

    @Test
    void aQueueThatKeepsNoHistoryListsNothing() {
        String queue = "recent-none";
        Set<String> handled = ConcurrentHashMap.newKeySet();
        start(queue, (payload, context) -> handled.add(context.id()), ConsumerOptions.builder().build());
        client.send(queue, "x", Duration.ZERO, SendOptions.id("x"));
        await().atMost(BOUND).until(() -> handled.contains("x") && client.stats(queue).inFlight() == 0);

        HistoryPage page = client.history(queue, 10);

        assertThat(page.total()).isZero();
        assertThat(page.records()).isEmpty();
    }

    @Test
    void badBoundsAreRefusedBeforeAnythingIsRead() {
        assertThatThrownBy(() -> client.history("q", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be between 1 and 1000, was 0");
        assertThatThrownBy(() -> client.history("q", 1_001)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be between 1 and 1000, was 1001");
        assertThatThrownBy(() -> client.history("q", -1, 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("offset must not be negative, was -1");
        assertThatThrownBy(() -> client.history("bad queue", 10)).isInstanceOf(IllegalArgumentException.class);
        if (client.queueRoute("q").count() > 1) {
            assertThatThrownBy(() -> client.history("q", 9_500, 1_000)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("offset + limit must be at most 10000");
        } else {
            assertThat(client.history("q", 9_500, 1_000).records()).isEmpty();
        }
    }

    /** A completed record for {@code id} settled at {@code settledMs}, where the engine would keep it. */
    private void keep(String queue, String id, long settledMs) {
        QueueRoute route = client.queueRoute(queue);
        QueueOps part = route.of(id);
        String record = HistoryRecord.write(false, settledMs - 50, settledMs - 20, 1, 10, null, null);
        redis.redisson().getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_WRITE,
                "redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])",
                RScript.ReturnType.VALUE, List.of(part.keys().sibling("history"), part.keys().sibling("history-at")),
                id, record, Long.toString(settledMs));
    }
}
