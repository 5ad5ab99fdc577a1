package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.protocol.ClaimLimits;
import io.github.delayqueue.core.protocol.GroupLimits;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.Scripts;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;
import io.github.delayqueue.testing.TestRedis;

/**
 * Priorities among due messages (SendOptions.priority, ConsumerOptions.priorityAging / strictPriority,
 * includes/priorities.lua): higher first among due messages, due order within one, never early, the aging bound, and
 * every path that puts a message back keeping its priority. Claims are run by hand (QueueOps) where the order is the
 * property, so that no consumer's timing is in it.
 */
@ExtendWith(RedisExtension.class)
class PrioritiesTest {

    private final RedisContext redis;
    private final List<DelayQueueConsumer> consumers = new ArrayList<>();
    private final List<RedissonClient> clients = new ArrayList<>();

    PrioritiesTest(RedisContext redis) {
        this.redis = redis;
    }

    @AfterEach
    void tearDown() {
        consumers.forEach(DelayQueueConsumer::stop);
        clients.forEach(RedissonClient::shutdown);
    }

    /** The partition count of the queues here (the partitioned subclass says 3). */
    int partitions() {
        return 1;
    }

    private DelayQueueClient application(String queue) {
        RedissonClient own = TestRedis.newClient();
        clients.add(own);
        ClientOptions.Builder options = ClientOptions.builder().keyPrefix(redis.prefix());
        if (partitions() > 1) {
            options.partitions(queue, partitions());
        }
        return DelayQueueClient.create(own, options.build());
    }

    private RedissonClient redisson() {
        return clients.get(clients.size() - 1);
    }

    /** The priority a claimed member carries (includes/format.lua): "^<digit>..." or the default. */
    static int priorityOf(QueueOps.Claimed message) {
        return message.member().startsWith("^") ? message.member().charAt(1) - '0' : SendOptions.DEFAULT_PRIORITY;
    }

