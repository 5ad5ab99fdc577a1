package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.Scripts;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;
import io.github.delayqueue.testing.TestRedis;

/** Pause is one mark in Redis that every consumer of the queue honours; resume wakes them at once. */
@ExtendWith(RedisExtension.class)
class PauseTest {

    private static final Duration DEADLINE = Duration.ofSeconds(15);

    private final RedisContext redis;
    private final List<DelayQueueConsumer> consumers = new ArrayList<>();
    private final List<RedissonClient> extraClients = new ArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);

    PauseTest(RedisContext redis) {
        this.redis = redis;
    }

    @AfterEach
    void tearDown() {
        release.countDown();
        consumers.forEach(DelayQueueConsumer::stop);
        extraClients.forEach(RedissonClient::shutdown);
    }

    /** A second application: its own Redisson client, the same Redis and key prefix. */
    private DelayQueueClient secondApplication() {
        RedissonClient other = TestRedis.newClient();
        extraClients.add(other);
        return DelayQueueClient.create(other, ClientOptions.builder().keyPrefix(redis.prefix()).build());
    }

    private DelayQueueConsumer consume(DelayQueueClient client, String queue, ConsumerOptions options, MessageHandler<String> handler) {
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, handler, options);
        consumers.add(consumer);
        consumer.start();
        return consumer;
    }

    @Test
    void nothingIsDeliveredToAnyConsumerWhilePausedAndResumeWakesThemAtOnce() {
        String queue = "paused-two-apps";
        DelayQueueClient first = redis.client();
        DelayQueueClient second = secondApplication();
        // a long safety poll: only the resume's wake-up can bring the messages within the deadline below
        ConsumerOptions options = ConsumerOptions.builder().maxPollInterval(Duration.ofSeconds(60)).concurrency(4).build();
        List<String> handled = new CopyOnWriteArrayList<>();
        // after the resume each consumer's handlers wait until the other consumer has started one too (at most
        // 30 s): a consumer the resume did not wake holds nothing, and the other, its 4 slots full, cannot take
        // every message, so the 41 are handled in time only if the resume woke both
        CountDownLatch firstWorks = new CountDownLatch(1);
        CountDownLatch secondWorks = new CountDownLatch(1);
        consume(first, queue, options, (payload, context) -> {
            handled.add(payload);
            if (!payload.equals("before")) {
                firstWorks.countDown();
                secondWorks.await(30, TimeUnit.SECONDS);
            }
        });
        consume(second, queue, options, (payload, context) -> {
            handled.add(payload);
            if (!payload.equals("before")) {
                secondWorks.countDown();
                firstWorks.await(30, TimeUnit.SECONDS);
            }
        });
        first.send(queue, "before", Duration.ZERO);
        await().atMost(DEADLINE).until(() -> handled.contains("before"));

        second.pause(queue); // paused by the other application
        assertThat(first.isPaused(queue)).isTrue();
        for (int i = 0; i < 40; i++) {
            first.send(queue, "m" + i, Duration.ZERO); // sends go on, and their wake-ups reach both consumers
        }
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> handled.size() == 1);
        QueueStats stats = first.stats(queue);
        assertThat(stats.ready()).isEqualTo(40);
        assertThat(stats.inFlight()).isZero();

        first.resume(queue);
        assertThat(second.isPaused(queue)).isFalse();
        await().atMost(DEADLINE).until(() -> handled.size() == 41); // well within the 60 s safety poll
        assertThat(handled).doesNotHaveDuplicates();
        assertThat(firstWorks.getCount()).isZero();
        assertThat(secondWorks.getCount()).isZero();
    }

    @Test
    void aRunningHandlerFinishesAndIsAcknowledgedWhileThePauseHoldsBackTheRest() throws Exception {
        String queue = "paused-in-flight";
        DelayQueueClient client = redis.client();
        List<String> handled = new CopyOnWriteArrayList<>();
        CountDownLatch started = new CountDownLatch(1);
        // a 2 s lease, extended every 666 ms: a paused claim returns it to the queue (failing the test) only if the
        // keeper runs over 1.3 s late. With 600 ms (extended every 200 ms) a keeper 400 ms late on a loaded machine
        // let the paused poller (every 200 ms) reap the running delivery's lease
        consume(client, queue, ConsumerOptions.builder().maxPollInterval(Duration.ofMillis(200))
                .visibilityTimeout(Duration.ofSeconds(2)).build(), (payload, context) -> {
                    if (payload.equals("slow")) {
                        started.countDown();
                        release.await(30, TimeUnit.SECONDS); // longer than its lease: the keeper extends it while paused
                    }
                    handled.add(payload);
                });
        client.send(queue, "slow", Duration.ZERO);
        assertThat(started.await(15, TimeUnit.SECONDS)).isTrue();
        client.pause(queue);
        client.send(queue, "held", Duration.ZERO);
        // paused for longer than the lease the delivery was claimed with
        await().during(Duration.ofMillis(2_500)).atMost(Duration.ofSeconds(10))
                .until(() -> client.stats(queue).inFlight() == 1 && client.stats(queue).ready() == 1);

        release.countDown();
        await().atMost(DEADLINE).until(() -> client.stats(queue).inFlight() == 0);
        assertThat(handled).containsExactly("slow"); // acknowledged once, never redelivered, and "held" still waits
        assertThat(client.stats(queue).pending()).isEqualTo(1);

        client.resume(queue);
        await().atMost(DEADLINE).until(() -> handled.contains("held"));
    }

    @Test
    void aLeaseThatExpiresWhilePausedReturnsItsMessageToTheQueueButNoConsumerTakesIt() {
        String queue = "paused-expired-lease";
        DelayQueueClient client = redis.client();
        // a message claimed and never settled, as by a consumer that died: its lease expires during the pause
        client.send(queue, "orphan", Duration.ZERO, SendOptions.id("orphan"));
        QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
        // due at the send's clock rounded up to the next millisecond: a claim in the same millisecond finds nothing
        await().atMost(DEADLINE).until(() -> ops.claim(1, 300, 5, 100, Duration.ofDays(1).toMillis(), 1000)
                .messages().size() == 1);
        client.pause(queue);

        List<String> handled = new CopyOnWriteArrayList<>();
        consume(client, queue, ConsumerOptions.builder().maxPollInterval(Duration.ofMillis(100)).build(),
                (payload, context) -> handled.add(payload + "#" + context.attempt()));
        await().atMost(DEADLINE).until(() -> client.stats(queue).inFlight() == 0 && client.stats(queue).ready() == 1);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(10)).until(handled::isEmpty);

        client.resume(queue);
        await().atMost(DEADLINE).until(() -> handled.contains("orphan#2"));
    }

    @Test
    void pauseAndResumeAreIdempotentAndPerQueue() {
        DelayQueueClient client = redis.client();
        assertThat(client.isPaused("idempotent-a")).isFalse();
        client.pause("idempotent-a");
        client.pause("idempotent-a");
        assertThat(client.isPaused("idempotent-a")).isTrue();
        assertThat(client.isPaused("idempotent-b")).isFalse();
        client.resume("idempotent-a");
        client.resume("idempotent-a");
        client.resume("idempotent-b");
        assertThat(client.isPaused("idempotent-a")).isFalse();
        assertThat(client.isPaused("idempotent-b")).isFalse();
    }

    @Test
    void aBadQueueNameIsRejectedAndNothingIsWritten() {
        DelayQueueClient client = redis.client();
        long keysBefore = redis.redisson().getKeys().getKeysStreamByPattern(redis.prefix() + ":*").count();
        for (String bad : new String[] { null, "", " ", "has space", "a{b}", "x".repeat(101) }) {
            assertThatIllegalArgumentException().isThrownBy(() -> client.pause(bad)).withMessageContaining("queue name");
            assertThatIllegalArgumentException().isThrownBy(() -> client.resume(bad)).withMessageContaining("queue name");
            assertThatIllegalArgumentException().isThrownBy(() -> client.isPaused(bad)).withMessageContaining("queue name");
        }
        assertThat(redis.redisson().getKeys().getKeysStreamByPattern(redis.prefix() + ":*").count()).isEqualTo(keysBefore);
    }
}
