package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.Scripts;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/** One claim returns at most {@link QueueOps#CLAIM_BYTES} of envelopes (at least one message); the rest stay due. */
@ExtendWith(RedisExtension.class)
class ClaimBudgetTest {

    private static final long KEEP_DEAD_MS = Duration.ofDays(14).toMillis();

    private final RedisContext redis;

    ClaimBudgetTest(RedisContext redis) {
        this.redis = redis;
    }

    @Test
    void aClaimStopsAddingMessagesPastItsByteBudget() {
        String queue = "claim-budget";
        DelayQueueClient client = redis.client();
        String big = "x".repeat(300 * 1024); // four of these pass 1 MiB
        List<SendRequest> sends = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            sends.add(SendRequest.of(big, Duration.ZERO, SendOptions.id("big-" + i)));
        }
        client.sendAll(queue, sends);
        awaitDue(client, queue, 10);
        QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));

        QueueOps.ClaimResult first = ops.claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE);
        assertThat(first.messages()).hasSize(3);
        assertThat(first.messages()).extracting(QueueOps.Claimed::id).containsExactly("big-0", "big-1", "big-2");
        assertThat(first.messages().stream().mapToInt(c -> c.envelope().length()).sum()).isLessThanOrEqualTo(QueueOps.CLAIM_BYTES);
        QueueStats stats = client.stats(queue);
        assertThat(stats.inFlight()).isEqualTo(3);
        assertThat(stats.ready()).isEqualTo(7); // not claimed: still due, in send order

        QueueOps.ClaimResult next = ops.claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE);
        assertThat(next.messages()).extracting(QueueOps.Claimed::id).containsExactly("big-3", "big-4", "big-5");
    }

    @Test
    void aMessageLargerThanTheBudgetIsClaimedAlone() {
        String queue = "claim-budget-huge";
        DelayQueueClient client = DelayQueueClient.create(redis.redisson(),
                ClientOptions.builder().keyPrefix(redis.prefix()).maxPayloadBytes(4 * 1024 * 1024).build());
        client.sendAll(queue, List.of(SendRequest.of("y".repeat(QueueOps.CLAIM_BYTES + 10), Duration.ZERO,
                SendOptions.id("huge")), SendRequest.of("small", Duration.ZERO, SendOptions.id("small"))));
        awaitDue(client, queue, 2);
        QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));

        assertThat(ops.claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages())
                .extracting(QueueOps.Claimed::id).containsExactly("huge");
        assertThat(ops.claim(10, 60_000, 5, 100, KEEP_DEAD_MS, Integer.MAX_VALUE).messages())
                .extracting(QueueOps.Claimed::id).containsExactly("small");
    }

    /**
     * A send with no delay is due at the Redis clock rounded up to the millisecond, so a claim in the same
     * millisecond finds nothing yet: wait until the messages are due before claiming by hand.
     */
    private static void awaitDue(DelayQueueClient client, String queue, int count) {
        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).ready() == count);
    }
}
