package io.github.delayqueue.spring.runtime;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Handlers run on virtual threads only when the application turned Boot's {@code spring.threads.virtual.enabled} on
 * (and the JVM has them, Java 21+): off by default, as Boot's own executors. Run on Java 17 both cases give platform
 * threads; {@code .ci/run} runs this class again on Java 25.
 */
class VirtualThreadsIntegrationTests {

    @Test
    void handlersRunOnPlatformThreadsByDefault() throws Exception {
        assertThat(isVirtual(handlerThread())).isFalse();
    }

    @Test
    void handlersRunOnVirtualThreadsWhenBootsSwitchIsOnAndTheJvmHasThem() throws Exception {
        assertThat(isVirtual(handlerThread("spring.threads.virtual.enabled=true")))
                .isEqualTo(Runtime.version().feature() >= 21);
    }

    @Test
    void handlersRunOnPlatformThreadsWhenBootsSwitchIsOff() throws Exception {
        assertThat(isVirtual(handlerThread("spring.threads.virtual.enabled=false"))).isFalse();
    }

    /** Starts the application with {@code properties}, sends one message and returns the thread its handler ran on. */
    private static Thread handlerThread(String... properties) throws Exception {
        String prefix = TestRedis.uniquePrefix();
        RuntimeApp.HANDLER_THREADS.clear();
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(RuntimeApp.class)
                .properties(RuntimeApp.PROPERTIES)
                .properties("spring.data.redis.url=" + TestRedis.url(), "delayqueue.key-prefix=" + prefix)
                .properties(properties).run()) {
            context.getBean(DelayQueueTemplate.class).send(RuntimeApp.Queues.RUNTIME_ORDERS,
                    new RuntimeApp.Order("o-1", 100, List.of(), Instant.now()), Duration.ZERO);
            Thread thread = RuntimeApp.HANDLER_THREADS.poll(30, TimeUnit.SECONDS);
            assertThat(thread).as("the handler ran").isNotNull();
            return thread;
        } finally {
            TestRedis.deleteKeys(prefix);
        }
    }

    /** {@code Thread.isVirtual()}, which Java 17 (the baseline this compiles for) does not have: false there. */
    static boolean isVirtual(Thread thread) throws ReflectiveOperationException {
        if (Runtime.version().feature() < 21) {
            return false;
        }
        return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
    }
}
