package io.github.delayqueue.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.testing.TestRedis;

/**
 * While every settle fails, the consumer stops claiming once the finished deliveries waiting to be settled
 * reach a bound: they do not grow with the queue. Settles fail for real here: the client's ACL user may not
 * run ZMSCORE, which only settle.lua uses (as on a server without it), so claims still work.
 */
class SettleBackPressureTest {

    private static final int MESSAGES = 5_000;
    private static final int CONCURRENCY = 50;
    /** The engine's bound (4 x 500 settlements) plus the settlements of running and just-claimed deliveries. */
    private static final int BOUND = 2_000 + 2 * CONCURRENCY + 100;

    @Test
    void claimingPausesWhileSettlesFailAndResumesWhenTheyWork() throws IOException {
        String user = "dq-nozmscore-" + UUID.randomUUID().toString().substring(0, 8);
        String prefix = TestRedis.uniquePrefix();
        String queue = "settle-fails";
        RestrictedAclTest.command("ACL", "SETUSER", user, "reset", "on", ">" + RestrictedAclTest.PASSWORD, "~*", "&*",
                "+@all", "-zmscore");
        RedissonClient redisson = RestrictedAclTest.newClient(user);
        DelayQueueConsumer consumer = null;
        try {
            DelayQueueClient client = DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix(prefix).build());
            List<SendRequest> sends = new ArrayList<>();
            for (int i = 0; i < MESSAGES; i++) {
                sends.add(SendRequest.of("m" + i, Duration.ZERO));
            }
            client.sendAll(queue, sends);

            AtomicInteger handled = new AtomicInteger();
            consumer = client.newConsumer(queue, String.class, (payload, context) -> handled.incrementAndGet(),
                    ConsumerOptions.builder().concurrency(CONCURRENCY).visibilityTimeout(Duration.ofMinutes(5)).build());
            consumer.start();

            await().atMost(Duration.ofSeconds(20)).until(() -> handled.get() >= 2_000);
            // held for two seconds: far longer than the old engine took to claim all 5,000
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10))
                    .until(() -> client.stats(queue).inFlight() <= BOUND && handled.get() <= BOUND);
            assertThat(client.stats(queue).ready()).isGreaterThanOrEqualTo(MESSAGES - BOUND);

            RestrictedAclTest.command("ACL", "SETUSER", user, "+zmscore"); // settling works again
            await().atMost(Duration.ofSeconds(30)).until(() -> drained(client.stats(queue)));
            assertThat(handled.get()).isEqualTo(MESSAGES);
            assertThat(client.deadLetters(queue, 10)).isEmpty();
        } finally {
            if (consumer != null) {
                consumer.stop();
            }
            redisson.getKeys().unlinkByPattern(prefix + ":*"); // SCAN: the test's cleanup, not the library's
            redisson.shutdown();
            RestrictedAclTest.command("ACL", "DELUSER", user);
        }
    }

    /** One snapshot: two stats calls could each miss a message that moves between in flight and pending. */
    private static boolean drained(QueueStats stats) {
        return stats.pending() == 0 && stats.inFlight() == 0;
    }
}
