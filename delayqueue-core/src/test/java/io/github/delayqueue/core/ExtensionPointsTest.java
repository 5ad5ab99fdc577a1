package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/** Interceptors, exceptions never retried, a per-queue error handler, and a handler asking for a retry later. */
@ExtendWith(RedisExtension.class)
class ExtensionPointsTest {

    private static final RetryPolicy FAST = new RetryPolicy(3, Duration.ofMillis(50), 1.0, Duration.ofMillis(50), 0.0);

    private final RedisContext redis;
    private final DelayQueueClient client;
    private DelayQueueConsumer consumer;

    ExtensionPointsTest(RedisContext redis) {
        this.redis = redis;
        this.client = redis.client();
    }

    @AfterEach
    void tearDown() {
        if (consumer != null) {
            consumer.stop();
        }
    }

    /** Records what it sees, as "name:event". */
    private static DeliveryInterceptor recording(String name, List<String> events) {
        return new DeliveryInterceptor() {
            @Override
            public void aroundHandle(MessageContext context, Object payload, Invocation invocation) throws Exception {
                events.add(name + ":before:" + payload + "#" + context.attempt());
                try {
                    invocation.proceed();
                } finally {
                    events.add(name + ":after:" + payload);
                }
            }

            @Override
            public void afterDelivery(MessageContext context, DeliveryOutcome outcome, Throwable error, Duration handlerTime) {
                assertThat(handlerTime.isNegative()).isFalse();
                events.add(name + ":" + outcome + ":" + context.id() + (error == null ? "" : ":" + error.getClass().getSimpleName()));
            }
        };
    }

