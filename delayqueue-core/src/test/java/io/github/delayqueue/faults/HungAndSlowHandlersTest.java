package io.github.delayqueue.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.RetryPolicy;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * Issue #6, hung and slow handlers.
 * <ul>
 *   <li>hung: every handler slot (4) is taken by a handler that never returns (two ignore interrupts, two
 *       block interruptibly), with 100 more messages behind them. The handler timeout (1 s) gives the hung
 *       deliveries up: slots are freed, the queue drains, the hung messages are delivered again (attempt
 *       2), never before the timeout, and succeed.</li>
 *   <li>slow: handlers that run three visibility timeouts (6 s against 2 s), on two competing consumers: the
 *       lease keeper extends their leases, so none is delivered twice.</li>
 * </ul>
 * Leases are 2 s, renewed every 667 ms: a loaded machine may delay a renewal by a second without a lease running
 * out (with 500 ms leases renewed every 166 ms, a 350 ms stall of the lease thread was enough). Latency is asserted
 * only with bounds a lost timeout or lease crosses; the measured figure is the FAULT line's {@code recover_ms}.
 */
@ExtendWith(RedisExtension.class)
class HungAndSlowHandlersTest {

    private static final Duration VISIBILITY = Duration.ofSeconds(2);
    private static final Duration HANDLER_TIMEOUT = Duration.ofSeconds(1);

