package io.github.delayqueue.spring.metrics;

import java.time.Duration;
import java.time.Instant;

import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.DelayQueueMetricsAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.DelayQueueRedissonConfigCustomizer;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import io.github.delayqueue.spring.outbox.StoppableRedis;
import io.github.delayqueue.testing.TestRedis;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code delayqueue.queue.ready.priority} gauge against a Redis of the test's own: registered per queue and
 * priority when a refresh first reads ready messages of that priority (never up front), 0 once they are gone, NaN
 * while Redis cannot be read, as the other queue gauges. The refreshes are the test's own calls (the interval is an
 * hour), so each step reads what the one before wrote.
 */
class ReadyByPriorityGaugeTests {

    private static final String GAUGE = "delayqueue.queue.ready.priority";

    @Test
    void aGaugePerQueueAndPriorityAppearsWithItsFirstReadyMessagesReadsZeroOnceTheyAreGoneAndNaNWhileRedisIsDown() {
        try (StoppableRedis redis = new StoppableRedis().start()) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class,
                            DelayQueueMetricsAutoConfiguration.class))
                    .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                    .withBean(DelayQueueRedissonConfigCustomizer.class, () -> config -> config.useSingleServer()
                            .setConnectTimeout(300).setTimeout(500).setRetryAttempts(0)) // a read fails fast while down
                    .withPropertyValues("spring.data.redis.url=" + redis.url(), "delayqueue.key-prefix=" + TestRedis.uniquePrefix(),
                            "delayqueue.scan-packages=" + OrderQueues.class.getPackageName(),
                            "delayqueue.metrics.refresh-interval=1h", "delayqueue.queues.REMINDER.default-priority=6")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        DelayQueueGauges gauges = context.getBean(DelayQueueGauges.class);
                        MeterRegistry meters = context.getBean(MeterRegistry.class);
                        gauges.refresh();
                        assertThat(meters.find(GAUGE).gauges()).as("nothing ready yet: no gauge at all").isEmpty();

                        DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
                        Instant past = Instant.now().minusSeconds(5);
                        template.sendAt(OrderQueues.PRODUCER_ONLY, "a", past, SendOptions.id("urgent-1").priority(9));
                        template.sendAt(OrderQueues.PRODUCER_ONLY, "b", past, SendOptions.id("urgent-2").priority(9));
                        template.sendAt(OrderQueues.PRODUCER_ONLY, "c", past, SendOptions.id("low").priority(2));
                        template.send(OrderQueues.PRODUCER_ONLY, "d", Duration.ofHours(1), SendOptions.id("later").priority(5));
                        template.sendAt(OrderQueues.REMINDER, "e", past, SendOptions.id("reminder")); // its default: 6
                        gauges.refresh();

                        assertThat(value(meters, "PRODUCER_ONLY", "9")).isEqualTo(2.0);
                        assertThat(value(meters, "PRODUCER_ONLY", "2")).isEqualTo(1.0);
                        assertThat(value(meters, "REMINDER", "6")).isEqualTo(1.0);
                        assertThat(meters.find(GAUGE).gauges()).as("only the priorities with ready messages: not 5, "
                                + "which is not due, nor 4 or any other").hasSize(3);
                        assertThat(meters.get(GAUGE).tags("queue", "PRODUCER_ONLY", "priority", "9").gauge().getId()
                                .getDescription()).contains("one priority");

                        template.cancel(OrderQueues.PRODUCER_ONLY, "urgent-1");
                        template.cancel(OrderQueues.PRODUCER_ONLY, "urgent-2");
                        gauges.refresh();
                        assertThat(value(meters, "PRODUCER_ONLY", "9")).as("still registered, and 0").isZero();
                        assertThat(value(meters, "PRODUCER_ONLY", "2")).isEqualTo(1.0);

                        redis.stop();
                        gauges.refresh();
                        assertThat(value(meters, "PRODUCER_ONLY", "9")).as("unknown while Redis cannot be read").isNaN();
                        assertThat(value(meters, "PRODUCER_ONLY", "2")).isNaN();
                        assertThat(meters.get("delayqueue.queue.ready").tag("queue", "PRODUCER_ONLY").gauge().value()).isNaN();

                        redis.start(); // empty: this Redis keeps nothing across a restart
                        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                            gauges.refresh();
                            assertThat(value(meters, "PRODUCER_ONLY", "2")).isZero();
                        });
                        assertThat(value(meters, "PRODUCER_ONLY", "9")).isZero();
                        assertThat(value(meters, "REMINDER", "6")).isZero();
                    });
        }
    }

    private static double value(MeterRegistry meters, String queue, String priority) {
        Gauge gauge = meters.find(GAUGE).tags("queue", queue, "priority", priority).gauge();
        assertThat(gauge).as("%s of %s, priority %s", GAUGE, queue, priority).isNotNull();
        return gauge.value();
    }
}
