package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/** A claiming loop that ends without a stop is reported by {@link DelayQueueConsumer#failure()}, not lost with its thread. */
@ExtendWith(RedisExtension.class)
class ConsumerFailureTest {

    private final RedisContext redis;

    ConsumerFailureTest(RedisContext redis) {
        this.redis = redis;
    }

    @Test
    void aPollerEndedByAnotherThreadsInterruptIsAFailureAndAStopIsNot() {
        DelayQueueClient client = redis.client();
        List<String> handled = new CopyOnWriteArrayList<>();
        DelayQueueConsumer victim = client.newConsumer("failure-victim", String.class,
                (payload, context) -> handled.add(payload), ConsumerOptions.builder().build());
        DelayQueueConsumer healthy = client.newConsumer("failure-healthy", String.class,
                (payload, context) -> handled.add(payload), ConsumerOptions.builder().build());
        assertThat(victim.failure()).isNull();
        victim.start();
        healthy.start();
        try {
            client.send("failure-victim", "first", Duration.ZERO);
            await().atMost(Duration.ofSeconds(10)).until(() -> handled.contains("first"));
            assertThat(victim.failure()).isNull();

            pollerThread("failure-victim").interrupt();
            await().atMost(Duration.ofSeconds(10)).until(() -> victim.failure() != null);
            assertThat(victim.failure()).hasMessageContaining("failure-victim").hasMessageContaining("ended without a stop");
            assertThat(victim.isRunning()).isTrue(); // started and not stopped: the registry still holds it
            client.send("failure-victim", "second", Duration.ZERO);
            await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(10)).until(() -> !handled.contains("second"));
            assertThat(healthy.failure()).isNull();
        } finally {
            victim.stop();
            healthy.stop();
        }
        assertThat(healthy.failure()).isNull(); // a stop ends the loop without a failure
        assertThat(victim.failure()).isNotNull(); // and the failure stays told after the stop
    }

    private static Thread pollerThread(String queue) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("delayqueue-poller-" + queue + "-1")).findFirst().orElseThrow();
    }
}
