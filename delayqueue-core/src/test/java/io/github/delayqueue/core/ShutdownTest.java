package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RScript;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.protocol.QueueKeys;

import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/** Graceful stop: no new claims, running handlers finish, everything else stays in Redis. */
@ExtendWith(RedisExtension.class)
class ShutdownTest {

    private final RedisContext redis;
    private DelayQueueClient client;

    ShutdownTest(RedisContext redis) {
        this.redis = redis;
    }

    @BeforeEach
    void setUp() {
        client = redis.client();
    }

    @Test
    void runningHandlersFinishAndTheRestStaysForTheNextConsumer() throws Exception {
        String queue = "graceful";
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger started = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            started.incrementAndGet();
            release.await(10, TimeUnit.SECONDS);
            finished.incrementAndGet();
        }, ConsumerOptions.builder().concurrency(4).shutdownTimeout(Duration.ofSeconds(10)).build());
        consumer.start();
        for (int i = 0; i < 10; i++) {
            client.send(queue, "m" + i, Duration.ZERO);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> started.get() == 4);

        CompletableFuture<Void> stopping = consumer.stopAsync();
        assertThat(consumer.isRunning()).isFalse();
        // atMost well over during: with 1 s, a condition poll 700 ms late on a loaded machine would fail it
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> !stopping.isDone());
        release.countDown();
        stopping.get(10, TimeUnit.SECONDS);

        assertThat(started.get()).as("nothing claimed after stop began").isEqualTo(4);
        assertThat(finished.get()).isEqualTo(4);
        QueueStats stats = client.stats(queue);
        assertThat(stats.inFlight()).as("finished handlers were acknowledged").isZero();
        assertThat(stats.pending()).as("the rest stays in Redis").isEqualTo(6);

        AtomicInteger next = new AtomicInteger();
        DelayQueueConsumer successor = client.newConsumer(queue, String.class, (p, c) -> next.incrementAndGet(),
                ConsumerOptions.DEFAULTS);
        successor.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> next.get() == 6);
        successor.stop();
    }

    @Test
    void handlerOverTheShutdownTimeoutIsInterruptedAndItsMessageRedelivered() throws Exception {
        String queue = "impatient";
        AtomicInteger started = new AtomicInteger();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            started.incrementAndGet();
            Thread.sleep(60_000);
        }, ConsumerOptions.builder().visibilityTimeout(Duration.ofMillis(500)).shutdownTimeout(Duration.ofMillis(300))
                // one slot, held by the hanging handler: with free slots this consumer itself takes attempt 2 once the
                // short lease runs out (a lease keeper late by a third of a second on a loaded machine), and the
                // successor gets attempt 3
                .concurrency(1).build());
        consumer.start();
        client.send(queue, "long", Duration.ZERO, SendOptions.id("long:1"));
        await().atMost(Duration.ofSeconds(20)).until(() -> started.get() == 1);
        // the lease runs out while the handler hangs (as when the keeper is late) and a wake-up arrives: this consumer
        // must not take the message itself (with free slots it did, every time)
        QueueKeys keys = QueueKeys.of(redis.prefix(), queue);
        redis.redisson().getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_WRITE,
                "for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do redis.call('ZADD', KEYS[1], 1, m) end return 1",
                RScript.ReturnType.LONG, List.of(keys.keys().get(2)));
        redis.redisson().getTopic(keys.wakeChannel(), StringCodec.INSTANCE).publish("0");
        Thread.sleep(100);
        assertThat(started.get()).isEqualTo(1);

        consumer.stopAsync().get(5, TimeUnit.SECONDS);
        assertThat(client.stats(queue).inFlight()).as("left in flight, not acknowledged").isEqualTo(1);

        AtomicInteger attempt = new AtomicInteger();
        DelayQueueConsumer successor = client.newConsumer(queue, String.class,
                (p, c) -> attempt.set(c.attempt()), ConsumerOptions.DEFAULTS);
        successor.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> attempt.get() == 2);
        successor.stop();
    }

    @Test
    void aHandlerThatReturnsWhenInterruptedAtShutdownIsNotAcknowledged() throws Exception {
        String queue = "cut-off-returns";
        AtomicInteger started = new AtomicInteger();
        AtomicInteger returned = new AtomicInteger();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            started.incrementAndGet();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the usual idiom: restore the flag and return normally
                returned.incrementAndGet();
                return;
            }
        }, ConsumerOptions.builder().shutdownTimeout(Duration.ofMillis(300)).build());
        consumer.start();
        client.send(queue, "work", Duration.ZERO, SendOptions.id("cut:1"));
        await().atMost(Duration.ofSeconds(20)).until(() -> started.get() == 1);

        consumer.stopAsync().get(10, TimeUnit.SECONDS);
        // the stop interrupts the handler and does not wait for it to return: wait for that here
        await().atMost(Duration.ofSeconds(20)).untilAsserted(
                () -> assertThat(returned.get()).as("the handler saw the interrupt and returned").isEqualTo(1));
        // an acknowledgement, if one were sent, would follow the return: it must not arrive
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(10))
                .until(() -> client.stats(queue).inFlight() == 1);
        QueueStats stats = client.stats(queue);
        assertThat(stats.inFlight()).as("work abandoned by shutdown stays in flight").isEqualTo(1);
        assertThat(stats.dead()).isZero();
    }

    @Test
    void aHandlerThatWrapsTheShutdownInterruptKeepsItsAttemptOnTheLastAttempt() throws Exception {
        String queue = "cut-off-wraps";
        AtomicInteger started = new AtomicInteger();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            started.incrementAndGet();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                // a library under the handler wraps the interrupt and clears the flag
                throw new IllegalStateException("I/O aborted", e);
            }
        }, ConsumerOptions.builder().shutdownTimeout(Duration.ofMillis(300))
                .retry(new RetryPolicy(1, Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5), 0.2)).build());
        consumer.start();
        client.send(queue, "work", Duration.ZERO, SendOptions.id("wrap:1"));
        await().atMost(Duration.ofSeconds(20)).until(() -> started.get() == 1);

        consumer.stopAsync().get(10, TimeUnit.SECONDS);
        QueueStats stats = client.stats(queue);
        assertThat(stats.dead()).as("not dead-lettered because the application was stopping").isZero();
        assertThat(stats.inFlight()).as("left in flight for the next consumer").isEqualTo(1);
    }

    @Test
    void startTwiceAndStopTwice() {
        DelayQueueConsumer consumer = client.newConsumer("twice", String.class, (p, c) -> { }, ConsumerOptions.DEFAULTS);
        consumer.start();
        org.assertj.core.api.Assertions.assertThatIllegalStateException().isThrownBy(consumer::start)
                .withMessageContaining("already started");
        CompletableFuture<Void> first = consumer.stopAsync();
        assertThat(consumer.stopAsync()).isSameAs(first);
        first.join();
        org.assertj.core.api.Assertions.assertThatIllegalStateException().isThrownBy(consumer::start);
    }
}