    /** Claims every partition dry, {@code limit} at a time; the messages of each partition in claim order. */
    static List<List<QueueOps.Claimed>> claimAll(RedissonClient redisson, String prefix, String queue, int partitions,
            int limit, long agingMs) {
        List<List<QueueOps.Claimed>> all = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            QueueOps ops = new QueueOps(new Scripts(redisson), QueueKeys.of(prefix, queue, p, partitions));
            List<QueueOps.Claimed> order = new ArrayList<>();
            for (List<QueueOps.Claimed> batch = claim(ops, limit, agingMs); !batch.isEmpty();
                    batch = claim(ops, limit, agingMs)) {
                order.addAll(batch);
            }
            all.add(order);
        }
        return all;
    }

    private static List<QueueOps.Claimed> claim(QueueOps ops, int limit, long agingMs) {
        return ops.claim(limit, 60_000, 5, 100, Duration.ofDays(1).toMillis(), 1000, ClaimLimits.NONE, false,
                GroupLimits.NONE, false, 0, null, agingMs).messages();
    }

    /**
     * 33 messages due within a few milliseconds of each other, of every priority and without one, sent in a shuffled
     * order: each partition hands them out highest priority first, and within a priority in due order, then send order.
     */
    static void claimsTakeHigherPrioritiesFirst(DelayQueueClient client, RedissonClient redisson, String prefix,
            String queue, int partitions) {
        Instant base = Instant.now().minusSeconds(5); // due already: a claim in the send's millisecond sees them
        List<SendRequest> requests = new ArrayList<>();
        for (int p = 0; p <= 9; p++) {
            for (int k = 0; k < 3; k++) {
                requests.add(SendRequest.at("p" + p, base.plusMillis(k), SendOptions.id("p" + p + "-" + k).priority(p)));
            }
        }
        for (int k = 0; k < 3; k++) {
            requests.add(SendRequest.at("none", base.plusMillis(k), SendOptions.id("none-" + k)));
        }
        Collections.shuffle(requests, new Random(7));
        client.sendAll(queue, requests);
        int claimed = 0;
        for (List<QueueOps.Claimed> order : claimAll(redisson, prefix, queue, partitions, 4, 0)) {
            for (int i = 1; i < order.size(); i++) {
                QueueOps.Claimed before = order.get(i - 1);
                QueueOps.Claimed after = order.get(i);
                assertThat(priorityOf(after)).as("%s after %s", after.id(), before.id()).isLessThanOrEqualTo(priorityOf(before));
                if (priorityOf(after) == priorityOf(before)) {
                    assertThat(after.dueMs()).as("%s after %s", after.id(), before.id()).isGreaterThanOrEqualTo(before.dueMs());
                }
            }
            claimed += order.size();
        }
        assertThat(claimed).isEqualTo(33);
    }

    @Test
    void dueMessagesAreClaimedHighestPriorityFirst() {
        String queue = "prio-order";
        DelayQueueClient client = application(queue);
        claimsTakeHigherPrioritiesFirst(client, redisson(), redis.prefix(), queue, partitions());
        assertThat(client.stats(queue).pending()).isZero();
    }

    /** A message of priority 9 due later than a claim is not claimed by it, whatever waits below it. */
    @Test
    void aPriorityNeverMakesAMessageClaimableEarly() {
        String queue = "prio-early";
        DelayQueueClient client = application(queue);
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            requests.add(SendRequest.of("high", Duration.ofMillis(700), SendOptions.id("high-" + i).priority(9)));
            requests.add(SendRequest.at("low", Instant.now().minusSeconds(1), SendOptions.id("low-" + i).priority(0)));
        }
        client.sendAll(queue, requests);
        List<QueueOps.Claimed> seen = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> {
            for (int p = 0; p < partitions(); p++) {
                QueueOps ops = new QueueOps(new Scripts(redisson()), QueueKeys.of(redis.prefix(), queue, p, partitions()));
                QueueOps.ClaimResult result = ops.claim(100, 60_000, 5, 100, Duration.ofDays(1).toMillis(), 1000,
                        ClaimLimits.NONE, false, GroupLimits.NONE, false, 0, null, 0);
                for (QueueOps.Claimed message : result.messages()) {
                    // never early: due at or before the Redis clock of the claim that handed it out
                    assertThat(message.dueMs()).as(message.id()).isLessThanOrEqualTo(result.serverNowMicros() / 1000);
                    seen.add(message);
                }
            }
            return seen.size() == 12;
        });
    }

    /**
     * The aging bound: a message of priority 0 due at T goes before every message of priority 9 that became due after
     * T + 9 x aging, and after those due before (100 ms a level here; 200 of priority 9 due every 10 ms from T). With
     * strict priority it goes last.
     */
    @Test
    void agingBoundsHowLongALowPriorityWaitsBehindAFlood() {
        for (long agingMs : new long[] {100, QueueOps.STRICT_PRIORITY}) {
            String queue = "prio-aging-" + (agingMs < 0 ? "strict" : agingMs);
            DelayQueueClient client = application(queue);
            Instant t = Instant.now().minusSeconds(10);
            List<SendRequest> requests = new ArrayList<>();
            requests.add(SendRequest.at("low", t, SendOptions.id("low").priority(0)));
            for (int i = 0; i < 200; i++) {
                requests.add(SendRequest.at("high", t.plusMillis(10L * i), SendOptions.id("high-" + i).priority(9)));
            }
            client.sendAll(queue, requests);
            boolean found = false;
            for (List<QueueOps.Claimed> order : claimAll(redisson(), redis.prefix(), queue, partitions(), 25, agingMs)) {
                int low = order.stream().map(QueueOps.Claimed::id).toList().indexOf("low");
                if (low < 0) {
                    continue;
                }
                found = true;
                long lowDue = order.get(low).dueMs(); // t rounded up to the millisecond, as every due time
                long ahead = agingMs < 0 ? order.size() - 1 // strict: every high first
                        : order.stream().filter(m -> !m.id().equals("low") && m.dueMs() - 9 * agingMs <= lowDue).count();
                assertThat(low).as("place of the low priority message (aging %d ms)", agingMs).isEqualTo((int) ahead);
            }
            assertThat(found).isTrue();
        }
    }

    /**
     * With groups and limits: grouped messages count at the default priority and keep their group's cap; the queue's
     * cap in flight takes the highest first. One partition: the limits' split over partitions is FlowPartitionsTest's.
     */
    @Test
    void groupsAndLimitsTakeTheirShareAtTheDefaultPriority() {
        Assumptions.assumeTrue(partitions() == 1, "the limits' split over partitions is another test's");
        String queue = "prio-groups";
        DelayQueueClient client = application(queue);
        Instant t = Instant.now().minusSeconds(5);
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            requests.add(SendRequest.at("g", t, SendOptions.id("g-" + i).group("G")));
            requests.add(SendRequest.at("low", t.minusMillis(10), SendOptions.id("low-" + i).priority(0)));
            requests.add(SendRequest.at("high", t.plusMillis(10), SendOptions.id("high-" + i).priority(9)));
        }
        client.sendAll(queue, requests);
        QueueOps ops = new QueueOps(new Scripts(redisson()), QueueKeys.of(redis.prefix(), queue));
        List<String> first = ops.claim(10, 60_000, 5, 100, Duration.ofDays(1).toMillis(), 1000,
                ClaimLimits.of(null, 5, 0, 1), false, GroupLimits.of(null, 1, 0, 1), false, 0, null, 0)
                .messages().stream().map(QueueOps.Claimed::id).toList();
        // the queue's cap of 5: the three of priority 9, then G's first (its cap of one), then the earliest of priority 0
        assertThat(first).containsExactly("high-0", "high-1", "high-2", "g-0", "low-0");
    }

    /** A consumer hands a backlog to its handler highest priority first (one at a time, one partition). */
    @Test
    void aConsumerRunsABacklogHighestPriorityFirst() {
        Assumptions.assumeTrue(partitions() == 1, "a consumer takes its partitions in turn: the order is per partition");
        String queue = "prio-consumer";
        DelayQueueClient client = application(queue);
        List<SendRequest> requests = new ArrayList<>();
        Random random = new Random(11);
        for (int i = 0; i < 60; i++) {
            requests.add(SendRequest.at("m", Instant.now().minusSeconds(2), SendOptions.id("m" + i).priority(random.nextInt(10))));
        }
        client.sendAll(queue, requests);
        List<Integer> handled = new CopyOnWriteArrayList<>();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (payload, context) -> handled.add(
                client.message(queue, context.id()).map(QueuedMessage::priority).orElse(-1)),
                ConsumerOptions.builder().concurrency(1).batchSize(1).build());
        consumers.add(consumer);
        consumer.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == 60);
        List<Integer> sorted = new ArrayList<>(handled);
        sorted.sort(Collections.reverseOrder());
        assertThat(handled).isEqualTo(sorted);
    }

    /**
     * Every way back to pending keeps the priority (retry, hand-back, an expired lease, a dead letter requeued,
     * reschedule); a replace send sets the new one; a cancel leaves nothing behind, the markers included.
     */
    @Test
    void everyWayBackKeepsThePriority() throws InterruptedException {
        String queue = "prio-back";
        DelayQueueClient client = application(queue);
        Instant past = Instant.now().minusSeconds(1);
        for (String id : List.of("retry", "back", "lease", "dead")) {
            client.sendAt(queue, id, past, SendOptions.id(id).priority(8));
        }
        client.sendAt(queue, "moved", Instant.now().plusSeconds(3600), SendOptions.id("moved").priority(8));
        for (int p = 0; p < partitions(); p++) {
            QueueOps ops = new QueueOps(new Scripts(redisson()), QueueKeys.of(redis.prefix(), queue, p, partitions()));
            for (QueueOps.Claimed m : ops.claim(10, 200, 5, 100, Duration.ofDays(1).toMillis(), 1000, ClaimLimits.NONE,
                    false, GroupLimits.NONE, false, 0, null, 0).messages()) {
                assertThat(priorityOf(m)).isEqualTo(8);
                switch (m.id()) {
                    case "retry" -> ops.settle(List.of(new QueueOps.Settlement(QueueOps.SettleOp.RETRY, m.member(), m.attempt(), 0, "x")));
                    case "back" -> ops.settle(List.of(new QueueOps.Settlement(QueueOps.SettleOp.HAND_BACK, m.member(), m.attempt(), m.dueMs(), null)));
                    case "dead" -> ops.settle(List.of(new QueueOps.Settlement(QueueOps.SettleOp.DEAD, m.member(), m.attempt(), 0, "x")));
                    default -> { } // "lease": its lease of 200 ms runs out
                }
            }
        }
        assertThat(client.requeueAllDeadLetters(queue)).isEqualTo(1);
        assertThat(client.reschedule(queue, "moved", Duration.ofHours(2))).isTrue();
        Thread.sleep(300); // the lease of "lease" runs out
        for (String id : List.of("retry", "back", "dead", "moved")) {
            assertThat(client.message(queue, id)).as(id).hasValueSatisfying(m -> {
                assertThat(m.state()).isEqualTo(QueuedMessage.State.PENDING);
                assertThat(m.priority()).isEqualTo(8);
            });
        }
        client.sendAt(queue, "low", past, SendOptions.id("low").priority(0));
        List<String> again = new ArrayList<>();
        for (List<QueueOps.Claimed> order : claimAll(redisson(), redis.prefix(), queue, partitions(), 10, 0)) {
            for (QueueOps.Claimed m : order) {
                assertThat(priorityOf(m)).as(m.id()).isEqualTo(m.id().equals("low") ? 0 : 8);
                again.add(m.id());
            }
        }
        assertThat(again).containsExactlyInAnyOrder("retry", "back", "lease", "dead", "low");
        // a replace send sets the new priority; a cancel leaves no member and, after a claim, no marker
        client.send(queue, "moved", Duration.ofHours(1), SendOptions.id("moved").replaceExisting().priority(1));
        assertThat(client.message(queue, "moved")).hasValueSatisfying(m -> assertThat(m.priority()).isEqualTo(1));
        assertThat(client.cancel(queue, "moved")).isTrue();
        claimAll(redisson(), redis.prefix(), queue, partitions(), 10, 0);
        for (int p = 0; p < partitions(); p++) {
            QueueKeys keys = QueueKeys.of(redis.prefix(), queue, p, partitions());
            assertThat(redisson().getScoredSortedSet((String) keys.keys().get(1), StringCodec.INSTANCE).readAll())
                    .as("delayed of partition %d", p).isEmpty();
        }
        assertThat(client.stats(queue).pending()).isZero();
    }

    /**
     * Stats and reads: prioritized messages count as pending and ready, per priority too, the markers do not; a page of
     * pending messages lists them in due order with their priority.
     */
    @Test
    void statsAndPagesShowThePriorities() {
        String queue = "prio-stats";
        DelayQueueClient client = application(queue);
        Instant past = Instant.now().minusSeconds(5);
        client.sendAt(queue, "a", past, SendOptions.id("a").priority(9));
        client.sendAt(queue, "b", past.plusMillis(1), SendOptions.id("b").priority(9));
        client.sendAt(queue, "c", past.plusMillis(2), SendOptions.id("c").priority(0));
        client.sendAt(queue, "d", past.plusMillis(3), SendOptions.id("d"));
        client.sendAt(queue, "e", past.plusMillis(4), SendOptions.id("e").group("G"));
        client.send(queue, "f", Duration.ofHours(1), SendOptions.id("f").priority(7));
        QueueStats stats = client.stats(queue);
        assertThat(stats.pending()).isEqualTo(6);
        assertThat(stats.ready()).isEqualTo(5);
        assertThat(stats.readyByPriority()).containsExactly(Map.entry(9, 2L), Map.entry(4, 2L), Map.entry(0, 1L));
        assertThat(stats.nextDueAt()).isBetween(past.minusMillis(1), past.plusMillis(1)); // rounded up to the ms
        // a page lists ungrouped messages (groups are paged by group), in due order across priorities
        MessagePage page = client.pending(queue, 0, 10);
        assertThat(page.messages()).extracting(QueuedMessage::id).containsExactly("a", "b", "c", "d", "f");
        assertThat(page.messages()).extracting(QueuedMessage::priority).containsExactly(9, 9, 0, 4, 7);
        assertThat(page.messages().get(0).headers()).isEmpty();
        assertThat(client.pending(queue, 3, 10).messages()).extracting(QueuedMessage::id).containsExactly("d", "f");
    }

    /** Expiry applies to prioritized messages as to others: past its expiry a message is dead-lettered, not claimed. */
    @Test
    void anExpiredPrioritizedMessageIsDeadLetteredNotClaimed() {
        String queue = "prio-expiry";
        DelayQueueClient client = application(queue);
        Instant now = Instant.now();
        client.sendAt(queue, "old", now.minusSeconds(2), SendOptions.id("old").priority(9).expiresAt(now.minusSeconds(1)));
        client.sendAt(queue, "fresh", now.minusSeconds(2), SendOptions.id("fresh").priority(1));
        List<String> claimed = new ArrayList<>();
        claimAll(redisson(), redis.prefix(), queue, partitions(), 10, 0).forEach(order -> order.forEach(m -> claimed.add(m.id())));
        assertThat(claimed).containsExactly("fresh");
        assertThat(client.stats(queue).dead()).isEqualTo(1);
        assertThat(client.stats(queue).pending()).isZero();
    }

    /**
     * Members written by hand at -inf beside the priorities' markers (no script writes one: a marker is two bytes) leave
     * delayed with the first claim, whatever their shape, and the prioritized messages are still claimed.
     */
    @Test
    void aForeignMemberAtMinusInfinityLeavesWithTheFirstClaim() {
        Assumptions.assumeTrue(partitions() == 1, "the keys of one partition are written by hand");
        String queue = "prio-foreign";
        DelayQueueClient client = application(queue);
        client.sendAt(queue, "p", Instant.now().minusSeconds(1), SendOptions.id("p").priority(7));
        String delayed = (String) QueueKeys.of(redis.prefix(), queue).keys().get(1);
        redisson().getScript(StringCodec.INSTANCE).eval(org.redisson.api.RScript.Mode.READ_WRITE,
                "return redis.call('ZADD', KEYS[1], '-inf', ARGV[1], '-inf', ARGV[2])",
                org.redisson.api.RScript.ReturnType.LONG, List.of(delayed), "^9-------1x", "~-------1y");
        var set = redisson().<String>getScoredSortedSet(delayed, StringCodec.INSTANCE);
        List<String> claimed = new ArrayList<>();
        claimAll(redisson(), redis.prefix(), queue, 1, 10, 0).forEach(order -> order.forEach(m -> claimed.add(m.id())));
        assertThat(claimed).containsExactly("p");
        assertThat(set.readAll()).isEmpty();
    }

    /**
     * The turns at checking idle queues read a queue holding prioritized messages (the markers' -inf is a score Redisson
     * cannot read back) and find it due, so its consumer claims on the turn: the claim reads the priorities' sets the
     * turn does not.
     */
    @Test
    void theIdleCheckReadsAQueueHoldingPrioritizedMessagesAsDue() {
        Assumptions.assumeTrue(partitions() == 1, "one partition's keys are probed");
        String queue = "prio-watch";
        DelayQueueClient client = application(queue);
        io.github.delayqueue.core.protocol.WatchRegistry watch = new io.github.delayqueue.core.protocol.WatchRegistry(
                redisson(), new Scripts(redisson()), redis.prefix());
        QueueKeys keys = QueueKeys.of(redis.prefix(), queue);
        var probe = new io.github.delayqueue.core.protocol.WatchRegistry.Probe(keys, true, true);
        client.send(queue, "plain", Duration.ofHours(1), SendOptions.id("plain"));
        long plainDue = watch.probe(List.of(probe)).get(0).dueMs();
        assertThat(plainDue).isGreaterThan(System.currentTimeMillis());
        client.send(queue, "later", Duration.ofHours(2), SendOptions.id("later").priority(7));
        assertThat(watch.probe(List.of(probe)).get(0).dueMs()).isZero();
        assertThat(client.cancel(queue, "later")).isTrue();
        claimAll(redisson(), redis.prefix(), queue, 1, 10, 0); // takes the marker of the emptied set out
        assertThat(watch.probe(List.of(probe)).get(0).dueMs()).isEqualTo(plainDue);
    }

    /**
     * A page of pending messages merges delayed and the priorities' sets without losing or repeating one when the
     * groups' marker is in delayed.
     */
    @Test
    void pagesListEveryPendingMessageOnceBesideGroups() {
        String queue = "prio-pages";
        DelayQueueClient client = application(queue);
        Instant t = Instant.now().plusSeconds(3600);
        client.sendAt(queue, "g", t, SendOptions.id("g").group("G"));
        for (int i = 1; i <= 5; i++) {
            client.sendAt(queue, "p" + i, t.plusSeconds(i), SendOptions.id("p" + i));
        }
        client.sendAt(queue, "q", t.plusSeconds(10), SendOptions.id("q").priority(8));
        List<String> listed = new ArrayList<>();
        for (int offset = 0; offset < 12; offset += 5) {
            client.pending(queue, offset, 5).messages().forEach(m -> listed.add(m.id()));
        }
        if (partitions() == 1) {
            assertThat(listed).containsExactly("p1", "p2", "p3", "p4", "p5", "q");
        } else {
            assertThat(listed).containsExactlyInAnyOrder("p1", "p2", "p3", "p4", "p5", "q");
        }
    }

    /** Bad input gets a clear error and writes nothing. */
    @Test
    void badPrioritiesAreRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.none().priority(10)).withMessageContaining("0 to 9");
        assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.none().priority(-1)).withMessageContaining("0 to 9");
        assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.none().group("G").priority(5))
                .withMessageContaining("a group or a priority");
        assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.none().priority(5).group("G"))
                .withMessageContaining("a group or a priority");
        assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.none().header(SendOptions.PRIORITY_HEADER, "9"))
                .withMessageContaining("reserved");
        assertThatIllegalArgumentException().isThrownBy(() -> ClientOptions.builder().defaultPriority("q", 10))
                .withMessageContaining("0 to 9");
        assertThatIllegalArgumentException().isThrownBy(() -> ConsumerOptions.builder().priorityAging(Duration.ZERO).build())
                .withMessageContaining("priorityAging");
        assertThatIllegalArgumentException().isThrownBy(() -> ConsumerOptions.builder().priorityAging(Duration.ofDays(2)).build())
                .withMessageContaining("priorityAging");
    }

    /** A queue's default priority applies to sends without one; a grouped message keeps the global default. */
    @Test
    void aQueuesDefaultPriorityAppliesToSendsWithoutOne() {
        String queue = "prio-default";
        RedissonClient own = TestRedis.newClient();
        clients.add(own);
        ClientOptions.Builder options = ClientOptions.builder().keyPrefix(redis.prefix()).defaultPriority(queue, 2);
        if (partitions() > 1) {
            options.partitions(queue, partitions());
        }
        DelayQueueClient client = DelayQueueClient.create(own, options.build());
        client.send(queue, "x", Duration.ofHours(1), SendOptions.id("x"));
        client.send(queue, "y", Duration.ofHours(1), SendOptions.id("y").priority(6));
        client.send(queue, "z", Duration.ofHours(1), SendOptions.id("z").group("G"));
        assertThat(client.message(queue, "x")).hasValueSatisfying(m -> assertThat(m.priority()).isEqualTo(2));
        assertThat(client.message(queue, "y")).hasValueSatisfying(m -> assertThat(m.priority()).isEqualTo(6));
        assertThat(client.message(queue, "z")).hasValueSatisfying(m -> assertThat(m.priority()).isEqualTo(4));
    }
}
