package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.core.engine.ConsumerEngine;
import io.github.delayqueue.core.engine.SharedThreads;
import io.github.delayqueue.core.engine.Threads;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.Scripts;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/** A claimed message that the handler executor refuses goes back to the queue at once, its attempt not counted. */
@ExtendWith(RedisExtension.class)
class DispatchRejectionTest {

    private final RedisContext redis;
    private DelayQueueConsumer consumer;
    private final ExecutorService real = Executors.newCachedThreadPool(Threads.named("rejection-test"));

    DispatchRejectionTest(RedisContext redis) {
        this.redis = redis;
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        if (consumer != null) {
            consumer.stop();
        }
        real.shutdownNow();
        real.awaitTermination(5, TimeUnit.SECONDS);
    }

    /** Refuses its first {@code refusals} tasks (as a pool out of threads would), then runs them. */
    private ExecutorService refusing(int refusals) {
        AtomicInteger left = new AtomicInteger(refusals);
        return new AbstractExecutorService() {
            @Override
            public void execute(Runnable command) {
                if (left.getAndDecrement() > 0) {
                    throw new RejectedExecutionException("no thread free (test)");
                }
                real.execute(command);
            }

            @Override
            public void shutdown() {
            }

            @Override
            public List<Runnable> shutdownNow() {
                return List.of();
            }

            @Override
            public boolean isShutdown() {
                return false;
            }

            @Override
            public boolean isTerminated() {
                return false;
            }

            @Override
            public boolean awaitTermination(long timeout, TimeUnit unit) {
                return true;
            }
        };
    }

    @Test
    void refusedMessagesAreHandedBackAtOnceWithoutSpendingAnAttempt() {
        String queue = "refused";
        DelayQueueClient client = redis.client();
        for (String id : List.of("a", "b", "c")) {
            client.send(queue, id, Duration.ZERO, SendOptions.id(id));
        }
        QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
        Map<String, Integer> attempts = new ConcurrentHashMap<>();
        // a lease far longer than the wait below: only a hand-back can bring the messages back in time
        ConsumerOptions options = ConsumerOptions.builder().visibilityTimeout(Duration.ofMinutes(5)).build();
        consumer = new ConsumerEngine<String>(redis.redisson(), new SharedThreads(), ops, ClientOptions.builder().build().codec(), String.class,
                (payload, context) -> attempts.put(payload, context.attempt()), options, name -> refusing(2));
        consumer.start();

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(attempts).containsOnly(Map.entry("a", 1), Map.entry("b", 1), Map.entry("c", 1)));
        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).inFlight() == 0);
        assertThat(client.stats(queue).pending()).isZero();
        assertThat(client.deadLetters(queue, 10)).isEmpty();
    }
}
