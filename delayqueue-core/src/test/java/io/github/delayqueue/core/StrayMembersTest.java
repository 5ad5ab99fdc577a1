package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.Redisson;
import org.redisson.api.RScoredSortedSet;
import org.redisson.api.RScript;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.Scripts;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * Members out of step with their envelopes (strays, and values that only look like envelopes) beside the fences of
 * FenceTest: every script path that writes a member and an envelope keeps their sequence numbers equal (else the
 * claim's stray check would drop a live message), and nothing is lost across sends, replaces, claims, hand-backs,
 * laters, retries, dead letters, requeues, versioned intents and expired leases; a stray is dropped only beside the
 * live member its envelope names, and a hand-back or later of one is fenced like any other.
 */
@ExtendWith(RedisExtension.class)
class StrayMembersTest {

    private static final long KEEP_DEAD_MS = Duration.ofDays(14).toMillis();

    /** Every member of delayed, inflight and the groups' sets whose sequence number is not its envelope's, or orphaned. */
    private static final String CHECK = """
            local base = ARGV[1]
            local out = {}
            local count = {}
            local function check(key, m)
              local b = string.byte(m, 1)
              local id, seq
              if b == 126 then id = string.sub(m, 10); seq = string.sub(m, 2, 9)
              elseif b == 124 then
                local x = string.find(m, '\\31', 10, true); id = string.sub(m, x + 1); seq = string.sub(m, 2, 9)
                if id == '' then return end
              else id = string.sub(m, 13); seq = string.sub(m, 1, 12) end
              local env = redis.call('HGET', base .. 'messages', id)
              if not env then out[#out + 1] = key .. ' orphan ' .. m; return end
              local es
              if string.byte(env, 1) == 50 then es = string.sub(env, 2, 9) else es = string.sub(env, 3, 14) end
              if es ~= seq then out[#out + 1] = key .. ' mismatch ' .. m .. ' env ' .. string.sub(env, 1, 14) end
              if string.sub(key, -2) ~= ':i' then count[id] = (count[id] or 0) + 1 end
            end
            for _, k in ipairs(redis.call('KEYS', base .. '*')) do
              if k == base .. 'delayed' or k == base .. 'inflight' or string.find(k, base .. 'g:', 1, true) == 1 then
                for _, m in ipairs(redis.call('ZRANGE', k, 0, -1)) do check(k, m) end
              end
            end
            for _, id in ipairs(redis.call('HKEYS', base .. 'messages')) do
              if (count[id] or 0) ~= 1 then out[#out + 1] = 'id ' .. id .. ' has ' .. (count[id] or 0) .. ' members' end
            end
            return out
            """;

    private final RedisContext redis;

    StrayMembersTest(RedisContext redis) {
        this.redis = redis;
    }

    private List<String> violations(String queue) {
        String base = redis.prefix() + ":{" + queue + "}:";
        List<String> out = redis.redisson().getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_WRITE, CHECK,
                RScript.ReturnType.LIST, List.of(), base);
        return out;
    }

    private Set<String> liveIds(String queue) {
        String base = redis.prefix() + ":{" + queue + "}:";
        return new HashSet<>(redis.redisson().<String, String>getMap(base + "messages", StringCodec.INSTANCE).keySet());
    }

    @Test
    void everyPathKeepsMemberAndEnvelopeInStepAndLosesNothing() throws Exception {
        String queue = "stray-fence";
        DelayQueueClient client = redis.client();
        QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
        Instant past = Instant.now().minusSeconds(1);
        client.sendAt(queue, "a", past, SendOptions.id("a1"));
        client.sendAt(queue, "g", past, SendOptions.id("g1").group("G"));
        List<SendRequest> batch = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            SendOptions o = SendOptions.id("b" + i);
            if (i % 3 == 0) {
                o = o.group("G" + (i % 4));
            }
            batch.add(SendRequest.at("b" + i, past, o));
        }
        client.sendAll(queue, batch);
        client.sendAt(queue, "a-again", past, SendOptions.id("a1").replaceExisting());
        client.sendAt(queue, "g-again", past, SendOptions.id("g1").group("G"));
        client.sendAt(queue, "g-replaced", past, SendOptions.id("b3").group("G3").replaceExisting());
        assertThat(violations(queue)).as("after sends").isEmpty();
        Set<String> expected = liveIds(queue);
        assertThat(expected).hasSize(152);

        for (int round = 0; round < 3; round++) {
            List<QueueOps.Claimed> claimed = claimAll(ops, expected.size());
            assertThat(violations(queue)).as("after claim " + round).isEmpty();
            List<QueueOps.Settlement> settle = new ArrayList<>();
            for (int i = 0; i < claimed.size(); i++) {
                QueueOps.Claimed c = claimed.get(i);
                QueueOps.SettleOp op = switch (i % 5) {
                    case 0, 1 -> QueueOps.SettleOp.HAND_BACK;
                    case 2 -> QueueOps.SettleOp.LATER;
                    case 3 -> QueueOps.SettleOp.RETRY;
                    default -> QueueOps.SettleOp.DEAD;
                };
                long delay = op == QueueOps.SettleOp.HAND_BACK ? c.dueMs() : 0;
                settle.add(new QueueOps.Settlement(op, c.member(), c.attempt(), delay, op == QueueOps.SettleOp.RETRY
                        || op == QueueOps.SettleOp.DEAD ? "x" : null, true));
            }
            boolean[] applied = ops.settle(settle);
            for (boolean b : applied) {
                assertThat(b).isTrue();
            }
            assertThat(violations(queue)).as("after settle " + round).isEmpty();
            boolean[] again = ops.settle(settle);
            for (boolean b : again) {
                assertThat(b).as("resent").isFalse();
            }
            assertThat(client.requeueAllDeadLetters(queue)).isPositive();
            assertThat(violations(queue)).as("after requeue " + round).isEmpty();
            assertThat(liveIds(queue)).as("live ids after round " + round).isEqualTo(expected);
        }

        // versioned intents: replace some, reschedule some (pending), cancel one
        PreparedSend prepared = client.prepare(queue, List.of(
                SendRequest.at("v", past, SendOptions.id("b6").group("G2").replaceExisting()),
                SendRequest.at("v", past, SendOptions.id("b7").replaceExisting())));
        List<VersionedIntent> intents = new ArrayList<>();
        for (PreparedSend.Message m : prepared.messages()) {
            intents.add(VersionedIntent.send(m, 10));
        }
        intents.add(VersionedIntent.reschedule("b9", null, past.minusMillis(5), 10));
        intents.add(VersionedIntent.reschedule("b12", null, past.minusMillis(5), 10));
        intents.add(VersionedIntent.cancel("b10", 10));
        client.applyVersioned(queue, intents, Duration.ofHours(1));
        expected.remove("b10");
        client.rescheduleAt(queue, "b11", past.minusMillis(3));
        client.rescheduleAt(queue, "b15", past.minusMillis(3));
        assertThat(violations(queue)).as("after versioned and reschedule").isEmpty();

        // expired leases redelivered
        List<QueueOps.Claimed> leased = new ArrayList<>();
        for (int k = 0; k < 20 && leased.size() < expected.size(); k++) {
            leased.addAll(ops.claim(1000, 1, 50, 1000, KEEP_DEAD_MS, Integer.MAX_VALUE).messages());
        }
        Thread.sleep(20);
        ops.claim(0, 1, 50, 1000, KEEP_DEAD_MS, Integer.MAX_VALUE);
        assertThat(violations(queue)).as("after expired leases").isEmpty();

        // drain: everything live is delivered and acked
        Map<String, Integer> acked = new HashMap<>();
        for (int k = 0; k < 200 && acked.size() < expected.size(); k++) {
            List<QueueOps.Claimed> got = ops.claim(1000, 60_000, 50, 1000, KEEP_DEAD_MS, Integer.MAX_VALUE).messages();
            if (got.isEmpty()) {
                Thread.sleep(5);
                continue;
            }
            List<QueueOps.Settlement> acks = new ArrayList<>();
            for (QueueOps.Claimed c : got) {
                acked.merge(c.id(), 1, Integer::sum);
                acks.add(new QueueOps.Settlement(QueueOps.SettleOp.ACK, c.member(), c.attempt(), 0, null, true));
            }
            ops.settle(acks);
        }
        assertThat(acked.keySet()).as("every live message delivered").isEqualTo(expected);
        assertThat(acked.values()).as("each once").allMatch(n -> n == 1);
        QueueStats stats = client.stats(queue);
        assertThat(stats.pending() + stats.inFlight()).isZero();
    }

    private static List<QueueOps.Claimed> claimAll(QueueOps ops, int n) throws InterruptedException {
        List<QueueOps.Claimed> all = new ArrayList<>();
        for (int k = 0; k < 200 && all.size() < n; k++) {
            List<QueueOps.Claimed> got = ops.claim(1000, 60_000, 50, 1000, KEEP_DEAD_MS, Integer.MAX_VALUE).messages();
            all.addAll(got);
            if (got.isEmpty()) {
                Thread.sleep(5);
            }
        }
        assertThat(all).hasSize(n);
        return all;
    }

    /**
     * A grouped stray in flight whose lease expires before its last attempt is put back in its group's set by the
     * claim's expired-lease path (group_pend: counted in group-flow's 'pending'), then dropped by the stray check,
     * which takes it off that count (h-fix5; before, stats reported a pending message that did not exist, for good).
     */
    @Test
    void aGroupedStrayRedeliveredThenDroppedLeavesThePendingCountRight() {
        String queue = "stray-stray-count";
        DelayQueueClient client = redis.client();
        String base = redis.prefix() + ":{" + queue + "}:";
        client.send(queue, "later", Duration.ofHours(1), SendOptions.id("g:1").group("G"));
        assertThat(client.stats(queue).pending()).isEqualTo(1);
        redis.redisson().getScoredSortedSet(base + "inflight", StringCodec.INSTANCE)
                .add(Instant.now().minusSeconds(60).toEpochMilli(), "|00000001G\u001fg:1");
        redis.redisson().getMap(base + "attempts", StringCodec.INSTANCE).put("g:1", "1");
        QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
        assertThat(violations(queue)).as("the checker sees the stray").isNotEmpty();

        assertThat(ops.claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages()).isEmpty();

        assertThat(redis.redisson().getScoredSortedSet(base + "g:G:p", StringCodec.INSTANCE).size())
                .as("the group's pending set").isEqualTo(1);
        assertThat(client.stats(queue).pending()).as("pending").isEqualTo(1);
    }

    /**
     * One settle call carrying the same hand-back twice (its first run renumbers the message): the second is stale.
     * Applied too (the fences were read up front), it put the message back under a second new member: a stray in the
     * group's set, counted in group-flow's pending, so stats reported two pending messages for one.
     */
    @Test
    void theSameHandBackTwiceInOneCallAppliesOnce() {
        String queue = "stray-h-twice";
        DelayQueueClient client = redis.client();
        String base = redis.prefix() + ":{" + queue + "}:";
        client.sendAt(queue, "now", Instant.now().minusSeconds(1), SendOptions.id("g:2").group("G"));
        QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
        List<QueueOps.Claimed> claimed = ops.claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages();
        assertThat(claimed).hasSize(1);
        QueueOps.Claimed c = claimed.get(0);
        QueueOps.Settlement back = new QueueOps.Settlement(QueueOps.SettleOp.HAND_BACK, c.member(), c.attempt(),
                c.dueMs(), null);

        assertThat(ops.settle(List.of(back, back))).containsExactly(true, false);

        assertThat(redis.redisson().getScoredSortedSet(base + "g:G:p", StringCodec.INSTANCE).size())
                .as("the group's pending set").isEqualTo(1);
        assertThat(violations(queue)).isEmpty();
        assertThat(client.stats(queue).pending()).as("pending").isEqualTo(1);
    }

    /**
     * A grouped member out of step with its envelope that the claim hands out (the member the envelope names is in no
     * set: lifecycle.lua's named_live), here a format-1 envelope under "|<seq8>G\31<id>", then handed back: it goes back
     * as it was. Renumbered, its new member would have been the envelope's format-1 one, no longer grouped, and
     * group_pend's group_of failed on it: a script error that fails the settler's whole batch, again on every resend.
     */
    @Test
    void aGroupedMemberOutOfStepWithItsEnvelopeHandedBackKeepsItsShape() {
        String queue = "stray-out-of-step";
        String base = redis.prefix() + ":{" + queue + "}:";
        String member = "|--------G\u001fodd:1";
        redis.redisson().getMap(base + "messages", StringCodec.INSTANCE).put("odd:1", "1:00000000000a0:\"x\"");
        redis.redisson().getScoredSortedSet(base + "g:G:p", StringCodec.INSTANCE).add(0, member);
        redis.redisson().getScoredSortedSet(base + "groups", StringCodec.INSTANCE).add(0, "G");
        redis.redisson().getScoredSortedSet(base + "delayed", StringCodec.INSTANCE).add(0, "|--------\u001f");
        QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
        List<QueueOps.Claimed> claimed = ops.claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages();
        assertThat(claimed).extracting(QueueOps.Claimed::member).containsExactly(member);

        assertThat(ops.settle(List.of(new QueueOps.Settlement(QueueOps.SettleOp.HAND_BACK, member, 1, 0, null))))
                .containsExactly(true);

        assertThat(redis.redisson().getScoredSortedSet(base + "g:G:p", StringCodec.INSTANCE).readAll())
                .containsExactly(member);
    }

    /**
     * guarantees.md (Ordering): a hand-back is ordered among messages due at the same millisecond as a send at that
     * moment; a message stored in envelope format 1 (release 0.1) is renumbered in format 1, so its member
     * "<seq12><id>" still sorts before every format-2 member "~..." at that millisecond, though its new number is
     * above theirs.
     */
    @Test
    void aRenumberedFormat1MessageStillComesBeforeFormat2OnesDueAtTheSameMillisecond() {
        String queue = "stray-format1-order";
        String base = redis.prefix() + ":{" + queue + "}:";
        DelayQueueClient client = redis.client();
        long due = Instant.now().minusSeconds(1).toEpochMilli();
        redis.redisson().getMap(base + "messages", StringCodec.INSTANCE).put("f:1", "1:00000000002a:" + due + ":0:\"old\"");
        redis.redisson().getScoredSortedSet(base + "delayed", StringCodec.INSTANCE).add(due, "00000000002af:1");
        redis.redisson().getAtomicLong(base + "sequence").set(100);
        client.sendAt(queue, "new", Instant.ofEpochMilli(due), SendOptions.id("n:1"));
        QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
        List<QueueOps.Claimed> first = ops.claim(1, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages();
        assertThat(first).extracting(QueueOps.Claimed::id).containsExactly("f:1");
        assertThat(ops.settle(List.of(new QueueOps.Settlement(QueueOps.SettleOp.HAND_BACK, first.get(0).member(), 1,
                due, null)))).containsExactly(true);

        List<QueueOps.Claimed> second = ops.claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages();

        assertThat(second).extracting(QueueOps.Claimed::id).containsExactly("f:1", "n:1");
        assertThat(second.get(0).envelope()).as("renumbered in format 1, above n:1's number").startsWith("1:")
                .isNotEqualTo(first.get(0).envelope());
        assertThat(second.get(0).dueMs()).isEqualTo(second.get(1).dueMs());
    }

    /**
     * A value written straight into Redis that is no envelope but happens to start with '2' (a date, a number) under a
     * member of its own: before h-fence the claim handed it out and the consumer dead-lettered it with its reason (as
     * RetryAndDeadLetterTest.corruptEnvelope... does for other garbage); h-fence's stray() read it as a format-2
     * envelope of another sequence number and dropped its only member, leaving the value in messages: never delivered,
     * never dead-lettered, not counted, and its id taken for if-absent sends for good. Since h-fix5 a member is a stray
     * only while the member its envelope names is live (lifecycle.lua's named_live): this one is handed out again.
     */
    @Test
    void aCorruptValueStartingWithTwoIsNotSilentlyOrphaned() {
        String queue = "stray-corrupt-2";
        String base = redis.prefix() + ":{" + queue + "}:";
        redis.redisson().getMap(base + "messages", StringCodec.INSTANCE).put("poison:2", "2026-11-27 not an envelope");
        redis.redisson().getScoredSortedSet(base + "delayed", StringCodec.INSTANCE).add(0, "~--------poison:2");
        QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));

        List<QueueOps.Claimed> claimed = ops.claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages();

        boolean present = redis.redisson().getMap(base + "messages", StringCodec.INSTANCE).containsKey("poison:2");
        QueueStats stats = redis.client().stats(queue);
        assertThat(claimed.isEmpty() && present && stats.pending() + stats.inFlight() == 0)
                .as("handed out " + claimed.size() + ", value left in messages " + present + ", counted "
                        + (stats.pending() + stats.inFlight()))
                .isFalse();
    }

    /**
     * The same value in flight (an older release's claim handed it out) whose lease expires on the last attempt: it is
     * dead-lettered with its reason, not dropped by bury()'s stray check as a stray beside a message that does not exist
     * (which left the value in messages, uncounted, its id taken for good). A settle's dead letter takes the same path.
     */
    @Test
    void aCorruptValueStartingWithTwoWhoseLeaseExpiredOnTheLastAttemptIsDeadLettered() {
        String queue = "stray-corrupt-2-leased";
        String base = redis.prefix() + ":{" + queue + "}:";
        redis.redisson().getMap(base + "messages", StringCodec.INSTANCE).put("poison:3", "2026-11-27 not an envelope");
        redis.redisson().getScoredSortedSet(base + "inflight", StringCodec.INSTANCE)
                .add(Instant.now().minusSeconds(60).toEpochMilli(), "~--------poison:3");
        redis.redisson().getMap(base + "attempts", StringCodec.INSTANCE).put("poison:3", "5");
        QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));

        assertThat(ops.claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages()).isEmpty();

        assertThat(redis.redisson().getMap(base + "messages", StringCodec.INSTANCE).containsKey("poison:3"))
                .as("left in messages").isFalse();
        List<DeadLetter> dead = redis.client().deadLetters(queue, 10);
        assertThat(dead).extracting(DeadLetter::id).containsExactly("poison:3");
        assertThat(dead.get(0).reason()).contains("lease expired on attempt 5");
        assertThat(dead.get(0).payload()).isEqualTo("2026-11-27 not an envelope");
    }

    /**
     * FenceTest.aStrayMemberWhoseLeaseExpiredOnTheLastAttempt... continued: the stray leaves, and the id's attempts
     * (which the older release's claims of the stray counted) stay, so the message it named is next delivered as
     * attempt max + 1: one failure or one expired lease and it is dead without a retry. Documented rather than reset
     * (guarantees.md, Fencing): the stray's deliveries handed out this id's envelope, and which attempts were the
     * message's own cannot be told (an expired lease counts one and leaves no error), so a reset could run it more
     * times than its limit. The review's first version asserted attempt 1 (a reset).
     */
    @Test
    void theMessageAStrayNamedKeepsTheAttemptsItsDeliveriesCounted() {
        String queue = "stray-stray-attempts";
        String base = redis.prefix() + ":{" + queue + "}:";
        DelayQueueClient client = redis.client();
        client.send(queue, "later", Duration.ofHours(1), SendOptions.id("s:2"));
        redis.redisson().getScoredSortedSet(base + "inflight", StringCodec.INSTANCE)
                .add(Instant.now().minusSeconds(60).toEpochMilli(), "~00000001s:2");
        redis.redisson().getMap(base + "attempts", StringCodec.INSTANCE).put("s:2", "5");
        QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
        assertThat(ops.claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages()).isEmpty();
        assertThat(client.deadLetters(queue, 10)).isEmpty();

        client.rescheduleAt(queue, "s:2", Instant.now().minusSeconds(1));
        List<QueueOps.Claimed> claimed = ops.claim(10, 1, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages();
        assertThat(claimed).hasSize(1);
        assertThat(claimed.get(0).attempt()).as("the next delivery of the message the stray named").isEqualTo(6);

        await().atMost(Duration.ofSeconds(10)).until(() -> {
            ops.claim(0, 1, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE);
            return !client.deadLetters(queue, 10).isEmpty();
        });
        List<DeadLetter> dead = client.deadLetters(queue, 10);
        assertThat(dead).extracting(DeadLetter::id).containsExactly("s:2");
        assertThat(dead.get(0).reason()).as("no retry").contains("lease expired on attempt 6");
    }

    /**
     * A member out of step with its envelope whose named member is in no set (named_live false): the claim hands it
     * out (h-fix5), and settle.lua's H/L puts it back "as it was" (stray() alone, no named_live), not renumbered. The
     * next claim then hands it out under the same member and the same attempt (H gives the attempt back), so the same
     * hand-back sent again (reply lost, the Settler resends) takes that next delivery's lease: the hole h-fence closed
     * for messages in step.
     */
    @Test
    void anOutOfStepMemberHandedBackIsFencedAgainstTheSameOpSentAgain() {
        String queue = "stray-out-of-step-resent";
        String base = redis.prefix() + ":{" + queue + "}:";
        DelayQueueClient client = redis.client();
        client.sendAt(queue, "job", Instant.now().minusSeconds(1), SendOptions.id("o:1"));
        // the member out of step: its sequence digits edited, the envelope left as sent
        String real = zset(base + "delayed").first();
        long due = zset(base + "delayed").firstScore().longValue();
        String odd = "~zzzzzzzz" + "o:1";
        zset(base + "delayed").remove(real);
        zset(base + "delayed").add(due, odd);
        QueueOps ops = ops(queue);

        List<QueueOps.Claimed> first = ops.claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages();
        assertThat(first).extracting(QueueOps.Claimed::member).containsExactly(odd);
        QueueOps.Settlement back = new QueueOps.Settlement(QueueOps.SettleOp.HAND_BACK, odd, 1, first.get(0).dueMs(),
                null, true);
        assertThat(ops.settle(List.of(back))).containsExactly(true);
        List<QueueOps.Claimed> second = ops.claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages();
        assertThat(second).hasSize(1);

        assertThat(ops.settle(List.of(back))).as("the same hand-back sent again after the next claim (member "
                + second.get(0).member() + ", attempt " + second.get(0).attempt() + ")").containsExactly(false);
    }

    /**
     * A message past its expiry and a stray of it due later in the same claim batch: the real member is dead-lettered
     * first (its envelope deleted), so named_live finds nothing for the stray and the stray goes through the expiry
     * path too (bury with no envelope: no dead letter). The claim reports two expired dead letters for one; before
     * h-fix5 the stray was dropped without counting.
     */
    @Test
    void anExpiredMessageAndItsStrayInOneClaimCountOneExpiredDeadLetter() throws Exception {
        String queue = "stray-expired-stray";
        String base = redis.prefix() + ":{" + queue + "}:";
        DelayQueueClient client = redis.client();
        Instant due = Instant.now().minusSeconds(2);
        client.sendAt(queue, "job", due, SendOptions.id("e:1").expiresAt(Instant.now().plusMillis(30)));
        zset(base + "delayed").add(Instant.now().minusSeconds(1).toEpochMilli(), "~zzzzzzzz" + "e:1");
        Thread.sleep(60);

        QueueOps.ClaimResult result = ops(queue).claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE);

        assertThat(result.messages()).isEmpty();
        assertThat(client.deadLetters(queue, 10)).hasSize(1);
        assertThat(result.expiredDead()).as("expired dead letters reported").isEqualTo(1);
    }

    private QueueOps ops(String queue) {
        return new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
    }

    private RScoredSortedSet<String> zset(String key) {
        return redis.redisson().getScoredSortedSet(key, StringCodec.INSTANCE);
    }
}
