package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.api.listener.MessageListener;
import org.redisson.misc.CompletableFutureWrapper;

import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * A consumer's wake-up subscription completes asynchronously, on Redisson's pub/sub connection, while its poller
 * already claims: a message sent after the poller's first (empty) claim but before the SUBSCRIBE took effect
 * publishes its wake-up to nobody. The poller must claim again once subscribed; otherwise that message waits for
 * the safety poll ({@code maxPollInterval}). Regression: DeliveryPartitionedTest.neverEarlyAndInDueOrder timed out
 * once at load 16 (30 s polls, 30 s deadline), each partition's subscription racing the test's sends.
 * <p>
 * Here the subscription is held back by the test (a RedissonClient whose topics delay {@code addListenerAsync}
 * until released), so the race is lost every time.
 */
@ExtendWith(RedisExtension.class)
class LateSubscriptionTest {

    /** Far above any lateness a loaded machine adds; far below the 2-minute safety poll a missed wake-up waits. */
    private static final Duration FAULT_BOUND = Duration.ofSeconds(5);
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private final RedisContext redis;
    private DelayQueueConsumer consumer;

    LateSubscriptionTest(RedisContext redis) {
        this.redis = redis;
    }

    @AfterEach
    void stop() {
        if (consumer != null) {
            consumer.stop();
            consumer = null;
        }
    }

    @ParameterizedTest(name = "{0} partitions")
    @ValueSource(ints = {1, 3})
    void messageSentBeforeTheSubscriptionTookEffectIsNotLeftToTheSafetyPoll(int partitions) {
        HeldSubscriptions held = new HeldSubscriptions(redis.redisson());
        String queue = "late-sub-" + partitions;
        DelayQueueClient client = DelayQueueClient.create(held.client(),
                ClientOptions.builder().keyPrefix(redis.prefix()).partitions(queue, partitions).build());
        List<Long> lateness = new CopyOnWriteArrayList<>();
        consumer = client.newConsumer(queue, String.class,
                (payload, context) -> lateness.add(serverNowMs(client) - context.dueAt().toEpochMilli()),
                ConsumerOptions.builder().maxPollInterval(Duration.ofMinutes(2)).build());
        consumer.start();
        // the poller claimed (nothing) and sleeps out its safety poll; its subscription is still under way
        await().atMost(DEADLINE).until(() -> held.waiting() == partitions && Asleep.past(consumer, serverNowMs(client) + 60_000));

        client.send(queue, "x", Duration.ofMillis(100)); // its wake-up reaches no subscriber
        held.release();

        await().atMost(DEADLINE).until(() -> lateness.size() == 1);
        assertThat(lateness.get(0)).isBetween(0L, FAULT_BOUND.toMillis());
    }

    private static long serverNowMs(DelayQueueClient client) {
        return client.stats("clock").serverTime().toEpochMilli();
    }

    /**
     * A RedissonClient that delegates everything, except that message listeners added to its topics subscribe only
     * when {@link #release()} is called.
     */
    private static final class HeldSubscriptions {

        private final RedissonClient real;
        private final List<Runnable> held = new CopyOnWriteArrayList<>();
        private volatile boolean released;

        HeldSubscriptions(RedissonClient real) {
            this.real = real;
        }

        int waiting() {
            return held.size();
        }

        synchronized void release() {
            released = true;
            held.forEach(Runnable::run);
        }

        RedissonClient client() {
            return proxy(RedissonClient.class, real, (target, method, args) -> {
                Object result = invoke(target, method, args);
                if (method.getName().equals("getTopic") && result instanceof RTopic topic) {
                    return proxy(RTopic.class, topic, this::topicCall);
                }
                return result;
            });
        }

        private Object topicCall(Object topic, Method method, Object[] args) throws Throwable {
            if (method.getName().equals("addListenerAsync") && args.length == 2 && args[1] instanceof MessageListener) {
                synchronized (this) {
                    if (!released) {
                        CompletableFuture<Object> later = new CompletableFuture<>();
                        held.add(() -> {
                            try {
                                ((CompletableFuture<?>) ((org.redisson.api.RFuture<?>) invoke(topic, method, args))
                                        .toCompletableFuture()).whenComplete((id, error) -> {
                                            if (error != null) {
                                                later.completeExceptionally(error);
                                            } else {
                                                later.complete(id);
                                            }
                                        });
                            } catch (Throwable e) {
                                later.completeExceptionally(e);
                            }
                        });
                        return new CompletableFutureWrapper<>(later);
                    }
                }
            }
            return invoke(topic, method, args);
        }

        private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }

        @SuppressWarnings("unchecked")
        private static <T> T proxy(Class<T> type, Object target, Call call) {
            InvocationHandler handler = (p, method, args) -> call.apply(target, method, args == null ? new Object[0] : args);
            return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler);
        }

        @FunctionalInterface
        private interface Call {
            Object apply(Object target, Method method, Object[] args) throws Throwable;
        }
    }
}
