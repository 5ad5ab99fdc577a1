package io.github.delayqueue.spring.batch;

import java.util.List;

import io.github.delayqueue.core.BatchItem;
import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import io.github.delayqueue.spring.consumer.DefaultDelayQueueConsumerRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/** Batch handler declarations and batch settings, checked at startup (no Redis needed: they fail before any). */
class BatchHandlerConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1",
                    "delayqueue.scan-packages=" + OrderQueues.class.getPackageName());

    @Test
    void aBatchMethodBecomesABatchEndpointWithTheQueuesBatchSize() {
        this.runner.withUserConfiguration(BatchConfig.class).withPropertyValues("delayqueue.queues.REMINDER.batch-size=7",
                "delayqueue.queues.REMINDER.batch-wait=1s").run(context -> {
                    assertThat(context).hasNotFailed();
                    DefaultDelayQueueConsumerRegistry.Definition d = context.getBean(DefaultDelayQueueConsumerRegistry.class)
                            .definitions().get(0);
                    assertThat(d.endpoint().batchHandler()).isNotNull();
                    assertThat(d.endpoint().payloadType()).isEqualTo(String.class);
                    assertThat(d.options().batchSize()).isEqualTo(7);
                });
    }

    @Test
    void badBatchSettingsFailStartup() {
        assertUnusable(this.runner.withUserConfiguration(BatchConfig.class)
                .withPropertyValues("delayqueue.queues.REMINDER.batch-wait=-1s"), "batch wait");
        assertUnusable(this.runner.withUserConfiguration(BatchConfig.class)
                .withPropertyValues("delayqueue.queues.REMINDER.batch-wait=11s"), "batch wait");
        assertUnusable(this.runner.withUserConfiguration(BatchConfig.class)
                .withPropertyValues("delayqueue.queues.REMINDER.batch-wait=9s",
                        "delayqueue.queues.REMINDER.visibility-timeout=10s"), "half the visibility timeout");
        assertUnusable(this.runner.withUserConfiguration(BatchConfig.class)
                .withPropertyValues("delayqueue.queues.REMINDER.batch-size=0"), "batchSize");
    }

    @Test
    void badBatchDeclarationsFailStartup() {
        assertUnusable(this.runner.withUserConfiguration(NotAListConfig.class), "does not take List<BatchItem<PayloadType>>");
        assertUnusable(this.runner.withUserConfiguration(MaybeConfig.class), "is neither true nor false");
    }

    private static void assertUnusable(ApplicationContextRunner runner, String fragment) {
        runner.run(context -> assertThat(configFailure(context).getMessage()).contains(fragment));
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

    static class BatchHandlers {
        @DelayHandler(value = "REMINDER", batch = "true")
        void remind(List<BatchItem<String>> items) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BatchConfig {
        @Bean
        BatchHandlers batchHandlers() {
            return new BatchHandlers();
        }
    }

    static class NotAList {
        @DelayHandler(value = "REMINDER", batch = "true")
        void remind(List<String> texts) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NotAListConfig {
        @Bean
        NotAList notAList() {
            return new NotAList();
        }
    }

    static class Maybe {
        @DelayHandler(value = "REMINDER", batch = "maybe")
        void remind(List<BatchItem<String>> items) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MaybeConfig {
        @Bean
        Maybe maybe() {
            return new Maybe();
        }
    }

}
