package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
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
 * Fair shares per group (SendOptions.group, ConsumerOptions.groupRateLimit / groupMaxInFlight, includes/groups.lua).
 * Consumers are separate applications (their own Redisson clients), so only what Redis holds keeps them within the
 * limits of each group.
 */
@ExtendWith(RedisExtension.class)
class GroupsTest {

    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private final RedisContext redis;
    private final List<DelayQueueConsumer> consumers = new ArrayList<>();
    private final List<RedissonClient> clients = new ArrayList<>();

    GroupsTest(RedisContext redis) {
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

    /** One application: its own Redisson client on the same Redis and key prefix. */
    private DelayQueueClient application(String queue) {
        RedissonClient own = TestRedis.newClient();
        clients.add(own);
        ClientOptions.Builder options = ClientOptions.builder().keyPrefix(redis.prefix());
        if (partitions() > 1) {
            options.partitions(queue, partitions());
        }
        return DelayQueueClient.create(own, options.build());
    }

    private void consume(DelayQueueClient client, String queue, ConsumerOptions options, MessageHandler<String> handler) {
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, handler, options);
        consumers.add(consumer);
        consumer.start();
    }

    private static SendRequest grouped(String id, String group, Duration delay) {
        return SendRequest.of(group + ":" + id, delay, SendOptions.id(id).group(group));
    }

    private static void sendAll(DelayQueueClient producer, String queue, List<SendRequest> requests) {
        for (int from = 0; from < requests.size(); from += 500) {
            producer.sendAll(queue, requests.subList(from, Math.min(requests.size(), from + 500)));
        }
    }

    /**
     * The fairness test, scaled down (A 1,000 due first, B and C 40 each, 20/1s per group; three
     * instances): B and C finish within their own limit's time (2 s; 12 s only a fault crosses) and before A, which
     * keeps its share meanwhile. Without the groups index, B and C would wait behind A's 1,000 (due first).
     */
    @Test
    void aBigGroupDoesNotHoldBackTheSmallOnes() {
        String queue = "fair";
        DelayQueueClient producer = application(queue);
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            requests.add(grouped("a" + i, "A", Duration.ZERO));
        }
        sendAll(producer, queue, requests);
        requests.clear();
        for (int i = 0; i < 40; i++) {
            requests.add(grouped("b" + i, "B", Duration.ZERO));
            requests.add(grouped("c" + i, "C", Duration.ZERO));
        }
        sendAll(producer, queue, requests);
        assertThat(producer.stats(queue).pending()).isEqualTo(1_080);