    @Test
    void hungHandlersAreGivenUpAndTheirMessagesRedelivered(RedisContext redis) throws Exception {
        String queue = "hung";
        DelayQueueClient client = redis.client();
        CountDownLatch never = new CountDownLatch(1);
        Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();
        Map<String, Long> hungAt = new ConcurrentHashMap<>();
        Map<String, Long> redeliveredAt = new ConcurrentHashMap<>();
        AtomicInteger interruptsIgnored = new AtomicInteger();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            attempts.computeIfAbsent(context.id(), k -> new CopyOnWriteArrayList<>()).add(context.attempt());
            if (context.id().startsWith("hung-") && context.attempt() == 1) {
                hungAt.put(context.id(), System.nanoTime());
                if (context.id().startsWith("hung-deaf")) {
                    while (never.getCount() > 0) { // ignores interrupts: only the timeout can save this message
                        try {
                            never.await();
                        } catch (InterruptedException e) {
                            interruptsIgnored.incrementAndGet();
                        }
                    }
                } else {
                    never.await(); // leaves on the interrupt
                }
            } else if (context.id().startsWith("hung-")) {
                redeliveredAt.put(context.id(), System.nanoTime());
            }
        }, ConsumerOptions.builder().concurrency(4).batchSize(4).visibilityTimeout(VISIBILITY)
                .handlerTimeout(HANDLER_TIMEOUT).retry(new RetryPolicy(3, Duration.ofMillis(50), 1.0, Duration.ofMillis(50), 0))
                .build());
        try {
            List<SendRequest> hung = new ArrayList<>();
            for (String id : List.of("hung-deaf-1", "hung-deaf-2", "hung-interruptible-1", "hung-interruptible-2")) {
                hung.add(SendRequest.of("hangs", Duration.ZERO, SendOptions.id(id)));
            }
            client.sendAll(queue, hung);
            List<SendRequest> behind = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                behind.add(SendRequest.of("fine", Duration.ofMillis(50), SendOptions.id("behind-" + i)));
            }
            client.sendAll(queue, behind);
            long startedAt = System.nanoTime(); // before any claim: no delivery can have started earlier
            consumer.start();

            await("every message handled").atMost(Duration.ofSeconds(30)).until(() -> redeliveredAt.size() == 4
                    && attempts.keySet().stream().filter(id -> id.startsWith("behind-")).count() == 100);
            await("queue drained").atMost(Duration.ofSeconds(5)).until(() -> {
                QueueStats s = client.stats(queue);
                return s.pending() == 0 && s.inFlight() == 0;
            });
            long recoverMs = 0;
            long earliestRedeliveryMs = Long.MAX_VALUE;
            for (String id : redeliveredAt.keySet()) {
                recoverMs = Math.max(recoverMs, (redeliveredAt.get(id) - hungAt.get(id)) / 1_000_000);
                earliestRedeliveryMs = Math.min(earliestRedeliveryMs, (redeliveredAt.get(id) - startedAt) / 1_000_000);
            }
            long duplicates = attempts.entrySet().stream().filter(e -> e.getKey().startsWith("behind-"))
                    .mapToLong(e -> e.getValue().size() - 1).sum();
            FaultSupport.report("hung-handler", 104, attempts.size(), 104 - attempts.size(), duplicates, recoverMs,
                    "hung=4(2_ignore_interrupts) concurrency=4 handler_timeout_ms=" + HANDLER_TIMEOUT.toMillis()
                            + " visibility_ms=" + VISIBILITY.toMillis() + " redelivered_hung=" + redeliveredAt.size()
                            + " interrupts_ignored=" + interruptsIgnored.get() + " dead=" + client.stats(queue).dead());

            assertThat(attempts).hasSize(104);
            attempts.forEach((id, list) -> assertThat(list).as(id)
                    .isEqualTo(id.startsWith("hung-") ? List.of(1, 2) : List.of(1)));
            // never early: the timeout runs from the claim, which came after the start (no slack needed)
            assertThat(earliestRedeliveryMs).as("no hung message comes back before the handler timeout")
                    .isGreaterThanOrEqualTo(HANDLER_TIMEOUT.toMillis());
            // the timeout is checked on every lease renewal (a third of the lease), then a 50 ms retry; a timeout that
            // never fired would leave them hung (the await above), one missed by a renewal or two stays well inside this
            assertThat(recoverMs).as("hung messages come back soon after the handler timeout")
                    .isLessThanOrEqualTo(HANDLER_TIMEOUT.toMillis() + 2 * VISIBILITY.toMillis() + 3_000);
            assertThat(client.stats(queue).dead()).isZero();
        } finally {
            never.countDown();
            consumer.stop();
        }
    }

    @Test
    void aHandlerThatIgnoresItsTimeoutDoesNotStallTheNextMessages(RedisContext redis) throws Exception {
        String queue = "deaf";
        DelayQueueClient client = redis.client();
        CountDownLatch never = new CountDownLatch(1);
        List<String> handled = new CopyOnWriteArrayList<>();
        // concurrency 1: once the deaf handler is given up, its slot goes to the next message, which must
        // get a thread of its own rather than wait behind the one still stuck in the deaf handler
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            if (payload.equals("deaf") && context.attempt() == 1) {
                while (never.getCount() > 0) {
                    try {
                        never.await();
                    } catch (InterruptedException ignored) {
                        // deaf on purpose
                    }
                }
            }
            handled.add(payload + "#" + context.attempt());
        }, ConsumerOptions.builder().concurrency(1).batchSize(1).visibilityTimeout(VISIBILITY)
                .handlerTimeout(Duration.ofMillis(300)).build());
        try {
            client.send(queue, "deaf", Duration.ZERO);
            client.send(queue, "next-1", Duration.ofMillis(50));
            client.send(queue, "next-2", Duration.ofMillis(60));
            consumer.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> handled.containsAll(List.of("next-1#1", "next-2#1", "deaf#2")));
        } finally {
            never.countDown();
            consumer.stop();
        }
    }

    @Test
    void slowHandlersAreNotRedeliveredWhileTheyRun(RedisContext redis) throws Exception {
        String queue = "slow";
        DelayQueueClient client = redis.client();
        long handlerMs = VISIBILITY.toMillis() * 3;
        Map<String, AtomicInteger> starts = new ConcurrentHashMap<>();
        AtomicInteger finished = new AtomicInteger();
        List<DelayQueueConsumer> consumers = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
            consumers.add(client.newConsumer(queue, String.class, (payload, context) -> {
                starts.computeIfAbsent(context.id(), k -> new AtomicInteger()).incrementAndGet();
                Thread.sleep(handlerMs);
                finished.incrementAndGet();
            }, ConsumerOptions.builder().concurrency(8).visibilityTimeout(VISIBILITY).maxPollInterval(Duration.ofMillis(100))
                    .build()));
        }
        int count = 12;
        try {
            consumers.forEach(DelayQueueConsumer::start);
            long t0 = System.nanoTime();
            List<SendRequest> requests = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                requests.add(SendRequest.of("slow", Duration.ZERO, SendOptions.id("slow-" + i)));
            }
            client.sendAll(queue, requests);
            await("all slow handlers finished").atMost(Duration.ofSeconds(30)).until(() -> finished.get() == count);
            long tookMs = FaultSupport.millisSince(t0);
            await("queue drained").atMost(Duration.ofSeconds(5)).until(() -> {
                QueueStats s = client.stats(queue);
                return s.pending() == 0 && s.inFlight() == 0;
            });
            long duplicates = starts.values().stream().mapToLong(n -> n.get() - 1).sum();
            FaultSupport.report("slow-handler", count, starts.size(), count - starts.size(), duplicates, 0,
                    "handler_ms=" + handlerMs + " visibility_ms=" + VISIBILITY.toMillis() + " consumers=2 took_ms="
                            + tookMs);
            assertThat(starts).hasSize(count);
            assertThat(duplicates).as("a slow handler keeps its message").isZero();
        } finally {
            consumers.forEach(DelayQueueConsumer::stop);
        }
    }
}
