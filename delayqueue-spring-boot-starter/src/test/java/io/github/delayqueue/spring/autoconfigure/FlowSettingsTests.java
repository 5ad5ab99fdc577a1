package io.github.delayqueue.spring.autoconfigure;

import java.time.Duration;

import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.ExpiryAction;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import io.github.delayqueue.spring.consumer.DefaultDelayQueueConsumerRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code delayqueue.queues.<code>.rate-limit}, {@code rate-limit-burst}, {@code max-in-flight}, {@code on-expiry},
 * {@code group-rate-limit} and {@code group-max-in-flight}, and {@code @DelayHandler(rateLimit, maxInFlight,
 * groupRateLimit, groupMaxInFlight)}: mapped onto the engine's options, and a bad value fails startup
 * naming the property (without Redis: the options are only built).
 */
class FlowSettingsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1",
                    "delayqueue.scan-packages=" + OrderQueues.class.getPackageName())
            .withUserConfiguration(DelayQueueAutoConfigurationTests.ClassHandlerConfig.class);

    @Test
    void theQueuesLimitsReachItsConsumerAndNoneIsTheDefault() {
        this.runner.run(context -> {
            assertThat(options(context, "ORDER_TIMEOUT").rateLimit()).isNull();
            assertThat(options(context, "ORDER_TIMEOUT").maxInFlight()).isZero();
        });
        this.runner.withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.rate-limit=200/1s",
                "delayqueue.queues.ORDER_TIMEOUT.rate-limit-burst=20", "delayqueue.queues.ORDER_TIMEOUT.max-in-flight=5")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(options(context, "ORDER_TIMEOUT").rateLimit())
                            .isEqualTo(RateLimit.of(200, Duration.ofSeconds(1)).withBurst(20));
                    assertThat(options(context, "ORDER_TIMEOUT").maxInFlight()).isEqualTo(5);
                });
    }

    @Test
    void theHandlersAttributesReplaceTheQueuesAndTheBurstStillApplies() {
        this.runner.withUserConfiguration(LimitedHandlerConfig.class)
                .withPropertyValues("delayqueue.queues.REMINDER.rate-limit=1/1s",
                        "delayqueue.queues.REMINDER.rate-limit-burst=3", "delayqueue.queues.REMINDER.max-in-flight=9",
                        "reminder.rate=10/1m")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(options(context, "REMINDER").rateLimit())
                            .isEqualTo(RateLimit.of(10, Duration.ofMinutes(1)).withBurst(3));
                    assertThat(options(context, "REMINDER").maxInFlight()).isEqualTo(2);
                });
    }

    @Test
    void aBadRateLimitFailsStartupNamingThePropertyEvenForAQueueThisApplicationDoesNotConsume() {
        assertFails("delayqueue.queues.ORDER_TIMEOUT.rate-limit=0/1s",
                "delayqueue.queues.ORDER_TIMEOUT.rate-limit: rate limit '0/1s': permits must be at least 1");
        assertFails("delayqueue.queues.PRODUCER_ONLY.rate-limit=10/1w",
                "delayqueue.queues.PRODUCER_ONLY.rate-limit: rate limit '10/1w': unknown unit 'w'");
        assertFails("delayqueue.queues.ORDER_TIMEOUT.rate-limit=-1",
                "rate limit '-1' is not <permits>/<period>");
        assertFails("delayqueue.queues[orders.dotted].rate-limit=5/0s",
                "delayqueue.queues[orders.dotted].rate-limit: rate limit '5/0s': the period must be positive");
    }

    @Test
    void aBadMaxInFlightOrBurstFailsStartupNamingTheProperty() {
        assertFails("delayqueue.queues.ORDER_TIMEOUT.max-in-flight=-1",
                "delayqueue.queues.ORDER_TIMEOUT.max-in-flight is -1: it must be at least 1");
        assertFails("delayqueue.queues.ORDER_TIMEOUT.max-in-flight=0",
                "delayqueue.queues.ORDER_TIMEOUT.max-in-flight is 0: it must be at least 1");
        this.runner.withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.partitions=4",
                "delayqueue.queues.ORDER_TIMEOUT.max-in-flight=3").run(context -> assertThat(failure(context))
                .hasMessageContaining("max-in-flight is 3, below the queue's 4 partitions"));
        assertFails("delayqueue.queues.ORDER_TIMEOUT.rate-limit-burst=0",
                "delayqueue.queues.ORDER_TIMEOUT.rate-limit-burst: rate limit 1/1s: the burst must be between 1 and");
    }

    @Test
    void onExpiryIsDeadLetterByDefaultDropWhenSetAndABadValueFailsStartup() {
        this.runner.run(context -> assertThat(options(context, "ORDER_TIMEOUT").onExpiry()).isEqualTo(ExpiryAction.DEAD_LETTER));
        this.runner.withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.on-expiry=drop")
                .run(context -> assertThat(options(context, "ORDER_TIMEOUT").onExpiry()).isEqualTo(ExpiryAction.DROP));
        this.runner.withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.on-expiry=dead-letter")
                .run(context -> assertThat(options(context, "ORDER_TIMEOUT").onExpiry()).isEqualTo(ExpiryAction.DEAD_LETTER));
        this.runner.withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.on-expiry=discard")
                .run(context -> assertThat(context).hasFailed());
    }

    @Test
    void aBadAttributeFailsStartupNamingTheHandler() {
        this.runner.withUserConfiguration(LimitedHandlerConfig.class).withPropertyValues("reminder.rate=0/1s")
                .run(context -> assertThat(failure(context)).hasMessageContainingAll("@DelayHandler(rateLimit = "
                        + "\"${reminder.rate}\")", "permits must be at least 1"));
    }

    @Test
    void anAttributesMaxInFlightBelowThePartitionCountFailsStartupNamingTheHandler() {
        this.runner.withUserConfiguration(LimitedHandlerConfig.class)
                .withPropertyValues("reminder.rate=10/1s", "delayqueue.queues.REMINDER.partitions=3")
                .run(context -> assertThat(failure(context)).hasMessageContainingAll("Invalid consumer settings for "
                        + "queue 'REMINDER'", "maxInFlight 2 is below the queue's 3 partitions"));
    }

    @Test
    void theFailureAnalyzerReportsTheCulpritAndTheFix() {
        this.runner.withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.rate-limit=10/1x").run(context -> {
            FailureAnalysis analysis = new DelayQueueFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("delayqueue.queues.ORDER_TIMEOUT.rate-limit", "unknown unit 'x'");
            assertThat(analysis.getAction()).contains("<permits>/<period>", "200/1s");
        });
    }

    // ---- limits per group of messages (SendOptions.group; docs/guides/flow-control.md)

    @Test
    void theQueuesGroupLimitsReachItsConsumerAndNoneIsTheDefault() {
        this.runner.run(context -> {
            assertThat(options(context, "ORDER_TIMEOUT").groupRateLimit()).isNull();
            assertThat(options(context, "ORDER_TIMEOUT").groupMaxInFlight()).isZero();
        });
        this.runner.withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.group-rate-limit=20/1s",
                "delayqueue.queues.ORDER_TIMEOUT.group-max-in-flight=2").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(options(context, "ORDER_TIMEOUT").groupRateLimit()).isEqualTo(RateLimit.parse("20/1s"));
                    assertThat(options(context, "ORDER_TIMEOUT").groupMaxInFlight()).isEqualTo(2);
                    assertThat(options(context, "ORDER_TIMEOUT").rateLimit()).isNull();
                });
    }

    @Test
    void theHandlersAttributesReplaceTheQueuesGroupLimits() {
        this.runner.withUserConfiguration(GroupHandlerConfig.class)
                .withPropertyValues("delayqueue.queues.REMINDER.group-rate-limit=1/1s",
                        "delayqueue.queues.REMINDER.group-max-in-flight=9", "reminder.group-rate=10/1m")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(options(context, "REMINDER").groupRateLimit()).isEqualTo(RateLimit.parse("10/1m"));
                    assertThat(options(context, "REMINDER").groupMaxInFlight()).isEqualTo(3);
                });
    }

    @Test
    void aBadGroupLimitFailsStartupNamingThePropertyEvenForAQueueThisApplicationDoesNotConsume() {
        assertFails("delayqueue.queues.ORDER_TIMEOUT.group-rate-limit=0/1s",
                "delayqueue.queues.ORDER_TIMEOUT.group-rate-limit: rate limit '0/1s': permits must be at least 1");
        assertFails("delayqueue.queues.PRODUCER_ONLY.group-rate-limit=10/1w",
                "delayqueue.queues.PRODUCER_ONLY.group-rate-limit: rate limit '10/1w': unknown unit 'w'");
        assertFails("delayqueue.queues.ORDER_TIMEOUT.group-rate-limit=-1", "rate limit '-1' is not <permits>/<period>");
        assertFails("delayqueue.queues.ORDER_TIMEOUT.group-max-in-flight=-1",
                "delayqueue.queues.ORDER_TIMEOUT.group-max-in-flight is -1: it must be at least 1");
        assertFails("delayqueue.queues.ORDER_TIMEOUT.group-max-in-flight=0",
                "delayqueue.queues.ORDER_TIMEOUT.group-max-in-flight is 0: it must be at least 1");
        this.runner.withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.partitions=4",
                "delayqueue.queues.ORDER_TIMEOUT.group-max-in-flight=3").run(context -> assertThat(failure(context))
                .hasMessageContaining("group-max-in-flight is 3, below the queue's 4 partitions"));
    }

    @Test
    void aBadGroupAttributeFailsStartupNamingTheHandler() {
        this.runner.withUserConfiguration(GroupHandlerConfig.class).withPropertyValues("reminder.group-rate=0/1s")
                .run(context -> assertThat(failure(context)).hasMessageContainingAll("@DelayHandler(groupRateLimit = "
                        + "\"${reminder.group-rate}\")", "permits must be at least 1"));
    }

    static class GroupHandlers {
        @DelayHandler(value = "REMINDER", groupRateLimit = "${reminder.group-rate}", groupMaxInFlight = "3")
        void remind(MessageContext context, String text) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class GroupHandlerConfig {
        @Bean
        GroupHandlers groupHandlers() {
            return new GroupHandlers();
        }
    }

    private void assertFails(String property, String message) {
        this.runner.withPropertyValues(property).run(context -> assertThat(failure(context)).hasMessageContaining(message));
    }

    static class LimitedHandlers {
        @DelayHandler(value = "REMINDER", rateLimit = "${reminder.rate}", maxInFlight = "2")
        void remind(MessageContext context, String text) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class LimitedHandlerConfig {
        @Bean
        LimitedHandlers limitedHandlers() {
            return new LimitedHandlers();
        }
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
