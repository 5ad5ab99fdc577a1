package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;
import io.github.delayqueue.testing.TestRedis;
import io.github.delayqueue.core.history.MessageStatus;

/**
 * Cancelling a message whose handler runs, from another instance: the running handler is interrupted and sees
 * {@link MessageContext#cancelled()}, nothing of its delivery is settled, and it is not delivered again; should the
 * wake-up that carries the cancel be lost, the next lease extension finds the message gone. A cancel that races the
 * acknowledgement leaves one outcome.
 */
@ExtendWith(RedisExtension.class)
class CancelRunningTest {

    /** Far above what a cancel through pub/sub takes (milliseconds); only a fault crosses it. */
    private static final Duration FAULT_BOUND = Duration.ofSeconds(10);

    private final RedisContext redis;
    private final List<DelayQueueConsumer> consumers = new ArrayList<>();
    private final List<RedissonClient> clients = new ArrayList<>();

    CancelRunningTest(RedisContext redis) {
        this.redis = redis;
    }

    @AfterEach
    void tearDown() {
        consumers.forEach(DelayQueueConsumer::stop);
        clients.forEach(RedissonClient::shutdown);
    }

    /** Another instance: a client of its own on the same Redis and prefix. */
    private DelayQueueClient otherInstance() {
        RedissonClient redisson = TestRedis.newClient();
        clients.add(redisson);
        return DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix(redis.prefix()).build());
    }

    /** Records each delivery's outcome by message id. */
    private static final class Outcomes implements DeliveryInterceptor {
        final Map<String, DeliveryOutcome> byId = new ConcurrentHashMap<>();

        @Override
        public void afterDelivery(MessageContext context, DeliveryOutcome outcome, @Nullable Throwable error,
                Duration handlerTime) {
            byId.put(context.id(), outcome);
        }
    }

    @Test
    void aRunningHandlerCancelledFromAnotherInstanceIsInterruptedAndNeverRunsAgain() throws Exception {
        String queue = "cancel-running";
        Outcomes outcomes = new Outcomes();
        CountDownLatch started = new CountDownLatch(1);
        AtomicLong interruptedAt = new AtomicLong();
        AtomicBoolean sawCancelled = new AtomicBoolean();
        AtomicLong runs = new AtomicLong();
        DelayQueueClient client = redis.client();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (String payload, MessageContext context) -> {
            runs.incrementAndGet();
            started.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                interruptedAt.set(System.nanoTime());
                sawCancelled.set(context.cancelled());
                throw e;
            }
        }, ConsumerOptions.builder().visibilityTimeout(Duration.ofSeconds(1)).interceptors(List.of(outcomes)).build());
        consumers.add(consumer);
        consumer.start();
        client.send(queue, "long job", Duration.ZERO, SendOptions.id("job-1"));
        assertThat(started.await(FAULT_BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

        DelayQueueClient other = otherInstance();
        long cancelledAt = System.nanoTime();
        assertThat(other.cancel(queue, "job-1")).isTrue();
        await().atMost(FAULT_BOUND).until(() -> outcomes.byId.get("job-1") == DeliveryOutcome.CANCELLED);
        assertThat(interruptedAt.get()).as("the handler was interrupted").isPositive();
        System.out.printf("CANCEL-RUNNING interrupted %.1f ms after the cancel returned%n",
                (interruptedAt.get() - cancelledAt) / 1e6);
        assertThat(sawCancelled).as("MessageContext.cancelled() while interrupted").isTrue();
        // not delivered again, settled as nothing: past several leases it is still gone, and never ran twice
        Thread.sleep(2_500);
        assertThat(runs.get()).isEqualTo(1);
        assertThat(client.status(queue, "job-1").state()).isEqualTo(MessageStatus.State.UNKNOWN);
        assertThat(client.stats(queue).inFlight()).isZero();
        assertThat(client.deadLetters(queue, 10)).isEmpty();
        assertThat(other.cancel(queue, "job-1")).as("nothing left to cancel").isFalse();
    }

    /** The outbox's cancel (a versioned intent) does what a direct cancel does: interrupts, records, frees. */
    @Test
    void aVersionedCancelInterruptsTheRunningHandlerAndIsRecorded() throws Exception {
        String queue = "cancel-versioned";
        Outcomes outcomes = new Outcomes();
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean sawCancelled = new AtomicBoolean();
        DelayQueueClient client = redis.client();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (String payload, MessageContext context) -> {
            context.progress("started"); // writes its running record: a cancel then leaves a cancelled one
            started.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                sawCancelled.set(context.cancelled());
                throw e;
            }
            // a lease of 90 s is extended every 30 s: only the cancel's wake-up interrupts it within the bound below
        }, ConsumerOptions.builder().keepHistory(Duration.ofHours(1), 100).visibilityTimeout(Duration.ofSeconds(90))
                .interceptors(List.of(outcomes)).build());
        consumers.add(consumer);
        consumer.start();
        client.send(queue, "long job", Duration.ZERO, SendOptions.id("job-3"));
        assertThat(started.await(FAULT_BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        await().atMost(FAULT_BOUND).until(() -> client.status(queue, "job-3").running() != null);

        assertThat(otherInstance().applyVersioned(queue, List.of(VersionedIntent.cancel("job-3", 1)),
                Duration.ofHours(1))).containsExactly(VersionedIntent.Outcome.APPLIED);
        await().atMost(Duration.ofSeconds(15)).until(() -> outcomes.byId.get("job-3") == DeliveryOutcome.CANCELLED);
        assertThat(sawCancelled).isTrue();
        MessageStatus status = client.status(queue, "job-3");
        assertThat(status.state()).isEqualTo(MessageStatus.State.CANCELLED);
        assertThat(status.settled().instance()).isNotNull();
    }

    @Test
    void withTheCancelsWakeUpLostTheNextLeaseExtensionFindsTheMessageGone() throws Exception {
        String queue = "cancel-lost";
        Outcomes outcomes = new Outcomes();
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Boolean> cancelledSeen = new AtomicReference<>();
        DelayQueueClient client = redis.client();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (String payload, MessageContext context) -> {
            started.countDown();
            // a handler that checks the flag between steps rather than sleeping
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < until && !context.cancelled()) {
                Thread.onSpinWait();
            }
            cancelledSeen.set(context.cancelled());
        }, ConsumerOptions.builder().visibilityTimeout(Duration.ofMillis(600)).interceptors(List.of(outcomes)).build());
        consumers.add(consumer);
        consumer.start();
        client.send(queue, "long job", Duration.ZERO, SendOptions.id("job-2"));
        assertThat(started.await(FAULT_BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        // the consumer's subscription dropped by hand: the cancel's wake-up reaches nobody
        redis.redisson().getTopic(QueueKeys.of(redis.prefix(), queue).wakeChannel()).removeAllListeners();
        assertThat(otherInstance().cancel(queue, "job-2")).isTrue();
        await().atMost(FAULT_BOUND).until(() -> outcomes.byId.get("job-2") == DeliveryOutcome.CANCELLED);
        assertThat(cancelledSeen.get()).isTrue();
    }

    /**
     * 200 messages, each cancelled from another instance at a random moment around its handler's run: a cancel that
     * returned true left a cancelled record, never a completed one (no acknowledgement applied), one that returned false
     * found it completed.
     */
    @Test
    void aCancelRacingTheAcknowledgementLeavesOneOutcome() throws Exception {
        String queue = "cancel-race";
        int messages = 200;
        Outcomes outcomes = new Outcomes();
        DelayQueueClient client = redis.client();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (String payload, MessageContext context) -> {
            Thread.sleep(ThreadLocalRandom.current().nextInt(0, 8));
        }, ConsumerOptions.builder().concurrency(8).keepHistory(Duration.ofHours(1), 10_000)
                .interceptors(List.of(outcomes)).build());
        consumers.add(consumer);
        consumer.start();
        DelayQueueClient other = otherInstance();
        Map<String, Boolean> cancelled = new ConcurrentHashMap<>();
        for (int i = 0; i < messages; i++) {
            String id = "race-" + i;
            client.send(queue, "x", Duration.ZERO, SendOptions.id(id));
            Thread.sleep(ThreadLocalRandom.current().nextInt(0, 6));
            cancelled.put(id, other.cancel(queue, id));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> client.stats(queue).pending() == 0
                && client.stats(queue).inFlight() == 0);
        int cancels = 0;
        for (int i = 0; i < messages; i++) {
            String id = "race-" + i;
            MessageStatus status = client.status(queue, id);
            if (cancelled.get(id)) {
                cancels++;
                // a cancelled record (none for one cancelled before its claim), never a completed one: its acknowledgement, if its handler had returned and the engine sent one, was stale
                // (the engine's own afterDelivery may still say ACKNOWLEDGED: it reports the ack it sent, not the one
                // applied)
                assertThat(status.state()).as("%s cancelled", id)
                        .isIn(MessageStatus.State.CANCELLED, MessageStatus.State.UNKNOWN);
            } else {
                assertThat(status.state()).as("%s not cancelled", id).isEqualTo(MessageStatus.State.COMPLETED);
                assertThat(outcomes.byId.get(id)).as("%s not cancelled", id).isEqualTo(DeliveryOutcome.ACKNOWLEDGED);
            }
        }
        System.out.printf("CANCEL-RACE %d of %d cancelled%n", cancels, messages);
        // every delivery finished, those cancelled before their handler started included: no slot is lost
        await().atMost(FAULT_BOUND).until(() -> consumer.activeHandlers() == 0);
    }
}
