package io.github.delayqueue.spring.autoconfigure;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;

import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.autoconfigure.DelayQueueProperties.ConsumerSettings;
import io.github.delayqueue.spring.autoconfigure.DelayQueueProperties.Queue;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import io.github.delayqueue.spring.consumer.DefaultDelayQueueConsumerRegistry;
import io.github.delayqueue.spring.core.HandlerOverrides;
import io.github.delayqueue.spring.core.QueueCatalog;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one settings type of both levels and its merge, the one matcher of {@code delayqueue.queues} keys, and
 * {@code retry.no-retry-for}; without Redis (the consumer options are only built, never run).
 */
class QueueSettingsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1",
                    "delayqueue.scan-packages=" + OrderQueues.class.getPackageName());

    // ---- one settings type, first set wins --------------------------------------------------------

    @Test
    void aQueuesSettingsStartUnsetAndTheGlobalOnesAtTheDefaults() {
        assertThat(unsetSettings(new Queue())).hasSize(settingCount());
        assertThat(unsetSettings(new DelayQueueProperties().getConsumer())).isEmpty();
    }

    @Test
    void sharedIdlePollingIsOnByDefaultAndThePropertyTurnsItOffForEveryClient() {
        DelayQueueProperties properties = new DelayQueueProperties();
        QueueSettings settings = new QueueSettings(properties, Set.of("ORDER_PAYMENT_TIMEOUT"));
        io.github.delayqueue.core.JacksonPayloadCodec codec = new io.github.delayqueue.core.JacksonPayloadCodec();
        assertThat(settings.clientOptions(settings.clientKey("ORDER_PAYMENT_TIMEOUT"), codec).sharedIdlePolling()).isTrue();
        properties.setSharedIdlePolling(false);
        assertThat(settings.clientOptions(settings.clientKey("ORDER_PAYMENT_TIMEOUT"), codec).sharedIdlePolling()).isFalse();
    }

    @Test
    void activityCountsAreOnByDefaultAndThePropertyTurnsThemOffForEveryClient() {
        DelayQueueProperties properties = new DelayQueueProperties();
        QueueSettings settings = new QueueSettings(properties, Set.of("ORDER_PAYMENT_TIMEOUT"));
        io.github.delayqueue.core.JacksonPayloadCodec codec = new io.github.delayqueue.core.JacksonPayloadCodec();
        assertThat(settings.clientOptions(settings.clientKey("ORDER_PAYMENT_TIMEOUT"), codec).activity()).isTrue();
        properties.getActivity().setEnabled(false);
        assertThat(settings.clientOptions(settings.clientKey("ORDER_PAYMENT_TIMEOUT"), codec).activity()).isFalse();
    }

    @Test
    void mergingTakesTheFirstSetValuePerSettingDescendingIntoGroupsThenTheDefaults() {
        Queue queue = new Queue();
        queue.setBatchSize(7);
        queue.getRetry().setJitter(0.0);
        DelayQueueProperties.Consumer global = new DelayQueueProperties.Consumer();
        global.setBatchSize(9);
        global.setConcurrency(3);
        global.getRetry().setJitter(0.5);
        global.getDeadLetter().setMaxCount(null); // unset at both levels: the default

        ConsumerSettings merged = ConsumerSettings.firstSet(queue, global);

        assertThat(unsetSettings(merged)).isEmpty();
        assertThat(merged.getBatchSize()).isEqualTo(7);
        assertThat(merged.getConcurrency()).isEqualTo(3);
        assertThat(merged.getRetry().getJitter()).isEqualTo(0.0);
        assertThat(merged.getRetry().getMaxAttempts()).isEqualTo(5);
        assertThat(merged.getDeadLetter().getMaxCount()).isEqualTo(100_000);
        assertThat(queue.getConcurrency()).as("the levels are left as they were").isNull();
    }

    // ---- one key matcher --------------------------------------------------------------------------

    @Test
    void keysMatchExactlyThenRelaxedlyButNeverThroughAnotherQueuesExactCode() {
        DelayQueueProperties properties = new DelayQueueProperties();
        properties.getQueues().put("ordertimeout", new Queue());
        properties.getQueues().put("ORDER_TIMEOUT", new Queue());
        properties.getQueues().put("orders.dotted", new Queue());
        properties.getQueues().put("nosuchqueue", new Queue());
        QueueSettings settings = new QueueSettings(properties, Set.of("ORDER_TIMEOUT", "order-timeout",
                "Orders.Dotted", "REMINDER"));

        assertThat(settings.key("ORDER_TIMEOUT")).isEqualTo("ORDER_TIMEOUT");
        assertThat(settings.key("order-timeout")).isEqualTo("ordertimeout");
        assertThat(settings.key("Orders.Dotted")).isEqualTo("orders.dotted");
        assertThat(settings.key("REMINDER")).isNull();
        assertThat(settings.unmatchedKeys()).containsExactly("nosuchqueue");
    }

    @Test
    void aKeyShadowedByAnotherMatchOfTheSameQueueIsReportedAsUnmatched() {
        DelayQueueProperties properties = new DelayQueueProperties();
        properties.getQueues().put("ORDER_TIMEOUT", new Queue());
        properties.getQueues().put("ordertimeout", new Queue());
        QueueSettings settings = new QueueSettings(properties, Set.of("ORDER_TIMEOUT"));

        assertThat(settings.key("ORDER_TIMEOUT")).isEqualTo("ORDER_TIMEOUT");
        assertThat(settings.unmatchedKeys()).containsExactly("ordertimeout");
    }

    // ---- no-retry-for -----------------------------------------------------------------------------

    @Test
    void noRetryForIsEmptyByDefault() {
        this.runner.withUserConfiguration(DelayQueueAutoConfigurationTests.ClassHandlerConfig.class).run(context -> assertThat(
                options(context, "ORDER_TIMEOUT").noRetryFor()).isEmpty());
    }

    @Test
    void noRetryForOfTheQueueReplacesTheGlobalListAndTheAnnotationAddsToIt() {
        this.runner.withUserConfiguration(DelayQueueAutoConfigurationTests.ClassHandlerConfig.class, ReminderHandlerConfig.class).withPropertyValues(
                "delayqueue.consumer.retry.no-retry-for=java.lang.IllegalArgumentException,"
                        + "io.github.delayqueue.spring.autoconfigure.QueueSettingsTests$Rejected",
                "delayqueue.queues.ORDER_TIMEOUT.retry.no-retry-for=java.lang.UnsupportedOperationException",
                "delayqueue.queues[orders.dotted].retry.no-retry-for=java.io.UncheckedIOException")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(options(context, "ORDER_TIMEOUT").noRetryFor())
                            .containsExactly(UnsupportedOperationException.class);
                    assertThat(options(context, "REMINDER").noRetryFor()).containsExactlyInAnyOrder(
                            IllegalArgumentException.class, Rejected.class, CancellationException.class);
                    assertThat(context.getBean(QueueCatalog.class).settings()
                            .consumerOptions("orders.dotted", HandlerOverrides.NONE).noRetryFor())
                            .containsExactly(java.io.UncheckedIOException.class);
                });
    }

    @Test
    void aClassNameThatDoesNotExistFailsStartupNamingThePropertyAndTheValue() {
        this.runner.withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.retry.no-retry-for=com.example.NoSuchException")
                .run(context -> assertThat(configFailure(context)).hasMessageContainingAll(
                        "delayqueue.queues.ORDER_TIMEOUT.retry.no-retry-for", "'com.example.NoSuchException'",
                        "not a class"));
        this.runner.withPropertyValues("delayqueue.queues[orders.dotted].retry.no-retry-for=Nope")
                .run(context -> assertThat(configFailure(context)).hasMessageContaining(
                        "delayqueue.queues[orders.dotted].retry.no-retry-for names 'Nope'"));
    }

    @Test
    void aClassThatIsNotAThrowableFailsStartupNamingThePropertyAndTheValue() {
        this.runner.withPropertyValues("delayqueue.consumer.retry.no-retry-for=java.lang.String").run(
                context -> assertThat(configFailure(context)).hasMessageContainingAll(
                        "delayqueue.consumer.retry.no-retry-for", "'java.lang.String'", "not a Throwable"));
    }

    @Test
    void theFailureAnalyzerTurnsABadNameIntoAnActionableReport() {
        this.runner.withPropertyValues("delayqueue.consumer.retry.no-retry-for=com.example.Missing")
                .run(context -> assertThat(((DelayQueueConfigurationException) configFailure(context)).action())
                        .contains("fully qualified"));
    }

    static class Rejected extends RuntimeException {
    }

    static class ReminderHandlers {
        @DelayHandler(value = "REMINDER", noRetryFor = CancellationException.class)
        void remind(MessageContext context, String text) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ReminderHandlerConfig {
        @Bean
        ReminderHandlers reminderHandlers() {
            return new ReminderHandlers();
        }
    }

    private static ConsumerOptions options(AssertableApplicationContext context, String code) {
        return context.getBean(DefaultDelayQueueConsumerRegistry.class).definitions().stream()
                .filter(d -> d.queue().name().equals(code)).findFirst().orElseThrow().options();
    }

    private static Throwable configFailure(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        Throwable failure = context.getStartupFailure();
        while (!(failure instanceof DelayQueueConfigurationException) && failure.getCause() != null) {
            failure = failure.getCause();
        }
        assertThat(failure).isInstanceOf(DelayQueueConfigurationException.class);
        return failure;
    }

    /** Leaf settings of {@link ConsumerSettings} (nested groups descended into) that are null in {@code settings}. */
    private static List<String> unsetSettings(ConsumerSettings settings) {
        List<String> unset = new java.util.ArrayList<>();
        collect(ConsumerSettings.class, settings, "", unset, false);
        return unset;
    }

    private static int settingCount() {
        List<String> all = new java.util.ArrayList<>();
        collect(ConsumerSettings.class, new ConsumerSettings(), "", all, true);
        return all.size();
    }

    private static void collect(Class<?> type, Object target, String prefix, List<String> into, boolean all) {
        for (Field field : type.getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers())) {
                continue;
            }
            field.setAccessible(true);
            try {
                Object value = field.get(target);
                if (Modifier.isFinal(field.getModifiers())) {
                    collect(field.getType(), value, prefix + field.getName() + ".", into, all);
                } else if (all || value == null) {
                    into.add(prefix + field.getName());
                }
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
