package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.protocol.Partitions;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueRoute;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/** Partitioned queues: where messages go, reads over all partitions, fair claiming, and the recorded count. */
@ExtendWith(RedisExtension.class)
class PartitionTest {

    private final RedisContext redis;
    private final List<DelayQueueConsumer> consumers = new ArrayList<>();

    PartitionTest(RedisContext redis) {
        this.redis = redis;
    }

    /** A client of {@code redis} whose queues all have {@code partitions} partitions. */
    static DelayQueueClient partitioned(RedisContext redis, int partitions) {
        return DelayQueueClient.create(redis.redisson(),
                ClientOptions.builder().keyPrefix(redis.prefix()).defaultPartitions(partitions).build());
    }

    private DelayQueueClient client(String queue, int partitions) {
        return DelayQueueClient.create(redis.redisson(),
                ClientOptions.builder().keyPrefix(redis.prefix()).partitions(queue, partitions).build());
    }

    @AfterEach
    void stop() {
        consumers.forEach(DelayQueueConsumer::stop);
    }

    private DelayQueueConsumer start(DelayQueueClient client, String queue, ConsumerOptions options,
            MessageHandler<String> handler) {
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, handler, options);
        consumers.add(consumer);
        consumer.start();
        return consumer;
    }

    private long pendingIn(DelayQueueClient client, String queue, int partition) {
        return redis.redisson().getScoredSortedSet(client.queueRoute(queue).part(partition).keys().keys().get(1).toString(),
                StringCodec.INSTANCE).size();
    }

    /** {@code count} ids that live in {@code partition} of {@code of}. */
    private static List<String> idsIn(int partition, int of, int count, String stem) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; ids.size() < count; i++) {
            if (Partitions.of(stem + i, of) == partition) {
                ids.add(stem + i);
            }
        }
        return ids;
    }

    @Test
    void theLayoutRulesAreStable() {
        // CRC-16/XMODEM of "123456789" is 0x31C3, the check value Redis Cluster's specification gives
        assertThat(Partitions.slot("123456789")).isEqualTo(0x31C3 & 16383);
        assertThat(Partitions.tag("orders", 0, 6)).startsWith("orders#0");
        for (int n : new int[] {2, 3, 6, 12, 64}) {
            for (int p = 0; p < n; p++) {
                int slot = Partitions.slot(Partitions.tag("orders", p, n));
                assertThat(slot).as("partition %s of %s", p, n).isBetween(p * 16384 / n, (p + 1) * 16384 / n - 1);
            }
        }
        // six partitions on three masters holding equal slot ranges (redis-cli --cluster create): two on each
        int[] perMaster = new int[3];
        for (int p = 0; p < 6; p++) {
            int slot = Partitions.slot(Partitions.tag("orders", p, 6));
            perMaster[slot <= 5460 ? 0 : slot <= 10922 ? 1 : 2]++;
        }
        assertThat(perMaster).containsExactly(2, 2, 2);
        assertThat(QueueKeys.of("dq", "orders", 3, 6).keys().get(1)).isEqualTo("dq:{" + Partitions.tag("orders", 3, 6) + "}:delayed");
        assertThat(QueueKeys.of("dq", "orders", 0, 1).keys().get(1)).isEqualTo("dq:{orders}:delayed");
        // the partition of an id: CRC-32 of its UTF-8 bytes mod the count (CRC-32 of "123456789" is 0xCBF43926)
        assertThat(Partitions.of("123456789", 7)).isEqualTo((int) (0xCBF43926L % 7));
    }

    @Test
    void messagesSpreadOverThePartitionsAndEveryOperationByIdFindsThem() {
        String queue = "spread";
        DelayQueueClient client = client(queue, 3);
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            requests.add(SendRequest.of("m" + i, Duration.ofHours(1), SendOptions.id("id-" + i)));
        }
        client.sendAll(queue, requests);
        for (int p = 0; p < 3; p++) {
            assertThat(pendingIn(client, queue, p)).as("partition %s", p).isBetween(60L, 140L);
        }
        assertThat(client.stats(queue).pending()).isEqualTo(300);

        assertThat(client.message(queue, "id-7")).hasValueSatisfying(m -> assertThat(m.payload()).isEqualTo("\"m7\""));
        assertThat(client.cancel(queue, "id-8")).isTrue();
        assertThat(client.cancel(queue, "id-8")).isFalse();
        assertThat(client.reschedule(queue, "id-9", Duration.ofHours(2))).isTrue();
        client.send(queue, "kept", Duration.ofHours(1), SendOptions.id("id-10"));
        assertThat(client.message(queue, "id-10").orElseThrow().payload()).isEqualTo("\"m10\"");
        client.send(queue, "replaced", Duration.ofHours(3), SendOptions.id("id-11").replaceExisting());
        assertThat(client.message(queue, "id-11").orElseThrow().payload()).isEqualTo("\"replaced\"");
        assertThat(client.stats(queue).pending()).isEqualTo(299);
    }

    @Test
    void statsPagesAndDeadLettersSpanEveryPartition() {
        String queue = "reads";
        DelayQueueClient client = client(queue, 4);
        Instant base = client.stats(queue).serverTime().plus(Duration.ofHours(1));
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            requests.add(SendRequest.at("m" + i, base.plusSeconds(i), SendOptions.id("r" + i)));
        }
        client.sendAll(queue, requests);

        MessagePage page = client.pending(queue, 10, 5);
        assertThat(page.total()).isEqualTo(40);
        assertThat(page.messages()).extracting(QueuedMessage::id).containsExactly("r10", "r11", "r12", "r13", "r14");
        assertThat(client.pending(queue, 40, 5).messages()).isEmpty();
        assertThat(client.stats(queue).nextDueAt()).isEqualTo(base);
        assertThatIllegalArgumentException().isThrownBy(() -> client.pending(queue, QueueRoute.MERGE_WINDOW, 1))
                .withMessageContaining("offset + limit must be at most " + QueueRoute.MERGE_WINDOW);

        // every message dies: the dead letters of all partitions, oldest first, requeued and purged by key
        String dying = "reads-dying";
        DelayQueueClient dyingClient = client(dying, 4);
        start(dyingClient, dying, ConsumerOptions.builder().retry(new RetryPolicy(1, Duration.ofMillis(10), 1,
                Duration.ofMillis(10), 0)).concurrency(1).build(), (p, c) -> {
                    throw new IllegalStateException("no");
                });
        for (int i = 0; i < 12; i++) {
            dyingClient.send(dying, "d" + i, Duration.ZERO, SendOptions.id("d" + i));
            int sent = i + 1;
            await().atMost(Duration.ofSeconds(20)).until(() -> dyingClient.stats(dying).dead() == sent);
        }
        consumers.get(0).stop();
        List<DeadLetter> dead = dyingClient.deadLetters(dying, 0, 100);
        assertThat(dead).extracting(DeadLetter::id).containsExactlyElementsOf(
                java.util.stream.IntStream.range(0, 12).mapToObj(i -> "d" + i).toList());
        assertThat(dyingClient.deadLetters(dying, 5, 2)).extracting(DeadLetter::id).containsExactly("d5", "d6");
        assertThat(dyingClient.requeueDeadLetters(dying, List.of(dead.get(0).key(), dead.get(5).key()))).isEqualTo(2);
        assertThat(dyingClient.stats(dying).pending()).isEqualTo(2);
        assertThat(dyingClient.purgeDeadLetters(dying, List.of(dead.get(1).key()))).isEqualTo(1);
        assertThat(dyingClient.requeueAllDeadLetters(dying)).isEqualTo(9);
        assertThat(dyingClient.stats(dying).dead()).isZero();
        assertThat(dyingClient.stats(dying).pending()).isEqualTo(11);
    }

    @Test
    void aBacklogInOnePartitionDoesNotKeepAnotherWaiting() {
        String queue = "fair";
        DelayQueueClient client = client(queue, 2);
        List<String> backlog = idsIn(0, 2, 1000, "b");
        List<String> others = idsIn(1, 2, 5, "o");
        List<SendRequest> requests = new ArrayList<>();
        backlog.forEach(id -> requests.add(SendRequest.of(id, Duration.ZERO, SendOptions.id(id))));
        client.sendAll(queue, requests);
        List<String> handled = new CopyOnWriteArrayList<>();
        start(client, queue, ConsumerOptions.builder().concurrency(2).batchSize(10).build(), (payload, context) -> {
            handled.add(payload);
            Thread.sleep(2);
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() >= 20);
        client.sendAll(queue, others.stream().map(id -> SendRequest.of(id, Duration.ZERO, SendOptions.id(id))).toList());
        int mark = handled.size();

        await().atMost(Duration.ofSeconds(60)).until(() -> handled.containsAll(others));
        // counted in messages, not time, so a slow machine handles no more in between than a fast one: a claim
        // takes at most 10, so a fair share of the 2 slots reaches the others within a few claims of the backlog
        // (~30 messages), while a partition kept waiting for the backlog would see it drain first (over 900)
        int lastOther = others.stream().mapToInt(handled::indexOf).max().orElseThrow();
        assertThat(lastOther - mark).as("backlog messages handled before the others, from %d on", mark)
                .isLessThan(300);
        await().atMost(Duration.ofSeconds(60)).until(() -> handled.size() == 1005);
    }

    @Test
    void partitionsSharingOneSlotEachClaimWhenItFrees() {
        // concurrency 1 over 4 partitions: a partition whose message falls due while another's handler holds the one
        // slot waits for that slot, and must be woken when it frees; a lost wake leaves it asleep for its 30 s poll
        String queue = "one-slot";
        DelayQueueClient client = client(queue, 4);
        List<Long> lateness = new CopyOnWriteArrayList<>();
        DelayQueueConsumer consumer = start(client, queue, ConsumerOptions.builder().concurrency(1)
                .maxPollInterval(Duration.ofSeconds(30)).build(), (payload, context) -> {
                    lateness.add(System.currentTimeMillis() - context.dueAt().toEpochMilli());
                    Thread.sleep(20);
                });
        await().atMost(Duration.ofSeconds(30)).until(() -> Asleep.past(consumer, System.currentTimeMillis() + 10_000));
        List<List<String>> ids = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            ids.add(idsIn(p, 4, 6, "s"));
        }
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 0; i < 24; i++) { // due 10 ms apart, each in the next partition: every one meets a busy slot
            String id = ids.get(i % 4).get(i / 4);
            requests.add(SendRequest.of(id, Duration.ofMillis(200 + 10L * i), SendOptions.id(id)));
        }
        client.sendAll(queue, requests);

        await().atMost(Duration.ofSeconds(30)).until(() -> lateness.size() == 24);
        // 24 handlers of 20 ms one after the other: under a second late on a quiet machine; a lost wake is 30 s
        assertThat(lateness).allSatisfy(late -> assertThat(late).isLessThan(5_000));
    }

    @Test
    void concurrencyCountsTheHandlersOfEveryPartition() throws Exception {
        String queue = "slots";
        DelayQueueClient client = client(queue, 4);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        start(client, queue, ConsumerOptions.builder().concurrency(3).build(), (payload, context) -> {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            Thread.sleep(5);
            running.decrementAndGet();
            done.incrementAndGet();
        });
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            requests.add(SendRequest.of("s" + i, Duration.ZERO));
        }
        client.sendAll(queue, requests);
        await().atMost(Duration.ofSeconds(20)).until(() -> done.get() == 200);
        assertThat(most.get()).isEqualTo(3);
    }

    @Test
    void equalDueTimesKeepSendOrderWithinAPartition() {
        String queue = "order";
        DelayQueueClient client = client(queue, 3);
        Instant at = client.stats(queue).serverTime().plusMillis(300);
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 0; i < 90; i++) {
            requests.add(SendRequest.at("o" + i, at, SendOptions.id("o" + i)));
        }
        client.sendAll(queue, requests);
        List<String> handled = new CopyOnWriteArrayList<>();
        start(client, queue, ConsumerOptions.builder().concurrency(1).build(), (payload, context) -> handled.add(payload));
        await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 90);
        Map<Integer, List<String>> sentByPartition = new HashMap<>();
        Map<Integer, List<String>> handledByPartition = new HashMap<>();
        for (int i = 0; i < 90; i++) {
            sentByPartition.computeIfAbsent(Partitions.of("o" + i, 3), p -> new ArrayList<>()).add("o" + i);
        }
        handled.forEach(id -> handledByPartition.computeIfAbsent(Partitions.of(id, 3), p -> new ArrayList<>()).add(id));
        assertThat(handledByPartition).isEqualTo(sentByPartition);
    }

    @Test
    void pauseAndResumeHoldEveryPartition() {
        String queue = "paused";
        DelayQueueClient client = client(queue, 3);
        client.pause(queue);
        assertThat(client.isPaused(queue)).isTrue();
        List<String> handled = new CopyOnWriteArrayList<>();
        start(client, queue, ConsumerOptions.builder().maxPollInterval(Duration.ofMillis(50)).build(),
                (payload, context) -> handled.add(payload));
        for (int i = 0; i < 30; i++) {
            client.send(queue, "p" + i, Duration.ZERO);
        }
        await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(10)).until(handled::isEmpty);
        assertThat(client.stats(queue).ready()).isEqualTo(30);

        client.resume(queue);
        assertThat(client.isPaused(queue)).isFalse();
        await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() == 30);
    }

    @Test
    void aBatchIsCheckedWholeBeforeAnyPartitionIsWritten() {
        String queue = "all-or-nothing";
        DelayQueueClient client = client(queue, 3);
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            requests.add(SendRequest.of("ok", Duration.ofMinutes(1), SendOptions.id("a" + i)));
        }
        requests.add(SendRequest.of("bad", Duration.ofMinutes(-1)));
        assertThatIllegalArgumentException().isThrownBy(() -> client.sendAll(queue, requests))
                .withMessageContaining("delay must not be negative");
        for (int p = 0; p < 3; p++) {
            assertThat(pendingIn(client, queue, p)).isZero();
        }
    }

    @Test
    void theCountIsRecordedAndAClientWithAnotherCountIsRefused() {
        String queue = "recorded";
        DelayQueueClient three = client(queue, 3);
        three.send(queue, "first", Duration.ofHours(1), SendOptions.id("first"));
        assertThat(redis.redisson().getMap(QueueKeys.partitionsKey(redis.prefix(), queue), StringCodec.INSTANCE).get("count"))
                .isEqualTo("3");

        DelayQueueClient two = client(queue, 2);
        assertThatThrownBy(() -> two.send(queue, "second", Duration.ZERO)).isInstanceOf(PartitionCountException.class)
                .hasMessageContaining("has 3 partitions recorded in Redis").hasMessageContaining("this client has 2");
        assertThatThrownBy(() -> two.stats(queue)).isInstanceOf(PartitionCountException.class);
        assertThatThrownBy(() -> two.warmUp(queue)).isInstanceOf(PartitionCountException.class);
        DelayQueueClient one = redis.client();
        assertThatThrownBy(() -> one.cancel(queue, "first")).isInstanceOf(PartitionCountException.class)
                .hasMessageContaining("this client has 1");
        // a consumer with the wrong count stops claiming and says why
        DelayQueueConsumer wrong = start(two, queue, ConsumerOptions.DEFAULTS, (p, c) -> { });
        await().atMost(Duration.ofSeconds(20)).until(() -> wrong.failure() != null);
        assertThat(wrong.failure()).isInstanceOf(PartitionCountException.class);
        // nothing was written by the refused clients
        assertThat(three.stats(queue).pending()).isEqualTo(1);
        for (int p = 0; p < 2; p++) {
            assertThat(pendingIn(two, queue, p)).isZero();
        }
        assertThat(redis.redisson().getScoredSortedSet(QueueKeys.of(redis.prefix(), queue).keys().get(1).toString(),
                StringCodec.INSTANCE).size()).isZero();
        assertThat(three.cancel(queue, "first")).isTrue();
    }

    @Test
    void aQueueWithMessagesInTheOnePartitionLayoutRefusesPartitionsUntilItIsEmpty() {
        String queue = "was-single";
        DelayQueueClient single = redis.client();
        single.send(queue, "old", Duration.ofHours(1), SendOptions.id("old"));
        DelayQueueClient four = client(queue, 4);
        assertThatThrownBy(() -> four.send(queue, "new", Duration.ZERO)).isInstanceOf(PartitionCountException.class)
                .hasMessageContaining("has 1 partition recorded");
        assertThat(single.cancel(queue, "old")).isTrue();
        // the one-partition client recorded its count: the change needs the record deleted (docs/operations/scaling.md)
        redis.redisson().getKeys().delete(QueueKeys.partitionsKey(redis.prefix(), queue));
        four.send(queue, "new", Duration.ofHours(1), SendOptions.id("new"));
        assertThat(four.stats(queue).pending()).isEqualTo(1);
        // checked at a client's first use of the queue: an application started with one partition now is refused
        DelayQueueClient restarted = redis.client();
        assertThatThrownBy(() -> restarted.send(queue, "again", Duration.ZERO)).isInstanceOf(PartitionCountException.class)
                .hasMessageContaining("has 4 partitions recorded");
    }

    /**
     * A schedule keeps its keys in its partition, and a paused one has no tick pending, so "pending 0" let the count
     * change and strand it: after the change it was not found, and a put made a second copy. Partitions are refused
     * while the one-partition layout holds schedules, naming them.
     */
    @Test
    void schedulesInTheOnePartitionLayoutRefusePartitionsNamingThem() {
        String queue = "was-single-scheduled";
        DelayQueueClient single = redis.client();
        io.github.delayqueue.core.schedule.Schedules schedules = io.github.delayqueue.core.schedule.Schedules.builder(single).build();
        schedules.put(io.github.delayqueue.core.schedule.ScheduleSpec.every(queue, "nightly", Duration.ofHours(1))
                .payloadJson("\"x\"").build());
        assertThat(schedules.pause(queue, "nightly")).isTrue();
        assertThat(single.stats(queue).pending()).isZero();
        redis.redisson().getKeys().delete(QueueKeys.partitionsKey(redis.prefix(), queue));
        DelayQueueClient four = client(queue, 4);
        assertThatThrownBy(() -> four.send(queue, "new", Duration.ZERO)).isInstanceOf(PartitionCountException.class)
                .hasMessageContaining("schedules").hasMessageContaining("nightly");
        assertThat(schedules.remove(queue, "nightly")).isTrue();
        redis.redisson().getKeys().delete(QueueKeys.partitionsKey(redis.prefix(), queue));
        four.send(queue, "new", Duration.ofHours(1), SendOptions.id("new"));
        assertThat(four.stats(queue).pending()).isEqualTo(1);
    }

    @Test
    void badPartitionCountsAreRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> ClientOptions.builder().partitions("q", 0))
                .withMessageContaining("between 1 and 64");
        assertThatIllegalArgumentException().isThrownBy(() -> ClientOptions.builder().partitions("q", 65))
                .withMessageContaining("between 1 and 64");
        assertThatIllegalArgumentException().isThrownBy(() -> ClientOptions.builder().partitions("bad name", 2))
                .withMessageContaining("queue name");
        assertThatIllegalArgumentException().isThrownBy(() -> ClientOptions.builder().partitions(null, 2))
                .withMessageContaining("queue name");
        assertThat(ClientOptions.builder().partitions("q", 5).build().partitions("q")).isEqualTo(5);
        assertThat(ClientOptions.builder().build().partitions("q")).isEqualTo(1);
    }
}
