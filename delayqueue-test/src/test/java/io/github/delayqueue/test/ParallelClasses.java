package io.github.delayqueue.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.test.app.PaymentTimeout;
import io.github.delayqueue.test.app.Recorder;
import io.github.delayqueue.test.app.TestQueues;

/**
 * The scenario both {@link ParallelIsolationATests} and {@link ParallelIsolationBTests} play at the same time, each
 * in its own test context on the one Redis of the JVM: send a message under the same id, wait for the other class
 * to have done the same, and see only one's own message. Run them together ({@code -Dtest='ParallelIsolation*'}):
 * each waits for the other at two rendezvous, and fails if the other never comes.
 */
final class ParallelClasses {

    private static final CyclicBarrier rendezvous = new CyclicBarrier(2);

    private static final Map<String, String> prefixes = new ConcurrentHashMap<>();

    private ParallelClasses() {
    }

    static void play(String side, long orderId, DelayQueueTester tester, DelayQueueTemplate template, Recorder recorder,
            String keyPrefix) {
        prefixes.put(side, keyPrefix);
        template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(orderId), Duration.ofHours(1),
                SendOptions.id("shared-order").header("side", side));
        meet(side);

        // both messages are pending now, under the same id and queue code, on the same Redis
        assertThat(tester.pending(TestQueues.PAYMENT_TIMEOUT, PaymentTimeout.class)).singleElement().satisfies(message -> {
            assertThat(message.payload()).isEqualTo(new PaymentTimeout(orderId));
            assertThat(message.headers()).containsEntry("side", side);
        });
        tester.run(TestQueues.PAYMENT_TIMEOUT, "shared-order");
        assertThat(recorder.handled()).containsExactly(new PaymentTimeout(orderId));
        meet(side);

        assertThat(prefixes).hasSize(2);
        assertThat(prefixes.get("a")).isNotEqualTo(prefixes.get("b"));
    }

    private static void meet(String side) {
        try {
            rendezvous.await(60, TimeUnit.SECONDS);
        } catch (TimeoutException | BrokenBarrierException e) {
            throw new AssertionError("Side " + side + " waited in vain for the other ParallelIsolation class: both must "
                    + "run, at the same time (junit-platform.properties enables parallel execution for classes "
                    + "annotated @Execution(CONCURRENT))", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
