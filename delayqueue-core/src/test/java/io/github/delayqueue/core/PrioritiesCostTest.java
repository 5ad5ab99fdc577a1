package io.github.delayqueue.core;

import static io.github.delayqueue.core.GroupsCostTest.counted;
import static io.github.delayqueue.core.GroupsCostTest.onOwnServer;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.github.delayqueue.core.protocol.ClaimLimits;
import io.github.delayqueue.core.protocol.GroupLimits;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.Scripts;

/**
 * What priorities cost a claim, counted by INFO commandstats on a Redis server of this test's own (as
 * {@link GroupsCostTest} counts groups'): nothing for a queue that does not use them (GroupsCostTest holds the
 * exact map of an ungrouped claim, unchanged by priorities), nothing once a queue's prioritized messages are gone,
 * and a few commands per claim, none per message, for one that does.
 */
class PrioritiesCostTest {

    @Test
    void aQueueWhosePrioritizedMessagesAreGoneClaimsAsOneThatNeverHadAny() {
        onOwnServer((port, redisson, client) -> {
            String prefix = client.options().keyPrefix();
            QueueOps plain = new QueueOps(new Scripts(redisson), QueueKeys.of(prefix, "plain"));
            QueueOps used = new QueueOps(new Scripts(redisson), QueueKeys.of(prefix, "used"));
            Instant past = Instant.now().minusSeconds(1);
            client.sendAt("used", "high", past, SendOptions.id("high").priority(9));
            client.sendAt("used", "low", past, SendOptions.id("low").priority(1));
            assertThat(claim(used, 10).messages()).extracting(QueueOps.Claimed::id).containsExactly("high", "low");
            claim(used, 10); // the claim that finds the priorities' sets gone takes their markers out of delayed
            claim(plain, 10); // its Scripts' first call (the server's version probe) before the count
            for (String queue : List.of("plain", "used")) {
                client.sendAt(queue, "warm", past); // the queue not empty, as GroupsCostTest counts
            }
            TreeMap<String, Long> never = countedClaim(port, client, plain, "plain", past);
            TreeMap<String, Long> gone = countedClaim(port, client, used, "used", past);
            assertThat(gone).isEqualTo(never);
        });
    }

    /**
     * A queue with priorities pays per claim, not per message: two reads of delayed's markers and past them, then per
     * priority in use one read of its due members and one of its head; the same for 20 due messages as for 2,000.
     */
    @Test
    void aClaimWithPrioritiesPaysPerPriorityNotPerMessage() {
        onOwnServer((port, redisson, client) -> {
            String prefix = client.options().keyPrefix();
            Instant past = Instant.now().minusSeconds(1);
            TreeMap<String, Long> small = null;
            for (int backlog : new int[] {20, 2_000}) {
                String queue = "backlog-" + backlog;
                List<SendRequest> requests = new ArrayList<>();
                for (int i = 0; i < backlog; i++) {
                    requests.add(SendRequest.at("m", past, SendOptions.none().priority(i % 2 == 0 ? 8 : 2)));
                }
                client.sendAll(queue, requests);
                QueueOps ops = new QueueOps(new Scripts(redisson), QueueKeys.of(prefix, queue));
                claim(ops, 1); // the scripts loaded
                List<QueueOps.Claimed> claimed = new ArrayList<>();
                TreeMap<String, Long> calls = counted(port, () -> claimed.addAll(claim(ops, 5).messages()));
                assertThat(claimed).hasSize(5).allMatch(m -> m.member().startsWith("^8"));
                if (small == null) {
                    small = calls;
                } else {
                    assertThat(calls).as("a claim of 5 with 2,000 due against 20 due").isEqualTo(small);
                }
            }
            // against the same claim of a queue without priorities: two reads more (the markers, and delayed past
            // them), and per priority in use (2 here) one read of its due members and one of its head for the next
            // event (the reply reads delayed's head past the markers instead of its first member); priority 2's read,
            // bounded by what priority 8 gave, finds nothing, so one ZCARD asks whether its set is gone
            List<SendRequest> plainRequests = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                plainRequests.add(SendRequest.at("m", past, SendOptions.none()));
            }
            client.sendAll("plain", plainRequests);
            QueueOps plain = new QueueOps(new Scripts(redisson), QueueKeys.of(prefix, "plain"));
            claim(plain, 1);
            TreeMap<String, Long> without = counted(port, () -> assertThat(claim(plain, 5).messages()).hasSize(5));
            TreeMap<String, Long> with = new TreeMap<>(small);
            long reads = with.remove("zrangebyscore") + with.remove("zrange");
            long plainReads = without.remove("zrangebyscore") + without.remove("zrange");
            assertThat(reads).isEqualTo(plainReads + 2 + 2 * 2);
            assertThat(with.remove("zcard")).isEqualTo(1L);
            assertThat(with).isEqualTo(without);
        });
    }

    private static TreeMap<String, Long> countedClaim(int port, DelayQueueClient client, QueueOps ops, String queue,
            Instant past) {
        client.sendAt(queue, "x", past);
        List<QueueOps.Claimed> claimed = new ArrayList<>();
        TreeMap<String, Long> calls = counted(port, () -> claimed.addAll(claim(ops, 10).messages()));
        assertThat(claimed).hasSize(2);
        return calls;
    }

    private static QueueOps.ClaimResult claim(QueueOps ops, int limit) {
        return ops.claim(limit, 60_000, 5, 100, Duration.ofDays(1).toMillis(), 1000, ClaimLimits.NONE, false,
                GroupLimits.NONE, false, 0, null, 0);
    }
}
