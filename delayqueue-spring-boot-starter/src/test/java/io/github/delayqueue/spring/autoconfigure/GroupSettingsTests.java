package io.github.delayqueue.spring.autoconfigure;

import static io.github.delayqueue.spring.autoconfigure.FlowSettingsTests.failure;
import static io.github.delayqueue.spring.autoconfigure.FlowSettingsTests.options;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code delayqueue.queues.<code>.group-rate-limit} and {@code group-max-in-flight}, and
 * {@code @DelayHandler(groupRateLimit, groupMaxInFlight)}: mapped onto the engine's options, and a bad value fails
 * startup naming the property (without Redis: the options are only built).
 */
class GroupSettingsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1",
                    "delayqueue.scan-packages=" + OrderQueues.class.getPackageName())
            .withUserConfiguration(DelayQueueAutoConfigurationTests.ClassHandlerConfig.class);

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
    void aBadAttributeFailsStartupNamingTheHandler() {
        this.runner.withUserConfiguration(GroupHandlerConfig.class).withPropertyValues("reminder.group-rate=0/1s")
                .run(context -> assertThat(failure(context)).hasMessageContainingAll("@DelayHandler(groupRateLimit = "
                        + "\"${reminder.group-rate}\")", "permits must be at least 1"));
    }

    private void assertFails(String property, String message) {
        this.runner.withPropertyValues(property).run(context -> assertThat(failure(context)).hasMessageContaining(message));
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
}