        ConsumerOptions options = ConsumerOptions.builder().concurrency(16).groupRateLimit(RateLimit.parse("20/1s"))
                .maxPollInterval(Duration.ofSeconds(30)).build();
        Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();
        Set<String> ids = ConcurrentHashMap.newKeySet();
        AtomicInteger twice = new AtomicInteger();
        Map<String, Long> doneAt = new ConcurrentHashMap<>();
        List<DelayQueueClient> instances = List.of(application(queue), application(queue), application(queue));
        for (DelayQueueClient instance : instances) {
            consume(instance, queue, options, (payload, context) -> {
                if (!ids.add(context.id())) {
                    twice.incrementAndGet();
                }
                String group = payload.substring(0, 1);
                if (handled.computeIfAbsent(group, g -> new AtomicInteger()).incrementAndGet() == 40) {
                    doneAt.put(group, System.nanoTime());
                }
            });
        }
        long start = System.nanoTime(); // once the consumers run: their clients' start is not the groups' time
        await().atMost(DEADLINE).until(() -> doneAt.containsKey("B") && doneAt.containsKey("C"));
        double seconds = (Math.max(doneAt.get("B"), doneAt.get("C")) - start) / 1e9;
        int aSoFar = handled.get("A").get();
        // 40 at 20/1s take 2 s (the first immediately); a claim stuck behind A's 1,000 takes 50 s
        assertThat(seconds).isLessThan(12);
        assertThat(aSoFar).as("A handled while B and C drained").isGreaterThanOrEqualTo(10).isLessThan(1_000);
        assertThat(twice).hasValue(0);
    }

    /**
     * groupMaxInFlight 2 (3 on a partitioned queue: a whole share per partition) over three instances of 8: no handler
     * ever sees more of one group running.
     */
    @Test
    void aGroupsInFlightCapHoldsOverEveryInstance() {
        String queue = "group-capped";
        DelayQueueClient producer = application(queue);
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            requests.add(grouped("x" + i, "X", Duration.ZERO));
            requests.add(grouped("y" + i, "Y", Duration.ZERO));
        }
        sendAll(producer, queue, requests);
        int cap = Math.max(2, partitions());
        ConsumerOptions options = ConsumerOptions.builder().concurrency(8).groupMaxInFlight(cap)
                .maxPollInterval(Duration.ofSeconds(30)).build();
        Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
        Map<String, Integer> most = new ConcurrentHashMap<>();
        AtomicInteger handled = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            consume(application(queue), queue, options, (payload, context) -> {
                String group = payload.substring(0, 1);
                int now = running.computeIfAbsent(group, g -> new AtomicInteger()).incrementAndGet();
                most.merge(group, now, Math::max);
                Thread.sleep(30);
                running.get(group).decrementAndGet();
                handled.incrementAndGet();
            });
        }
        await().atMost(DEADLINE).until(() -> handled.get() == 40);
        assertThat(most.values()).allMatch(n -> n <= cap);
        assertThat(producer.stats(queue).pending()).isZero();
    }

    /**
     * A SlowDownException of one group's message holds that group on every instance, not the queue: the other group's
     * messages go before the hold's end (as Redis recorded it; 10 s, a bound only a fault crosses), the held group's
     * after it.
     */
    @Test
    void aSlowDownHoldsItsGroupOnly() {
        String queue = "group-slow";
        DelayQueueClient producer = application(queue);
        List<Long> other = new CopyOnWriteArrayList<>(); // wall clock ms, the clock of the test's Redis on this machine
        List<Long> slowGroup = new CopyOnWriteArrayList<>();
        AtomicInteger thrown = new AtomicInteger();
        ConsumerOptions options = ConsumerOptions.builder().concurrency(4).maxPollInterval(Duration.ofSeconds(30)).build();
        for (int i = 0; i < 2; i++) {
            consume(application(queue), queue, options, (payload, context) -> {
                if (payload.startsWith("S:")) {
                    if (payload.equals("S:s0") && thrown.compareAndSet(0, 1)) {
                        throw new SlowDownException(Duration.ofSeconds(10));
                    }
                    slowGroup.add(System.currentTimeMillis());
                } else {
                    other.add(System.currentTimeMillis());
                }
            });
        }
        producer.sendAll(queue, List.of(grouped("s0", "S", Duration.ZERO)));
        // the hold's end on every partition, as hold.lua wrote it (Redis clock ms); the earliest one bounds them all
        List<String> holds = new ArrayList<>();
        await().atMost(DEADLINE).until(() -> {
            holds.clear();
            for (int p = 0; p < partitions(); p++) {
                String messages = (String) QueueKeys.of(redis.prefix(), queue, p, partitions()).keys().get(0);
                String flow = messages.substring(0, messages.length() - "messages".length()) + "group-flow";
                holds.add(redis.redisson().<String, String>getMap(flow, StringCodec.INSTANCE).get("h:S"));
            }
            return !holds.contains(null);
        });
        long holdEnd = holds.stream().mapToLong(Long::parseLong).min().orElseThrow();
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 1; i < 5; i++) {
            requests.add(grouped("s" + i, "S", Duration.ZERO));
            requests.add(grouped("o" + i, "O", Duration.ZERO));
        }
        producer.sendAll(queue, requests);
        await().atMost(DEADLINE).until(() -> other.size() == 4 && slowGroup.size() == 5);
        // the other group ran during the hold; the held group's messages only after it
        assertThat(other).allMatch(t -> t < holdEnd);
        assertThat(slowGroup).allMatch(t -> t >= holdEnd);
        assertThat(thrown).hasValue(1);
    }

    /** Cancel, reschedule, replace, peek and a dedup window find a grouped message by its id; stats count it. */
    @Test
    void identityOperationsFindGroupedMessages() {
        String queue = "group-identity";
        DelayQueueClient client = application(queue);
        client.send(queue, "one", Duration.ofHours(1), SendOptions.id("one").group("G"));
        client.send(queue, "two", Duration.ofHours(1), SendOptions.id("two").group("G"));
        client.send(queue, "three", Duration.ofHours(1), SendOptions.id("three"));
        client.send(queue, "other", Duration.ofMinutes(30), SendOptions.id("other").group("F"));
        assertThat(client.stats(queue).pending()).isEqualTo(4);
        // the operators' read: the group furthest behind (oldest due) first, its messages summed over partitions
        List<GroupStats> groups = client.groups(queue, 10);
        assertThat(groups).extracting(GroupStats::group).containsExactly("F", "G");
        assertThat(groups.get(1).pending()).isEqualTo(2);
        assertThat(groups.get(1).inFlight()).isZero();
        assertThat(groups.get(1).nextClaimAt()).isEqualTo(groups.get(1).oldestDueAt()).isAfter(Instant.now());
        // the pending page lists ungrouped messages (grouped ones are read by id and per group), and counts them only
        assertThat(client.pending(queue, 0, 10).total()).isEqualTo(1);
        assertThat(client.pending(queue, 0, 10).messages()).extracting(QueuedMessage::id).containsExactly("three");
        MessagePage inG = client.pendingInGroup(queue, "G", 0, 10);
        assertThat(inG.total()).isEqualTo(2);
        assertThat(inG.messages()).extracting(QueuedMessage::id).containsExactly("one", "two");
        assertThat(client.pendingInGroup(queue, "G", 1, 10).messages()).extracting(QueuedMessage::id).containsExactly("two");
        assertThat(client.pendingInGroup(queue, "nobody", 0, 10).total()).isZero();
        assertThat(client.cancel(queue, "other")).isTrue();
        assertThat(client.groups(queue, 10)).extracting(GroupStats::group).containsExactly("G");
        assertThat(client.stats(queue).pending()).isEqualTo(3);
        assertThat(client.message(queue, "one")).isPresent();
        assertThat(client.message(queue, "one").get().headers()).doesNotContainKey(SendOptions.GROUP_HEADER);

        assertThat(client.cancel(queue, "one")).isTrue();
        assertThat(client.cancel(queue, "one")).isFalse();
        assertThat(client.message(queue, "one")).isEmpty();
        assertThat(client.stats(queue).pending()).isEqualTo(2);

        // if-absent keeps it, replace moves it to another group, then out of groups
        client.send(queue, "two-again", Duration.ZERO, SendOptions.id("two").group("G"));
        assertThat(client.message(queue, "two").get().dueAt()).isAfter(Instant.now().plusSeconds(3000));
        client.send(queue, "two-h", Duration.ofHours(2), SendOptions.id("two").group("H").replaceExisting());
        client.send(queue, "two-none", Duration.ofHours(2), SendOptions.id("two").replaceExisting());
        client.send(queue, "two-g", Duration.ofHours(2), SendOptions.id("two").group("G").replaceExisting());
        assertThat(client.stats(queue).pending()).isEqualTo(2);

        assertThat(client.reschedule(queue, "two", Duration.ofMillis(200))).isTrue();
        List<String> seen = new CopyOnWriteArrayList<>();
        List<Instant[]> seenAtAndDue = new CopyOnWriteArrayList<>();
        consume(client, queue, ConsumerOptions.builder().groupMaxInFlight(partitions()).maxPollInterval(Duration.ofSeconds(30)).build(),
                (payload, context) -> {
                    seenAtAndDue.add(new Instant[] {Instant.now(), context.dueAt()});
                    seen.add(payload);
                });
        await().atMost(DEADLINE).until(() -> seen.size() == 1);
        assertThat(seen).containsExactly("two-g");
        // a dedup window remembers a grouped id after delivery
        client.send(queue, "w", Duration.ZERO, SendOptions.id("w").group("G").withDedupWindow(Duration.ofMinutes(1)));
        await().atMost(DEADLINE).until(() -> seen.size() == 2);
        client.send(queue, "w-again", Duration.ZERO, SendOptions.id("w").group("G").withDedupWindow(Duration.ofMinutes(1)));
        assertThat(client.message(queue, "w")).isEmpty();
        assertThat(client.stats(queue).pending()).isEqualTo(1); // "three"
        // never early (asserted here: a failed assertion in the handler would only be a retry)
        assertThat(seenAtAndDue).hasSize(2).allSatisfy(pair -> assertThat(pair[0]).isAfterOrEqualTo(pair[1]));
    }

    /**
     * A grouped message past its expiry is never handed out: the claim that reads it from its group dead-letters it,
     * and the group's other messages are delivered.
     */
    @Test
    void anExpiredGroupedMessageIsDeadLetteredByTheClaim() {
        String queue = "group-expiry";
        DelayQueueClient client = application(queue);
        client.pause(queue);
        client.send(queue, "stale", Duration.ZERO, SendOptions.id("stale").group("G").expiresAfter(Duration.ofMillis(1)));
        client.send(queue, "fresh", Duration.ZERO, SendOptions.id("fresh").group("G"));
        List<String> seen = new CopyOnWriteArrayList<>();
        consume(client, queue, ConsumerOptions.builder().groupMaxInFlight(partitions()).maxPollInterval(Duration.ofMillis(200))
                .build(), (payload, context) -> seen.add(payload));
        Instant expiry = client.message(queue, "stale").orElseThrow().dueAt().plusMillis(1);
        await().atMost(DEADLINE).until(() -> client.stats(queue).serverTime().isAfter(expiry)); // on the Redis clock
        client.resume(queue);
        await().atMost(DEADLINE).until(() -> seen.contains("fresh") && client.deadLetters(queue, 10).size() == 1);
        assertThat(client.deadLetters(queue, 10).get(0).reason()).startsWith("expired");
        assertThat(seen).containsExactly("fresh");
        await().atMost(DEADLINE).until(() -> client.stats(queue).pending() == 0 && client.stats(queue).inFlight() == 0);
    }

    /**
     * A grouped message whose envelope is gone (deleted by hand, or cancelled by an older release) leaves its group at
     * the claim that reads it: the group's next message is delivered under a cap of one in flight, and the claim
     * names no next event in the past (it would otherwise claim nothing and call again at once, for good).
     */
    @Test
    void aGroupedMessageWithoutItsEnvelopeDoesNotBlockItsGroup() {
        String queue = "group-ghost";
        DelayQueueClient client = application(queue);
        Instant due = Instant.now().minusSeconds(1); // due already: a claim in the send's millisecond sees them
        client.sendAt(queue, "ghost", due, SendOptions.id("ghost").group("G"));
        client.sendAt(queue, "next", due.plusMillis(1), SendOptions.id("next").group("G"));
        List<QueueOps> partitionOps = new ArrayList<>();
        for (int p = 0; p < partitions(); p++) {
            QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue, p, partitions()));
            partitionOps.add(ops);
            redis.redisson().getMap((String) ops.keys().keys().get(0), StringCodec.INSTANCE).fastRemove("ghost");
        }
        List<String> claimed = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            for (int p = 0; p < partitions(); p++) {
                QueueOps.ClaimResult result = partitionOps.get(p).claim(10, 60_000, 5, 100, Duration.ofDays(1).toMillis(),
                        1000, ClaimLimits.NONE, false, GroupLimits.of(null, partitions(), p, partitions()));
                result.messages().forEach(m -> claimed.add(m.id()));
                if (round == 2) { // "next" in flight for a minute: nothing due, so no next event before its lease ends
                    long nowMs = result.serverNowMicros() / 1000;
                    assertThat(result.nextEventMs()).as("next event of partition %d (now %d)", p, nowMs)
                            .satisfiesAnyOf(n -> assertThat(n).isEqualTo(-1L), n -> assertThat(n).isGreaterThan(nowMs));
                }
            }
        }
        assertThat(claimed).containsExactly("next");
        assertThat(client.stats(queue).pending()).isZero();
    }

    /**
     * Due order across grouped and ungrouped messages: 5 grouped messages due first, 20 ungrouped due 30 ms later,
     * claims of 5. Every claim takes the earliest due of both kinds, so the due times each partition hands out, claim
     * after claim, never go back (an ungrouped message due later was claimed before the grouped ones).
     */
    @Test
    void groupedAndUngroupedMessagesAreClaimedInDueOrder() {
        String queue = "group-order";
        claimsKeepDueOrder(application(queue), redis.redisson(), redis.prefix(), queue, partitions());
    }

    /**
     * The byte budget cuts a claim in due order: a grouped message due first is claimed in its partition's first
     * claim, however many large ungrouped envelopes due after it fill the budget (they were taken first, and the
     * grouped one cut, claim after claim).
     */
    @Test
    void theByteBudgetCutsInDueOrder() {
        String queue = "group-budget";
        budgetCutsInDueOrder(application(queue), redis.redisson(), redis.prefix(), queue, partitions());
    }

    /**
     * The same with 30 groups out of step (each group's first message due before the previous group's second), all
     * read by one claim: the candidates come in many runs, which the claim sorts instead of merging them.
     */
    @Test
    void manyGroupsOutOfStepAreClaimedInDueOrder() {
        String queue = "group-order-runs";
        DelayQueueClient client = application(queue);
        Instant due = Instant.now().minusSeconds(5);
        List<SendRequest> requests = new ArrayList<>();
        for (int g = 0; g < 30; g++) {
            requests.add(SendRequest.at("a" + g, due.plusMillis(g), SendOptions.id("a" + g).group("G" + g)));
            requests.add(SendRequest.at("b" + g, due.plusMillis(100 + g), SendOptions.id("b" + g).group("G" + g)));
            requests.add(SendRequest.at("u" + g, due.plusMillis(50 + g), SendOptions.id("u" + g)));
        }
        client.sendAll(queue, requests);
        assertThat(claimAllInDueOrder(redis.redisson(), redis.prefix(), queue, partitions(), 100)).isEqualTo(90);
    }

    static void claimsKeepDueOrder(DelayQueueClient client, RedissonClient redisson, String prefix, String queue,
            int partitions) {
        Instant due = Instant.now().minusSeconds(5); // due already: a claim in the send's millisecond sees them
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            requests.add(SendRequest.at("g" + i, due, SendOptions.id("g" + i).group(i % 2 == 0 ? "A" : "B")));
        }
        for (int i = 0; i < 20; i++) {
            requests.add(SendRequest.at("u" + i, due.plusMillis(30), SendOptions.id("u" + i)));
        }
        client.sendAll(queue, requests);
        assertThat(claimAllInDueOrder(redisson, prefix, queue, partitions, 5)).isEqualTo(25);
    }

    /** Claims every partition dry, {@code limit} at a time, asserting due order; returns how many were claimed. */
    private static int claimAllInDueOrder(RedissonClient redisson, String prefix, String queue, int partitions,
            int limit) {
        int claimed = 0;
        for (int p = 0; p < partitions; p++) {
            QueueOps ops = new QueueOps(new Scripts(redisson), QueueKeys.of(prefix, queue, p, partitions));
            List<String> order = new ArrayList<>();
            long last = Long.MIN_VALUE;
            for (List<QueueOps.Claimed> batch = claim(ops, limit); !batch.isEmpty(); batch = claim(ops, limit)) {
                for (QueueOps.Claimed message : batch) {
                    order.add(message.id());
                    assertThat(message.dueMs()).as("partition %d handed out %s, then %s due earlier", p, order,
                            message.id()).isGreaterThanOrEqualTo(last);
                    last = message.dueMs();
                }
            }
            claimed += order.size();
        }
        return claimed;
    }

    private static List<QueueOps.Claimed> claim(QueueOps ops, int limit) {
        return ops.claim(limit, 60_000, 5, 100, Duration.ofDays(1).toMillis(), 1000, ClaimLimits.NONE, false,
                GroupLimits.NONE).messages();
    }

    static void budgetCutsInDueOrder(DelayQueueClient client, RedissonClient redisson, String prefix, String queue,
            int partitions) {
        Instant due = Instant.now().minusSeconds(5);
        client.sendAt(queue, "first", due, SendOptions.id("first").group("G"));
        String large = "x".repeat(300 * 1024);
        for (int i = 0; i < 12 * partitions; i++) { // a dozen or so in every partition
            client.sendAt(queue, large, due.plusMillis(30 + i), SendOptions.id("big" + i));
        }
        int claims = 0;
        for (int p = 0; p < partitions; p++) {
            QueueOps ops = new QueueOps(new Scripts(redisson), QueueKeys.of(prefix, queue, p, partitions));
            List<QueueOps.Claimed> first = ops.claim(10, 60_000, 5, 100, Duration.ofDays(1).toMillis(), 1000,
                    ClaimLimits.NONE, false, GroupLimits.NONE).messages();
            if (first.stream().anyMatch(m -> m.id().equals("first"))) {
                assertThat(first.get(0).id()).as("the grouped message, due first, first in its claim").isEqualTo("first");
                claims++;
            }
        }
        assertThat(claims).as("the grouped message was in its partition's first claim").isEqualTo(1);
    }

    /**
     * An older release's claim deletes the groups' marker from the delayed set (docs/reference/guarantees.md, Upgrades): a poller
     * puts it back within 10 of its poll intervals, with queue limits (here) or without, and the grouped messages go.
     */
    @Test
    void aDeletedGroupsMarkerIsPutBackByThePollers() {
        String queue = "group-unmarked";
        DelayQueueClient client = application(queue);
        List<String> seen = new CopyOnWriteArrayList<>();
        consume(client, queue, ConsumerOptions.builder().rateLimit(RateLimit.parse("1000/1s"))
                .maxPollInterval(Duration.ofMillis(200)).build(), (payload, context) -> seen.add(payload));
        client.send(queue, "started", Duration.ZERO); // its poller has run its first periodic pass
        await().atMost(DEADLINE).until(() -> seen.contains("started"));
        client.pause(queue);
        client.sendAll(queue, List.of(grouped("m1", "G", Duration.ZERO), grouped("m2", "H", Duration.ZERO)));
        for (int p = 0; p < partitions(); p++) {
            String delayed = (String) QueueKeys.of(redis.prefix(), queue, p, partitions()).keys().get(1);
            redis.redisson().getScoredSortedSet(delayed, StringCodec.INSTANCE).remove("|--------\u001f");
        }
        client.resume(queue);
        // 10 poll intervals (2 s) by design; the await's bound is one only a fault crosses
        await().atMost(DEADLINE).until(() -> seen.size() == 3);
        assertThat(seen).containsExactlyInAnyOrder("started", "G:m1", "H:m2");
    }

    /** Versioned intents (the outbox's writes) carry the group in the message body and find it by id. */
    @Test
    void versionedIntentsCarryTheGroup() {
        String queue = "group-versioned";
        DelayQueueClient client = application(queue);
        PreparedSend.Message message = client.prepare(queue, List.of(SendRequest.of("v", Duration.ofHours(1),
                SendOptions.id("v").group("G")))).messages().get(0);
        Duration keep = Duration.ofDays(1);
        assertThat(client.applyVersioned(queue, List.of(VersionedIntent.send(message, 1)), keep))
                .containsExactly(VersionedIntent.Outcome.APPLIED);
        assertThat(client.groups(queue, 10)).extracting(GroupStats::pending).containsExactly(1L);
        assertThat(client.applyVersioned(queue, List.of(VersionedIntent.reschedule("v", Duration.ofHours(2), null, 2)), keep))
                .containsExactly(VersionedIntent.Outcome.APPLIED);
        assertThat(client.message(queue, "v").get().dueAt()).isAfter(Instant.now().plus(Duration.ofMinutes(90)));
        assertThat(client.applyVersioned(queue, List.of(VersionedIntent.cancel("v", 3)), keep))
                .containsExactly(VersionedIntent.Outcome.APPLIED);
        assertThat(client.groups(queue, 10)).isEmpty();
        assertThat(client.stats(queue).pending()).isZero();
    }

    /**
     * A handler reads its message's group from {@link MessageContext#group()} ({@code null} without one), a single
     * handler and each item of a batch alike, and so do the interceptors; the reserved header the group travels in
     * is not among the headers. A message whose payload does not decode reaches the interceptors with its group too
     * (their {@code afterDelivery} context is then built from the claimed member alone).
     */
    @Test
    void handlersAndInterceptorsReadTheGroupFromTheContext() {
        String queue = "group-context";
        String batchQueue = "group-context-batch";
        String badQueue = "group-context-undecodable";
        DelayQueueClient client = application(queue);
        Map<String, MessageContext> handled = new ConcurrentHashMap<>();
        Map<String, MessageContext> after = new ConcurrentHashMap<>();
        Map<String, MessageContext> undecodable = new ConcurrentHashMap<>();
        DeliveryInterceptor recorder = new DeliveryInterceptor() {
            @Override
            public void undecodable(MessageContext context) {
                undecodable.put(context.id(), context);
            }

            @Override
            public void afterDelivery(MessageContext context, DeliveryOutcome outcome, Throwable error, Duration time) {
                after.put(context.id(), context);
            }
        };
        ConsumerOptions options = ConsumerOptions.builder().interceptors(List.of(recorder)).build();
        consume(client, queue, options, (payload, context) -> handled.put(context.id(), context));
        DelayQueueConsumer batch = client.newBatchConsumer(batchQueue, String.class,
                items -> items.forEach(item -> handled.put(item.id(), item.context())), BatchOptions.of(10), options);
        consumers.add(batch);
        batch.start();
        DelayQueueConsumer bad = client.newConsumer(badQueue, Integer.class, (payload, context) -> {
            throw new AssertionError("a string does not decode as an Integer");
        }, options);
        consumers.add(bad);
        bad.start();

        client.send(queue, "g", Duration.ZERO, SendOptions.id("one-grouped").group("tenant-42").header("h", "v"));
        client.send(queue, "u", Duration.ZERO, SendOptions.id("one-plain").header("h", "v"));
        client.sendAll(batchQueue, List.of(grouped("batch-a", "A", Duration.ZERO), grouped("batch-b", "B", Duration.ZERO),
                SendRequest.of("u", Duration.ZERO, SendOptions.id("batch-plain"))));
        client.send(badQueue, "not a number", Duration.ZERO, SendOptions.id("bad-grouped").group("tenant-7"));
        await().atMost(DEADLINE).until(() -> handled.size() == 5 && after.size() == 6);

        Map<String, String> groups = new HashMap<>();
        handled.forEach((id, context) -> groups.put(id, context.group()));
        Map<String, String> expected = new HashMap<>(Map.of("one-grouped", "tenant-42", "batch-a", "A", "batch-b", "B"));
        expected.put("one-plain", null);
        expected.put("batch-plain", null);
        assertThat(groups).isEqualTo(expected);
        assertThat(handled.get("one-grouped").headers()).as("no dq-group header").isEqualTo(Map.of("h", "v"));
        assertThat(handled.get("one-plain").headers()).isEqualTo(Map.of("h", "v"));
        handled.forEach((id, context) -> assertThat(after.get(id)).as(id).isEqualTo(context));
        assertThat(undecodable.get("bad-grouped").group()).isEqualTo("tenant-7");
        assertThat(after.get("bad-grouped").group()).isEqualTo("tenant-7");
        assertThat(after.get("bad-grouped").enqueuedAt()).as("built from the member: no envelope read").isNull();
        assertThat(client.deadLetters(badQueue, 10)).singleElement().extracting(DeadLetter::group).isEqualTo("tenant-7");
    }

    @Test
    void badGroupsAreRefusedAndWriteNothing() {
        String queue = "group-bad";
        DelayQueueClient client = application(queue);
        assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.none().group(" "))
                .withMessageContaining("blank");
        assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.none().group("x".repeat(129)))
                .withMessageContaining("at most 128");
        assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.none().group("a\"b"))
                .withMessageContaining("'\"' at index 1");
        assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.none().group("a\u001fb"))
                .withMessageContaining("U+001F");
        assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.none().group("tenant-é"))
                .withMessageContaining("U+00E9");
        assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.none().header("dq-group", "G"))
                .withMessageContaining("reserved");
        assertThatIllegalArgumentException().isThrownBy(() -> ConsumerOptions.builder().groupMaxInFlight(-1).build())
                .withMessageContaining("groupMaxInFlight must not be negative");
        // a restored body (an outbox) with a group the scripts could not read
        assertThatIllegalArgumentException().isThrownBy(() -> client.restore(queue, List.of(new PreparedSend.Message(
                "r", SendMode.IF_ABSENT, Duration.ZERO, null, "16:{\"dq-group\":\" \"}\"x\""))))
                .withMessageContaining("group must not be null or blank");
        assertThat(client.stats(queue).pending()).isZero();
        // the group travels through a prepared send's stored form (an outbox)
        PreparedSend prepared = client.prepare(queue, List.of(SendRequest.of("p", Duration.ofHours(1),
                SendOptions.id("p").group("G"))));
        client.send(client.restore(queue, prepared.messages()));
        assertThat(client.stats(queue).pending()).isEqualTo(1);
        assertThat(redis.redisson().getKeys().countExists(redis.prefix() + ":{" + queue + "}:g:G:p")).isEqualTo(
                partitions() == 1 ? 1 : 0);
    }

    /**
     * Retries, dead letters, their requeue, an expired lease and pause: a grouped message goes back to its group's
     * set each time and is delivered again, once per attempt; the group's keys are empty at the end.
     */
    @Test
    void settlesLeasesAndPauseKeepGroupedMessagesInTheirGroup() {
        String queue = "group-settle";
        DelayQueueClient client = application(queue);
        // a consumer that died holding "hang": claimed under a 300 ms lease and never settled
        // due a second ago: a claim in the send's millisecond would not see it due yet (never early)
        client.sendAt(queue, "hang", Instant.now().minusSeconds(1), SendOptions.id("hang").group("G"));
        int claimed = 0;
        for (int p = 0; p < partitions(); p++) {
            QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue, p, partitions()));
            claimed += ops.claim(10, 300, 5, 100, Duration.ofDays(1).toMillis(), 1000, ClaimLimits.NONE, false,
                    GroupLimits.NONE).messages().size();
        }
        assertThat(claimed).isEqualTo(1);
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        Map<String, Integer> attempts = new ConcurrentHashMap<>();
        ConsumerOptions options = ConsumerOptions.builder().concurrency(4).groupMaxInFlight(partitions())
                .groupRateLimit(RateLimit.parse("50/1s")).retry(new RetryPolicy(2, Duration.ofMillis(50), 1.0, Duration.ofMillis(50), 0))
                .maxPollInterval(Duration.ofMillis(200)).build();
        client.pause(queue);
        consume(client, queue, options, (payload, context) -> {
            int run = runs.computeIfAbsent(payload, p -> new AtomicInteger()).incrementAndGet();
            attempts.put(payload, context.attempt());
            if (payload.equals("retry") && run == 1) {
                throw new IllegalStateException("first attempt fails");
            }
            if (payload.equals("dead") && run <= 2) {
                throw new IllegalStateException("fails twice: a dead letter");
            }
        });
        for (String payload : List.of("retry", "dead", "ok")) {
            client.send(queue, payload, Duration.ZERO, SendOptions.id(payload).group("G"));
        }
        assertThat(client.stats(queue).pending()).isBetween(3L, 4L); // 4 once a paused claim returned the expired lease
        assertThat(runs).isEmpty(); // paused: nothing handed out
        client.resume(queue);
        await().atMost(DEADLINE).until(() -> client.deadLetters(queue, 10).size() == 1
                && runs.getOrDefault("retry", new AtomicInteger()).get() == 2 && runs.containsKey("ok")
                && runs.containsKey("hang"));
        assertThat(attempts).containsEntry("hang", 2); // its lease expired: back to its group, delivered again
        assertThat(client.requeueAllDeadLetters(queue)).isEqualTo(1);
        await().atMost(DEADLINE).until(() -> runs.get("dead").get() == 3 && client.stats(queue).inFlight() == 0
                && client.stats(queue).pending() == 0);
        assertThat(runs.get("ok")).hasValue(1);
        assertThat(runs.get("hang")).hasValue(1);
        assertThat(client.stats(queue).pending()).isZero();
        if (partitions() == 1) {
            // nothing of the groups is left once their limits no longer bind: no group keys, flow fields or marker
            String base = redis.prefix() + ":{" + queue + "}:";
            await().atMost(DEADLINE).until(() -> redis.redisson().getKeys().getKeysStream()
                    .filter(k -> k.startsWith(base + "g") || k.equals(base + "delayed")).toList().isEmpty());
        }
    }
}
