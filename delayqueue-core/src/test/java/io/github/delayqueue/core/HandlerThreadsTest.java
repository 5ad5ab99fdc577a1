package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * The engine's {@code virtualThreads} option: handlers run on virtual threads by default where the JVM has them
 * (Java 21+), and on platform threads when it is off. On Java 17 both give platform threads; {@code .ci/run} runs
 * this class again on Java 25.
 */
@ExtendWith(RedisExtension.class)
class HandlerThreadsTest {

    private final RedisContext redis;

    HandlerThreadsTest(RedisContext redis) {
        this.redis = redis;
    }

    @Test
    void handlersRunOnVirtualThreadsByDefaultWhereTheJvmHasThem() throws Exception {
        assertThat(ConsumerOptions.DEFAULTS.virtualThreads()).isTrue();
        Thread thread = handlerThread("default-threads", ConsumerOptions.DEFAULTS);
        assertThat(isVirtual(thread)).isEqualTo(Runtime.version().feature() >= 21);
        assertThat(thread.getName()).startsWith("delayqueue-handler-default-threads");
    }

    @Test
    void handlersRunOnPlatformThreadsWhenTheOptionIsOff() throws Exception {
        ConsumerOptions off = ConsumerOptions.builder().virtualThreads(false).build();
        assertThat(off.toBuilder().build().virtualThreads()).isFalse();
        Thread thread = handlerThread("platform-threads", off);
        assertThat(isVirtual(thread)).isFalse();
        assertThat(thread.getName()).startsWith("delayqueue-handler-platform-threads");
    }

    private Thread handlerThread(String queue, ConsumerOptions options) throws InterruptedException {
        DelayQueueClient client = redis.client();
        BlockingQueue<Thread> threads = new LinkedBlockingQueue<>();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class,
                (payload, context) -> threads.add(Thread.currentThread()), options);
        consumer.start();
        try {
            client.send(queue, "m", Duration.ZERO);
            Thread thread = threads.poll(30, TimeUnit.SECONDS);
            assertThat(thread).as("the handler ran").isNotNull();
            return thread;
        } finally {
            consumer.stop();
        }
    }

    /** {@code Thread.isVirtual()}, which Java 17 (the baseline this compiles for) does not have: false there. */
    private static boolean isVirtual(Thread thread) throws ReflectiveOperationException {
        return Runtime.version().feature() >= 21 && (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
    }
}