    @Test
    void interceptorsRunAroundTheHandlerFirstOutermostAndSeeEveryOutcome() {
        String queue = "intercepted";
        List<String> events = new CopyOnWriteArrayList<>();
        DeliveryInterceptor failing = new DeliveryInterceptor() {
            @Override
            public void afterDelivery(MessageContext context, DeliveryOutcome outcome, Throwable error, Duration time) {
                throw new IllegalStateException("an interceptor that fails changes nothing");
            }
        };
        consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            events.add("handler:" + payload);
            if (payload.equals("bad") && context.attempt() < 3) {
                throw new IllegalStateException("not yet");
            }
        }, ConsumerOptions.builder().retry(FAST).interceptors(List.of(recording("outer", events), failing,
                recording("inner", events))).build());
        consumer.start();
        client.send(queue, "good", Duration.ZERO, SendOptions.id("good"));
        await().atMost(Duration.ofSeconds(20)).until(() -> events.contains("inner:ACKNOWLEDGED:good"));
        assertThat(events).containsSubsequence("outer:before:good#1", "inner:before:good#1", "handler:good",
                "inner:after:good", "outer:after:good", "outer:ACKNOWLEDGED:good", "inner:ACKNOWLEDGED:good");

        client.send(queue, "bad", Duration.ZERO, SendOptions.id("bad"));
        await().atMost(Duration.ofSeconds(20)).until(() -> events.contains("outer:ACKNOWLEDGED:bad"));
        assertThat(events).containsSubsequence("outer:RETRIED:bad:IllegalStateException",
                "outer:RETRIED:bad:IllegalStateException", "outer:before:bad#3", "outer:ACKNOWLEDGED:bad");
        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).inFlight() == 0);
    }

    @Test
    void anExceptionNeverRetriedGoesToTheDeadLettersOnTheFirstFailureEvenAsACause() {
        String queue = "no-retry";
        AtomicInteger calls = new AtomicInteger();
        consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            calls.incrementAndGet();
            if (payload.equals("wrapped")) {
                throw new IllegalStateException("outer", new IllegalArgumentException("order 7 does not exist"));
            }
            throw new IllegalArgumentException("order 8 does not exist");
        }, ConsumerOptions.builder().retry(FAST).noRetryFor(Set.of(IllegalArgumentException.class)).build());
        consumer.start();
        client.send(queue, "plain", Duration.ZERO, SendOptions.id("plain"));
        client.send(queue, "wrapped", Duration.ZERO, SendOptions.id("wrapped"));
        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).dead() == 2);
        assertThat(calls.get()).isEqualTo(2);
        assertThat(client.deadLetters(queue, 10)).allSatisfy(dead -> assertThat(dead.attempts()).isEqualTo(1));
    }

    @Test
    void anErrorHandlerDecidesWhatAFailureDoes() {
        String queue = "error-handler";
        List<String> offered = new CopyOnWriteArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            calls.incrementAndGet();
            throw new UncheckedIOException(new java.io.IOException("disk full"));
        }, ConsumerOptions.builder().retry(FAST).errorHandler((context, error, proposed) -> {
            offered.add(context.id() + "#" + context.attempt() + ":" + proposed.kind());
            return switch (context.id()) {
                case "ack" -> FailureAction.acknowledge();
                case "dead" -> FailureAction.deadLetter();
                default -> context.attempt() < 5 ? FailureAction.retryAfter(Duration.ofMillis(10)) : FailureAction.acknowledge();
            };
        }).build());
        consumer.start();
        client.send(queue, "x", Duration.ZERO, SendOptions.id("ack"));
        client.send(queue, "x", Duration.ZERO, SendOptions.id("dead"));
        client.send(queue, "x", Duration.ZERO, SendOptions.id("again"));
        await().atMost(Duration.ofSeconds(10)).until(() -> drained(client.stats(queue)));
        assertThat(client.deadLetters(queue, 10)).extracting(DeadLetter::id).containsExactly("dead");
        // retried past maxAttempts (3) because the handler said so; the default rule would have buried it at 3
        assertThat(offered).contains("again#3:DEAD_LETTER", "again#5:DEAD_LETTER", "ack#1:RETRY");
        assertThat(calls.get()).isEqualTo(7);
    }

    @Test
    void aHandlerAskingToBeRetriedLaterIsNotAFailureAndSpendsNoAttempt() {
        String queue = "retry-later";
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        List<String> outcomes = new CopyOnWriteArrayList<>();
        consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            attempts.add(context.attempt());
            if (attempts.size() < 6) { // more than maxAttempts (3): never dead-lettered for asking
                throw new RetryLaterException(Duration.ofMillis(20), "the payment provider has no answer yet");
            }
        }, ConsumerOptions.builder().retry(FAST).interceptors(List.of(new DeliveryInterceptor() {
            @Override
            public void afterDelivery(MessageContext context, DeliveryOutcome outcome, Throwable error, Duration time) {
                outcomes.add(outcome.name());
            }
        })).build());
        consumer.start();
        long sent = System.nanoTime();
        client.send(queue, "order-1", Duration.ZERO, SendOptions.id("order-1"));
        await().atMost(Duration.ofSeconds(10)).until(() -> outcomes.contains("ACKNOWLEDGED"));
        assertThat(attempts).containsExactly(1, 1, 1, 1, 1, 1);
        assertThat(outcomes).containsExactly("RETRY_LATER", "RETRY_LATER", "RETRY_LATER", "RETRY_LATER", "RETRY_LATER",
                "ACKNOWLEDGED");
        assertThat(Duration.ofNanos(System.nanoTime() - sent)).isGreaterThanOrEqualTo(Duration.ofMillis(5 * 20));
        assertThat(client.stats(queue).dead()).isZero();
    }

    @Test
    void badExtensionSettingsAreRejected() {
        assertThatThrownBy(() -> new RetryLaterException(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delay");
        assertThatThrownBy(() -> new RetryLaterException(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FailureAction.retryAfter(DelayQueueClient.MAX_DELAY.plusDays(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ConsumerOptions.builder().interceptors(java.util.Arrays.asList((DeliveryInterceptor) null)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("interceptors");
        assertThatThrownBy(() -> ConsumerOptions.builder().noRetryFor(null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("noRetryFor");
    }

    /** One snapshot: two stats calls could each miss a message that moves between in flight and pending. */
    private static boolean drained(QueueStats stats) {
        return stats.pending() == 0 && stats.inFlight() == 0;
    }
}
