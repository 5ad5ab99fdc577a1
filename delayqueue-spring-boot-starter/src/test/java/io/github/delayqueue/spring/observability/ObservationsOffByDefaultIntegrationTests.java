package io.github.delayqueue.spring.observability;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.observability.ObservabilityApp.Job;
import io.github.delayqueue.spring.observability.ObservabilityApp.Queues;
import io.github.delayqueue.testing.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.tracing.test.autoconfigure.AutoConfigureTracing;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The defaults, as Spring Kafka's: with Boot's observation and tracing auto-configuration and a handler that records
 * every observation started, messages sent and handled against a real Redis start no {@code delayqueue.*}
 * observation (and carry no trace to the handler), while the meters count them.
 */
@SpringBootTest(classes = ObservabilityApp.class)
@AutoConfigureTracing
class ObservationsOffByDefaultIntegrationTests {

    private static final String PREFIX = TestRedis.uniquePrefix();

    /** The name of every observation started in the application. */
    static final List<String> STARTED = new CopyOnWriteArrayList<>();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", TestRedis::url);
        registry.add("delayqueue.key-prefix", () -> PREFIX);
        registry.add("spring.main.banner-mode", () -> "off");
        registry.add("management.tracing.sampling.probability", () -> "1.0");
    }

    @AfterAll
    static void deleteKeys() {
        TestRedis.deleteKeys(PREFIX);
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Recording {

        @Bean
        ObservationHandler<Observation.Context> recordingHandler() {
            return new ObservationHandler<>() {
                @Override
                public void onStart(Observation.Context context) {
                    STARTED.add(context.getName());
                }

                @Override
                public boolean supportsContext(Observation.Context context) {
                    return true;
                }
            };
        }
    }

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    MeterRegistry meters;

    @Test
    void noObservationIsStartedWhileTheMetersCount() {
        String counted = this.template.send(Queues.COUNTED, new Job("ok"), Duration.ZERO);
        String traced = this.template.send(Queues.TRACED, new Job("ok"), Duration.ZERO);

        await().atMost(Duration.ofSeconds(20)).until(() -> ObservabilityApp.HANDLER_TRACES.containsKey(traced + "#1")
                && acknowledged(Queues.COUNTED) == 1 && acknowledged(Queues.TRACED) == 1);
        assertThat(counted).isNotBlank();
        assertThat(this.meters.find("delayqueue.messages.sent").tag("queue", "COUNTED").counters().stream()
                .mapToDouble(c -> c.count()).sum()).isEqualTo(1);
        assertThat(STARTED).noneMatch(name -> name.startsWith("delayqueue"));
        assertThat(ObservabilityApp.HANDLER_TRACES.get(traced + "#1")).isEqualTo("none"); // no span around the handler
        assertThat(this.meters.find("delayqueue.process").timer()).isNull();
        assertThat(this.meters.find("delayqueue.send").timer()).isNull();
    }

    private double acknowledged(Queues queue) {
        var counter = this.meters.find("delayqueue.messages.acknowledged").tag("queue", queue.code()).counter();
        return counter == null ? 0 : counter.count();
    }
}
