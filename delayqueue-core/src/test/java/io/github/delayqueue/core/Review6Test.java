package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RScoredSortedSet;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.Scripts;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * Review h-review6 of h-fix5 (named_live) and h-throttled. Each test asserts the property the review expects; a
 * failing one is a finding (see the report).
 */
@ExtendWith(RedisExtension.class)
class Review6Test {

    private static final long KEEP_DEAD_MS = Duration.ofDays(14).toMillis();

    private final RedisContext redis;

    Review6Test(RedisContext redis) {
        this.redis = redis;
    }

    private QueueOps ops(String queue) {
        return new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
    }

    private RScoredSortedSet<String> zset(String key) {
        return redis.redisson().getScoredSortedSet(key, StringCodec.INSTANCE);
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
        String queue = "r6-out-of-step";
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
        String queue = "r6-expired-stray";
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
}
