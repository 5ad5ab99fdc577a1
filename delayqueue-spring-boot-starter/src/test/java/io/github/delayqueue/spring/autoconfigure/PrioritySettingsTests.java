package io.github.delayqueue.spring.autoconfigure;

import java.time.Duration;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import io.github.delayqueue.spring.consumer.DefaultDelayQueueConsumerRegistry;
import io.github.delayqueue.spring.core.HandlerOverrides;
import io.github.delayqueue.spring.core.QueueCatalog;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code delayqueue.queues.<code>.default-priority} (per queue only), and {@code priority-aging} and
 * {@code strict-priority} (per queue, inheriting from {@code delayqueue.consumer}): mapped onto the engine's client
 * and consumer options, and a bad value fails startup naming the property (without Redis: the options are only
 * built). What a priority does to a send and a claim is {@code PriorityIntegrationTests}'.
 */
class PrioritySettingsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1",
                    "delayqueue.scan-packages=" + OrderQueues.class.getPackageName())
            .withUserConfiguration(DelayQueueAutoConfigurationTests.ClassHandlerConfig.class);

    @Test
    void withoutSettingsTheEnginesDefaultsApply() {
        this.runner.run(context -> {
            assertThat(context).hasNotFailed();
            ConsumerOptions options = options(context, "ORDER_TIMEOUT");
            assertThat(options.priorityAging()).isEqualTo(ConsumerOptions.DEFAULT_PRIORITY_AGING).isEqualTo(Duration.ofMinutes(1));
            assertThat(options.strictPriority()).isFalse();
            for (OrderQueues queue : OrderQueues.values()) {
                assertThat(client(context, queue).defaultPriority(queue.code())).as(queue.code())
                        .isEqualTo(SendOptions.DEFAULT_PRIORITY);
            }
        });
    }

    @Test
    void aQueuesDefaultPriorityReachesItsClientForThatQueueOnlyConsumedOrNot() {
        this.runner.withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.default-priority=7",
                "delayqueue.queues.PRODUCER_ONLY.default-priority=0", "delayqueue.queues[orders.dotted].default-priority=9",
                "delayqueue.queues.reminder.default-priority=2") // relaxed: matches REMINDER
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(client(context, OrderQueues.ORDER_TIMEOUT).defaultPriority("ORDER_TIMEOUT")).isEqualTo(7);
                    assertThat(client(context, OrderQueues.PRODUCER_ONLY).defaultPriority("PRODUCER_ONLY")).isZero();
                    assertThat(client(context, OrderQueues.DOTTED).defaultPriority("orders.dotted")).isEqualTo(9);
                    assertThat(client(context, OrderQueues.REMINDER).defaultPriority("REMINDER")).isEqualTo(2);
                });
    }

    @Test
    void aQueuesDefaultPriorityReachesItsClientAlsoUnderAKeyPrefixOfItsOwn() {
        this.runner.withPropertyValues("delayqueue.queues.REMINDER.key-prefix=other",
                "delayqueue.queues.REMINDER.default-priority=1", "delayqueue.queues.ORDER_TIMEOUT.default-priority=8")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ClientOptions reminder = client(context, OrderQueues.REMINDER);
                    ClientOptions orders = client(context, OrderQueues.ORDER_TIMEOUT);
                    assertThat(reminder).isNotSameAs(orders);
                    assertThat(reminder.keyPrefix()).isEqualTo("other");
                    assertThat(reminder.defaultPriority("REMINDER")).isEqualTo(1);
                    assertThat(orders.defaultPriority("ORDER_TIMEOUT")).isEqualTo(8);
                });
    }

    @Test
    void agingAndStrictPriorityInheritFromTheConsumerSettingsAndAQueueOverridesThem() {
        this.runner.withPropertyValues("delayqueue.consumer.priority-aging=30s", "delayqueue.consumer.strict-priority=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(options(context, "ORDER_TIMEOUT").priorityAging()).isEqualTo(Duration.ofSeconds(30));
                    assertThat(options(context, "ORDER_TIMEOUT").strictPriority()).isTrue();
                });
        this.runner.withPropertyValues("delayqueue.consumer.priority-aging=30s", "delayqueue.consumer.strict-priority=true",
                "delayqueue.queues.ORDER_TIMEOUT.priority-aging=5m", "delayqueue.queues.ORDER_TIMEOUT.strict-priority=false",
                "delayqueue.queues[orders.dotted].priority-aging=1d")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(options(context, "ORDER_TIMEOUT").priorityAging()).isEqualTo(Duration.ofMinutes(5));
                    assertThat(options(context, "ORDER_TIMEOUT").strictPriority()).isFalse();
                    ConsumerOptions dotted = context.getBean(QueueCatalog.class).settings()
                            .consumerOptions("orders.dotted", HandlerOverrides.NONE);
                    assertThat(dotted.priorityAging()).isEqualTo(Duration.ofDays(1));
                    assertThat(dotted.strictPriority()).isTrue();
                });
    }

    @Test
    void aDefaultPriorityOutOfRangeFailsStartupNamingThePropertyEvenForAQueueThisApplicationDoesNotConsume() {
        assertFails("delayqueue.queues.ORDER_TIMEOUT.default-priority=12",
                "delayqueue.queues.ORDER_TIMEOUT.default-priority is 12: a priority is from 0 (lowest) to 9 (highest)");
        assertFails("delayqueue.queues.PRODUCER_ONLY.default-priority=-1",
                "delayqueue.queues.PRODUCER_ONLY.default-priority is -1");
        assertFails("delayqueue.queues[orders.dotted].default-priority=10",
                "delayqueue.queues[orders.dotted].default-priority is 10");
        // a key that matches no declared queue is still checked: a typo in the value must not pass unseen either
        assertFails("delayqueue.queues.NO_SUCH_QUEUE.default-priority=99",
                "delayqueue.queues.NO_SUCH_QUEUE.default-priority is 99");
    }

    @Test
    void aPriorityAgingOutOfRangeFailsStartupNamingThePropertyAtEitherLevel() {
        assertFails("delayqueue.queues.ORDER_TIMEOUT.priority-aging=0",
                "delayqueue.queues.ORDER_TIMEOUT.priority-aging is PT0S: it must be from 1ms to 1d");
        assertFails("delayqueue.queues.PRODUCER_ONLY.priority-aging=2d",
                "delayqueue.queues.PRODUCER_ONLY.priority-aging is PT48H: it must be from 1ms to 1d");
        assertFails("delayqueue.queues.ORDER_TIMEOUT.priority-aging=-1s",
                "delayqueue.queues.ORDER_TIMEOUT.priority-aging is PT-1S");
        assertFails("delayqueue.queues[orders.dotted].priority-aging=500us",
                "delayqueue.queues[orders.dotted].priority-aging is PT0.0005S");
        assertFails("delayqueue.consumer.priority-aging=0", "delayqueue.consumer.priority-aging is PT0S");
        assertFails("delayqueue.consumer.priority-aging=25h", "delayqueue.consumer.priority-aging is PT25H");
        // the bounds themselves are fine
        this.runner.withPropertyValues("delayqueue.consumer.priority-aging=1ms", "delayqueue.queues.REMINDER.priority-aging=1d")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void theFailureAnalyzerReportsTheCulpritAndTheFix() {
        this.runner.withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.default-priority=12").run(context -> {
            FailureAnalysis analysis = new DelayQueueFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("delayqueue.queues.ORDER_TIMEOUT.default-priority is 12");
            assertThat(analysis.getAction()).contains("between 0 and 9", "the default, 4");
        });
        this.runner.withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.priority-aging=2d").run(context -> {
            FailureAnalysis analysis = new DelayQueueFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("delayqueue.queues.ORDER_TIMEOUT.priority-aging is PT48H");
            assertThat(analysis.getAction()).contains("between 1ms and 1d", "strict-priority");
        });
    }

    private void assertFails(String property, String message) {
        this.runner.withPropertyValues(property).run(context -> assertThat(failure(context)).hasMessageContaining(message));
    }

    private static ClientOptions client(AssertableApplicationContext context, OrderQueues queue) {
        return context.getBean(QueueCatalog.class).require(queue).client().options();
    }

    private static ConsumerOptions options(AssertableApplicationContext context, String code) {
        return context.getBean(DefaultDelayQueueConsumerRegistry.class).definitions().stream()
                .filter(d -> d.queue().name().equals(code)).findFirst().orElseThrow().options();
    }

    private static Throwable failure(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        Throwable failure = context.getStartupFailure();
        while (!(failure instanceof DelayQueueConfigurationException) && failure.getCause() != null) {
            failure = failure.getCause();
        }
        assertThat(failure).isInstanceOf(DelayQueueConfigurationException.class);
        return failure;
    }
}
