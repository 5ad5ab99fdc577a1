package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.redisnode.RedisNodes;

import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/** A batch send is cut into script calls of at most {@link QueueOps#SCRIPT_BYTES} (a larger message alone). */
@ExtendWith(RedisExtension.class)
class EnqueueBudgetTest {

    private final RedisContext redis;

    EnqueueBudgetTest(RedisContext redis) {
        this.redis = redis;
    }

    /** EVALSHA calls the server has run so far (its own count, whoever called). */
    private long scriptCalls() {
        Map<String, String> stats = redis.redisson().getRedisNodes(RedisNodes.SINGLE).getInstance()
                .info(org.redisson.api.redisnode.RedisNode.InfoSection.COMMANDSTATS);
        String line = stats.getOrDefault("cmdstat_evalsha", "calls=0,");
        return Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
    }

    @Test
    void aBatchOfLargeMessagesIsWrittenInSeveralCallsWithinTheByteBudget() {
        String queue = "enqueue-budget";
        DelayQueueClient client = redis.client();
        String big = "x".repeat(300 * 1024); // three fit in 1 MiB, a fourth does not
        List<SendRequest> sends = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            sends.add(SendRequest.of(big, Duration.ofHours(1), SendOptions.id("big-" + i)));
        }
        client.send(queue, "warm", Duration.ofHours(1)); // the script is loaded and the probe ran: only enqueues count below
        long before = scriptCalls();
        client.sendAll(queue, sends);
        long calls = scriptCalls() - before;
        assertThat(calls).isGreaterThanOrEqualTo(3); // 3 + 3 + 1 messages; one call before the budget
        assertThat(client.stats(queue).pending()).isEqualTo(8);
    }
}
