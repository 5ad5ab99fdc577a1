package io.github.delayqueue.spring.autoconfigure;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DeliveryErrorHandler;
import io.github.delayqueue.core.DeliveryInterceptor;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.PayloadCodec;
import io.github.delayqueue.core.RetryPolicy;
import io.github.delayqueue.spring.ContextAwareDelayMessageHandler;
import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayMessageHandler;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.DelayQueueConsumerRegistry;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderTimeout;
import io.github.delayqueue.spring.consumer.ConsumerStarter;
import io.github.delayqueue.spring.consumer.DefaultDelayQueueConsumerRegistry;
import io.github.delayqueue.spring.core.DefaultDelayQueueTemplate;
import io.github.delayqueue.spring.core.HandlerOverrides;
import io.github.delayqueue.spring.core.QueueCatalog;
import io.github.delayqueue.spring.core.QueueConsumerSettings;
import io.github.delayqueue.spring.core.TransactionAwareDelayQueueTemplate;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.boot.DefaultApplicationArguments;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.mockito.Mockito.mock;

/**
 * The auto-configuration without Redis: the client it builds is lazy, and consumers only start when
 * the application runs, which an {@link ApplicationContextRunner} never does.
 */
class DelayQueueAutoConfigurationTests {

    private static final String ORDERS = "delayqueue.scan-packages=" + OrderQueues.class.getPackageName();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1", ORDERS);

    // ---- beans and backing off ----------------------------------------------------------------

    @Test
    void providesTemplateAdminRegistryClientAndCodec() {
        this.runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(DelayQueueTemplate.class)
                    .hasSingleBean(DelayQueueAdmin.class).hasSingleBean(DelayQueueConsumerRegistry.class)
                    .hasSingleBean(RedissonClient.class).hasSingleBean(PayloadCodec.class)
                    .hasBean("delayQueueRedissonClient");
            assertThat(context.getBean(DelayQueueAdmin.class).codes()).containsExactly(OrderQueues.ORDER_TIMEOUT,
                    OrderQueues.PRODUCER_ONLY, OrderQueues.REMINDER, OrderQueues.DOTTED);
            assertThat(context.getBean(DelayQueueAdmin.class).find("orders.dotted")).contains(OrderQueues.DOTTED);
        });
    }

    @Test
    void backsOffForApplicationRedissonClient() {
        RedissonClient own = mock(RedissonClient.class);
        this.runner.withBean("redisson", RedissonClient.class, () -> own).run(context -> {
            assertThat(context).hasSingleBean(RedissonClient.class).doesNotHaveBean("delayQueueRedissonClient");
            assertThat(context.getBean(RedissonClient.class)).isSameAs(own);
        });
    }

    @Test
    void backsOffForApplicationTemplate() {
        DelayQueueTemplate own = mock(DelayQueueTemplate.class);
        this.runner.withBean(DelayQueueTemplate.class, () -> own)
                .run(context -> assertThat(context).getBean(DelayQueueTemplate.class).isSameAs(own));
    }

    @Test
    void backsOffForApplicationAdmin() {
        DelayQueueAdmin own = mock(DelayQueueAdmin.class);
        this.runner.withBean(DelayQueueAdmin.class, () -> own)
                .run(context -> assertThat(context).getBean(DelayQueueAdmin.class).isSameAs(own));
    }

    @Test
    void backsOffForApplicationCodecAndUsesIt() {
        PayloadCodec own = new PayloadCodec() {
            @Override
            public String encode(Object payload) {
                return "\"own\"";
            }

            @Override
            public Object decode(String json, Type type) {
                return json;
            }
        };
        this.runner.withBean(PayloadCodec.class, () -> own).run(context -> {
            assertThat(context).getBean(PayloadCodec.class).isSameAs(own);
            assertThat(context.getBean(QueueCatalog.class).codec()).isSameAs(own);
        });
    }

    @Test
    void codecUsesTheApplicationsJsonMapper() {
        JsonMapper mapper = JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build();
        this.runner.withBean(JsonMapper.class, () -> mapper).run(context -> assertThat(
                context.getBean(PayloadCodec.class).encode(new OrderTimeout("42", 100))).contains("\"order_id\""));
    }

    @Test
    void theTransactionAwareTemplateNeedsSpringTxAndTheProperty() {
        this.runner.run(context -> assertThat(context).getBean(DelayQueueTemplate.class)
                .isExactlyInstanceOf(TransactionAwareDelayQueueTemplate.class));
        this.runner.withClassLoader(new FilteredClassLoader(TransactionSynchronizationManager.class)).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).getBean(DelayQueueTemplate.class).isExactlyInstanceOf(DefaultDelayQueueTemplate.class);
        });
        this.runner.withPropertyValues("delayqueue.producer.transaction-aware=false").run(context -> assertThat(context)
                .getBean(DelayQueueTemplate.class).isExactlyInstanceOf(DefaultDelayQueueTemplate.class));
    }

    @Test
    void withoutSpringTxTheTemplateSendsToRedis() {
        String prefix = TestRedis.uniquePrefix();
        this.runner.withClassLoader(new FilteredClassLoader("org.springframework.transaction"))
                .withPropertyValues("spring.data.redis.url=" + TestRedis.url(), "delayqueue.key-prefix=" + prefix)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
                    assertThat(template).isExactlyInstanceOf(DefaultDelayQueueTemplate.class);
                    String id = template.send(OrderQueues.REMINDER, "hello", Duration.ofHours(1));
                    assertThat(context.getBean(DelayQueueAdmin.class).stats(OrderQueues.REMINDER).pending())
                            .isEqualTo(1);
                    assertThat(template.cancel(OrderQueues.REMINDER, id)).isTrue();
                });
    }

    @Test
    void findsCodesInTheAutoConfigurationPackages() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1")
                .withUserConfiguration(io.github.delayqueue.spring.autoconfigure.fixtures.orders.PackageMarker.class)
                .run(context -> assertThat(context.getBean(DelayQueueAdmin.class).codes()).hasSize(4));
    }

    // ---- properties -----------------------------------------------------------------------------

    @Test
    void theDefaultShutdownTimeoutAndTheTimeToAcknowledgeFitInBootsDefaultShutdownPhase() {
        Duration phase = new org.springframework.boot.autoconfigure.context.LifecycleProperties().getTimeoutPerShutdownPhase();
        Duration ours = new DelayQueueProperties().getConsumer().getShutdownTimeout();
        assertThat(ours.plus(DefaultDelayQueueConsumerRegistry.SETTLE_GRACE)).isLessThanOrEqualTo(phase);
    }

    @Test
    void defaultsEqualTheEngineDefaults() {
        this.runner.withUserConfiguration(ClassHandlerConfig.class).run(context -> {
            DelayQueueProperties properties = context.getBean(DelayQueueProperties.class);
            ClientOptions engine = ClientOptions.builder().build();
            assertThat(properties.getKeyPrefix()).isEqualTo(engine.keyPrefix());
            assertThat(properties.getProducer().getMaxPayloadSize().toBytes()).isEqualTo(engine.maxPayloadBytes());
            assertThat(properties.getProducer().getMaxBatchSize()).isEqualTo(engine.maxBatchSize());
            // not the engine's (0): issue 31 item 9, see docs/operations/scaling.md
            assertThat(properties.getProducer().getWaitForReplicas()).isEqualTo(1);
            assertThat(properties.getProducer().getWaitForReplicasTimeout()).isEqualTo(Duration.ofMillis(250));
            assertThat(properties.getProducer().isWaitForReplicasRequired()).isFalse();
            ConsumerOptions resolved = consumerOptions(context, "ORDER_TIMEOUT");
            assertSameOptions(resolved, ConsumerOptions.DEFAULTS);
            assertThat(resolved.retry()).isEqualTo(RetryPolicy.DEFAULT);
            DelayQueueClient client = context.getBean(QueueCatalog.class).find("ORDER_TIMEOUT").orElseThrow().client();
            assertThat(client.options().keyPrefix()).isEqualTo("dq");
            assertThat(client.options().maxPayloadBytes()).isEqualTo(engine.maxPayloadBytes());
            assertThat(client.options().waitForReplicas()).isEqualTo(1);
            assertThat(client.options().replicaTimeout()).isEqualTo(Duration.ofMillis(250));
            assertThat(client.options().replicasRequired()).isFalse();
        });
    }

    @Test
    void globalPropertiesApplyToEveryQueue() {
        this.runner.withUserConfiguration(ClassHandlerConfig.class).withPropertyValues(
                "delayqueue.key-prefix=app", "delayqueue.producer.max-payload-size=64KB",
                "delayqueue.producer.max-batch-size=50", "delayqueue.producer.wait-for-replicas=1",
                "delayqueue.producer.wait-for-replicas-timeout=250ms", "delayqueue.producer.wait-for-replicas-required=true",
                "delayqueue.consumer.concurrency=3",
                "delayqueue.consumer.batch-size=7", "delayqueue.consumer.visibility-timeout=10s",
                "delayqueue.consumer.handler-timeout=1m", "delayqueue.consumer.max-poll-interval=500ms",
                "delayqueue.consumer.shutdown-timeout=5s", "delayqueue.consumer.retry.max-attempts=9",
                "delayqueue.consumer.retry.initial-backoff=2s", "delayqueue.consumer.retry.multiplier=3",
                "delayqueue.consumer.retry.max-backoff=1h", "delayqueue.consumer.retry.jitter=0",
                "delayqueue.consumer.dead-letter.retention=3d", "delayqueue.consumer.dead-letter.max-count=500")
                .run(context -> {
                    ConsumerOptions o = consumerOptions(context, "ORDER_TIMEOUT");
                    assertThat(o.concurrency()).isEqualTo(3);
                    assertThat(o.batchSize()).isEqualTo(7);
                    assertThat(o.visibilityTimeout()).isEqualTo(Duration.ofSeconds(10));
                    assertThat(o.handlerTimeout()).isEqualTo(Duration.ofMinutes(1));
                    assertThat(o.maxPollInterval()).isEqualTo(Duration.ofMillis(500));
                    assertThat(o.shutdownTimeout()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(o.retry()).isEqualTo(new RetryPolicy(9, Duration.ofSeconds(2), 3, Duration.ofHours(1), 0));
                    assertThat(o.deadLetterRetention()).isEqualTo(Duration.ofDays(3));
                    assertThat(o.deadLetterMaxCount()).isEqualTo(500);
                    ClientOptions client = context.getBean(QueueCatalog.class).find("REMINDER").orElseThrow().client()
                            .options();
                    assertThat(client.keyPrefix()).isEqualTo("app");
                    assertThat(client.maxPayloadBytes()).isEqualTo(64 * 1024);
                    assertThat(client.maxBatchSize()).isEqualTo(50);
                    assertThat(client.waitForReplicas()).isEqualTo(1);
                    assertThat(client.replicaTimeout()).isEqualTo(Duration.ofMillis(250));
                    assertThat(client.replicasRequired()).isTrue();
                });
    }

    @Test
    void aQueueCanBePartitionedAndABadCountFailsTheStartup() {
        this.runner.withUserConfiguration(ClassHandlerConfig.class)
                .withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.partitions=4")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ClientOptions client = context.getBean(QueueCatalog.class).find("ORDER_TIMEOUT").orElseThrow().client()
                            .options();
                    assertThat(client.partitions("ORDER_TIMEOUT")).isEqualTo(4);
                    assertThat(client.partitions("REMINDER")).isEqualTo(1);
                });
        for (String bad : new String[] {"0", "65", "-1"}) {
            this.runner.withUserConfiguration(ClassHandlerConfig.class)
                    .withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.partitions=" + bad)
                    .run(context -> assertThat(configFailure(context)).hasMessageContaining("Queue 'ORDER_TIMEOUT'")
                            .hasMessageContaining("partitions of queue 'ORDER_TIMEOUT' must be between 1 and 64, was " + bad));
        }
    }

    @Test
    void failsForProducerSettingsTheEngineRejects() {
        this.runner.withUserConfiguration(ClassHandlerConfig.class)
                .withPropertyValues("delayqueue.producer.wait-for-replicas=-1")
                .run(context -> assertThat(configFailure(context)).hasMessageContaining("Invalid producer settings")
                        .hasMessageContaining("waitForReplicas must be between 0 and 100, was -1"));
        this.runner.withUserConfiguration(ClassHandlerConfig.class)
                .withPropertyValues("delayqueue.producer.wait-for-replicas=1",
                        "delayqueue.producer.wait-for-replicas-timeout=0s")
                .run(context -> assertThat(configFailure(context)).hasMessageContaining("Invalid producer settings")
                        .hasMessageContaining("timeout must be between 1 ms and PT1M, was PT0S"));
    }

    @Test
    void perQueuePropertiesOverrideGlobalOnesAndHandlerAttributesOverrideBoth() {
        this.runner.withUserConfiguration(ClassHandlerConfig.class, MethodHandlerConfig.class).withPropertyValues(
                "delayqueue.consumer.concurrency=3", "delayqueue.consumer.retry.max-attempts=9",
                "delayqueue.queues.ORDER_TIMEOUT.concurrency=5", "delayqueue.queues.ORDER_TIMEOUT.batch-size=11",
                "delayqueue.queues.ORDER_TIMEOUT.visibility-timeout=7s",
                "delayqueue.queues.ORDER_TIMEOUT.handler-timeout=70s",
                "delayqueue.queues.ORDER_TIMEOUT.max-poll-interval=300ms",
                "delayqueue.queues.ORDER_TIMEOUT.shutdown-timeout=3s",
                "delayqueue.queues.ORDER_TIMEOUT.retry.max-attempts=2",
                "delayqueue.queues.ORDER_TIMEOUT.retry.initial-backoff=100ms",
                "delayqueue.queues.ORDER_TIMEOUT.retry.multiplier=1.5",
                "delayqueue.queues.ORDER_TIMEOUT.retry.max-backoff=10s",
                "delayqueue.queues.ORDER_TIMEOUT.retry.jitter=0.5",
                "delayqueue.queues.ORDER_TIMEOUT.dead-letter.retention=1h",
                "delayqueue.queues.ORDER_TIMEOUT.dead-letter.max-count=10",
                "delayqueue.queues.ORDER_TIMEOUT.key-prefix=orders",
                "delayqueue.queues.ORDER_TIMEOUT.max-payload-size=2KB",
                "delayqueue.queues.REMINDER.concurrency=8", "delayqueue.queues.REMINDER.retry.max-attempts=4",
                "delayqueue.queues[orders.dotted].batch-size=42", "reminder.attempts=6")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ConsumerOptions order = definition(context, "ORDER_TIMEOUT").options();
                    assertThat(order.concurrency()).isEqualTo(5);
                    assertThat(order.batchSize()).isEqualTo(11);
                    assertThat(order.visibilityTimeout()).isEqualTo(Duration.ofSeconds(7));
                    assertThat(order.handlerTimeout()).isEqualTo(Duration.ofSeconds(70));
                    assertThat(order.maxPollInterval()).isEqualTo(Duration.ofMillis(300));
                    assertThat(order.shutdownTimeout()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(order.retry()).isEqualTo(
                            new RetryPolicy(2, Duration.ofMillis(100), 1.5, Duration.ofSeconds(10), 0.5));
                    assertThat(order.deadLetterRetention()).isEqualTo(Duration.ofHours(1));
                    assertThat(order.deadLetterMaxCount()).isEqualTo(10);
                    // the handler method sets concurrency = 2, maxAttempts = ${reminder.attempts}, visibilityTimeout = 45s
                    ConsumerOptions reminder = definition(context, "REMINDER").options();
                    assertThat(reminder.concurrency()).isEqualTo(2);
                    assertThat(reminder.retry().maxAttempts()).isEqualTo(6);
                    assertThat(reminder.visibilityTimeout()).isEqualTo(Duration.ofSeconds(45));
                    assertThat(reminder.handlerTimeout()).isEqualTo(ConsumerOptions.DEFAULTS.handlerTimeout());
                    QueueCatalog catalog = context.getBean(QueueCatalog.class);
                    assertThat(catalog.settings().consumerOptions("orders.dotted", HandlerOverrides.NONE).batchSize())
                            .isEqualTo(42);
                    ClientOptions orderClient = catalog.find("ORDER_TIMEOUT").orElseThrow().client().options();
                    assertThat(orderClient.keyPrefix()).isEqualTo("orders");
                    assertThat(orderClient.maxPayloadBytes()).isEqualTo(2048);
                    // queues without client overrides share one client
                    assertThat(catalog.find("REMINDER").orElseThrow().client())
                            .isSameAs(catalog.find("PRODUCER_ONLY").orElseThrow().client())
                            .isNotSameAs(catalog.find("ORDER_TIMEOUT").orElseThrow().client());
                });
    }

    @Test
    void perQueueKeysMatchRelaxedlyAsFromEnvironmentVariables() {
        this.runner.withPropertyValues("delayqueue.queues.ordertimeout.concurrency=4").run(context -> assertThat(
                context.getBean(QueueCatalog.class).settings().consumerOptions("ORDER_TIMEOUT", HandlerOverrides.NONE)
                        .concurrency()).isEqualTo(4));
    }

    @Test
    void aKeyThatIsOneQueuesCodeIsNotAppliedToAnotherQueueThatMatchesItRelaxedly() {
        this.runner.withPropertyValues(ORDERS + ",io.github.delayqueue.spring.autoconfigure.fixtures.clash",
                "delayqueue.queues.ORDER_TIMEOUT.concurrency=4").run(context -> {
                    QueueConsumerSettings settings = context.getBean(QueueCatalog.class).settings();
                    assertThat(settings.consumerOptions("ORDER_TIMEOUT", HandlerOverrides.NONE).concurrency()).isEqualTo(4);
                    assertThat(settings.consumerOptions("order-timeout", HandlerOverrides.NONE).concurrency())
                            .isEqualTo(ConsumerOptions.DEFAULTS.concurrency());
                });
    }

    // ---- consumers --------------------------------------------------------------------------------

    @Test
    void consumersStartWhenTheApplicationIsReadyNotAtRefresh() {
        this.runner.withUserConfiguration(ClassHandlerConfig.class).run(context -> {
            DelayQueueConsumerRegistry registry = context.getBean(DelayQueueConsumerRegistry.class);
            assertThat(registry.isRunning()).isFalse();
            assertThat(registry.consumers()).isEmpty();
            assertThat(context.getBean(DefaultDelayQueueConsumerRegistry.class).definitions())
                    .extracting(d -> d.queue().name()).containsExactly("ORDER_TIMEOUT");
        });
    }

    @Test
    void producerOnlyApplicationStartsNoConsumers() {
        this.runner.withUserConfiguration(ClassHandlerConfig.class, MethodHandlerConfig.class)
                .withPropertyValues("delayqueue.consumer.enabled=false", "reminder.attempts=3").run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(ConsumerStarter.class).run(new DefaultApplicationArguments());
                    DelayQueueConsumerRegistry registry = context.getBean(DelayQueueConsumerRegistry.class);
                    assertThat(registry.consumers()).isEmpty();
                    assertThat(registry.consumer(OrderQueues.ORDER_TIMEOUT)).isEmpty();
                });
    }

    @Test
    void aQueueCanBeExcludedFromConsumption() {
        this.runner.withUserConfiguration(ClassHandlerConfig.class)
                .withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.consumer-enabled=false")
                .run(context -> assertThat(definition(context, "ORDER_TIMEOUT").enabled()).isFalse());
    }

    @Test
    void handlersAreFoundThroughProxies() {
        this.runner.withUserConfiguration(ProxiedHandlersConfig.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(definition(context, "ORDER_TIMEOUT").endpoint().source()).contains(OrderHandler.class.getName());
            assertThat(definition(context, "REMINDER").endpoint().payloadType()).isEqualTo(String.class);
        });
    }

    @Test
    void handlerBeansAreCreatedUnderLazyInitialization() {
        // spring.main.lazy-initialization=true registers this post-processor; handler beans must still be created
        this.runner.withBean(LazyInitializationBeanFactoryPostProcessor.class)
                .withUserConfiguration(ClassHandlerConfig.class, MethodHandlerConfig.class)
                .withPropertyValues("reminder.attempts=3").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(DefaultDelayQueueConsumerRegistry.class).definitions())
                            .extracting(d -> d.queue().name()).contains("ORDER_TIMEOUT", "REMINDER");
                });
    }

    @Test
    void aPrototypeHandlerBeanFailsStartupClearly() {
        this.runner.withUserConfiguration(PrototypeHandlerConfig.class, PrototypeConsumersConfig.class)
                .run(context -> assertThat(configFailure(context))
                        .hasMessageContaining("@DelayHandler on prototype bean 'orderHandler'"));
    }

    @Test
    void theProxyOfAClassHandlerIsCalledThroughTheMethodTheClassImplements() {
        this.runner.withUserConfiguration(AdvisedHandlersConfig.class).run(context -> {
            assertThat(context).hasNotFailed();
            List<String> advised = context.getBean("advised", List.class);
            MessageContext delivery = new MessageContext("ORDER_TIMEOUT", "id-1", 1, java.time.Instant.EPOCH,
                    java.time.Instant.EPOCH, Map.of());
            // advice on handle(T) (a transaction, security) must apply when only handle(T) is implemented
            definition(context, "ORDER_TIMEOUT").endpoint().handler().handle(new OrderTimeout("o-1", 5), delivery);
            definition(context, "REMINDER").endpoint().handler().handle("text", delivery);
            assertThat(advised).containsExactly("handle/1", "handle/2");
        });
    }

    @Test
    void payloadTypesComeFromTheDeclarations() {
        this.runner.withUserConfiguration(ClassHandlerConfig.class, GenericHandlersConfig.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(definition(context, "ORDER_TIMEOUT").endpoint().payloadType()).isEqualTo(OrderTimeout.class);
            assertThat(definition(context, "REMINDER").endpoint().payloadType().getTypeName())
                    .isEqualTo("java.util.List<" + OrderTimeout.class.getName() + ">");
            assertThat(definition(context, "PRODUCER_ONLY").endpoint().payloadType().getTypeName())
                    .isEqualTo("java.util.List<" + OrderTimeout.class.getName() + ">");
            assertThat(definition(context, "orders.dotted").endpoint().payloadType().getTypeName())
                    .isEqualTo("java.util.Map<java.lang.String, java.util.List<" + OrderTimeout.class.getName() + ">>");
        });
    }

    // ---- fail fast ----------------------------------------------------------------------------------

    @Test
    void failsForHandlerOfUndeclaredCode() {
        this.runner.withUserConfiguration(UndeclaredCodeConfig.class).run(context -> assertThat(configFailure(context))
                .hasMessageContaining("'NOPE'").hasMessageContaining("undeclaredHandler")
                .hasMessageContaining("ORDER_TIMEOUT"));
    }

    @Test
    void failsForTwoHandlersOfOneCode() {
        this.runner.withUserConfiguration(ClassHandlerConfig.class, SecondOrderHandlerConfig.class)
                .run(context -> assertThat(configFailure(context))
                        .hasMessageContaining("Queue code 'ORDER_TIMEOUT' has two handlers")
                        .hasMessageContaining("bean 'orderHandler'")
                        .hasMessageContaining("SecondOrderHandlerConfig.onOrder(OrderTimeout)"));
    }

    @Test
    void aMethodWithoutPayloadParameterIsAHandlerThatReadsNoPayload() {
        this.runner.withUserConfiguration(NoPayloadConfig.class).run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void failsForMethodWithTwoPayloadParameters() {
        assertUnusable(TwoPayloadsConfig.class, "TwoPayloadsConfig.on(String, Integer)",
                "has two payload parameters (String and Integer)");
    }

    @Test
    void failsForMethodWithTwoContexts() {
        assertUnusable(TwoContextsConfig.class, "TwoContextsConfig.on(String, MessageContext, MessageContext)",
                "has two MessageContext parameters");
    }

    @Test
    void failsForAsynchronousHandlerMethod() {
        assertUnusable(AsyncConfig.class, "AsyncConfig.on(String)", "handlers run synchronously");
    }

    @Test
    void failsForAnAsyncHandlerMethodEvenWithoutEnableAsync() {
        assertUnusable(AsyncMethodConfig.class, "AsyncMethodConfig.on(String)", "@Async",
                "acknowledged as soon as it returns");
    }

    @Test
    void failsForAHandlerMethodOnAnAsyncClass() {
        assertUnusable(AsyncClassConfig.class, "AsyncClassConfig.on(String)", "@Async");
    }

    @Test
    void failsForAnAsyncClassHandler() {
        assertUnusable(AsyncClassHandlerConfig.class, "AsyncOrderHandler", "@Async");
    }

    @Test
    void failsForAnAsyncMetaAnnotatedHandlerMethod() {
        assertUnusable(MetaAsyncConfig.class, "MetaAsyncConfig.on(String)", "@Async");
    }

    @Test
    void failsForAHandlerWhosePayloadTypeTheCodecCannotBuild() {
        this.runner.withUserConfiguration(UnbuildablePayloadConfig.class).run(context -> assertThat(configFailure(context))
                .hasMessageContaining("UnbuildablePayloadConfig.on(Unbuildable)")
                .hasMessageContaining(Unbuildable.class.getName())
                .hasMessageContaining("cannot build"));
    }

    @Test
    void failsForAnnotatedClassThatIsNoHandler() {
        assertUnusable(NotAHandlerConfig.class, "NotAHandler", "does not implement");
    }

    @Test
    void failsForHandlerClassImplementingBothInterfaces() {
        assertUnusable(BothHandlerConfig.class, "bean 'bothHandler'", BothHandler.class.getName(),
                "implements both DelayMessageHandler and ContextAwareDelayMessageHandler");
    }

    @Test
    void failsForUnboundPayloadType() {
        assertUnusable(RawHandlerConfig.class, "RawHandler", "Cannot bind payloads");
        assertUnusable(UnboundGenericConfig.class, "UnboundHandler", "type variable T");
    }

    @Test
    void failsForInvalidAttribute() {
        assertUnusable(BadAttributeConfig.class, "'many' is not a valid integer", "BadAttributeConfig.on(String)");
        assertUnusable(MissingPlaceholderConfig.class, "no.such.property", "MissingPlaceholderConfig.on(String)");
    }

    @Test
    void failsForAnErrorHandlerNameWithoutABean() {
        this.runner.withUserConfiguration(ErrorHandlerNameConfig.class)
                .run(context -> assertThat(configFailure(context))
                        .hasMessageContaining("@DelayHandler(errorHandler = \"${order.error-handler:missingHandler}\")")
                        .hasMessageContaining("ErrorHandlerNameConfig.on(String)")
                        .hasMessageContaining("no bean named 'missingHandler'"));
    }

    @Test
    void failsForAnErrorHandlerNameOfABeanOfAnotherType() {
        this.runner.withUserConfiguration(ErrorHandlerNameConfig.class)
                .withPropertyValues("order.error-handler=notAnErrorHandler")
                .withBean("notAnErrorHandler", String.class, () -> "just a string")
                .run(context -> assertThat(configFailure(context))
                        .hasMessageContaining("@DelayHandler(errorHandler = \"${order.error-handler:missingHandler}\")")
                        .hasMessageContaining("ErrorHandlerNameConfig.on(String)")
                        .hasMessageContaining("bean 'notAnErrorHandler' is a java.lang.String, not a "
                                + DeliveryErrorHandler.class.getName()));
    }

    @Test
    void theNamedErrorHandlerAndEveryInterceptorBeanReachTheConsumerOptions() {
        DeliveryErrorHandler errorHandler = (context, error, proposed) -> proposed;
        OrderedInterceptor first = new OrderedInterceptor(1);
        OrderedInterceptor second = new OrderedInterceptor(2);
        this.runner.withUserConfiguration(ClassHandlerConfig.class, ErrorHandlerNameConfig.class)
                .withPropertyValues("order.error-handler=ordersErrorHandler")
                .withBean("ordersErrorHandler", DeliveryErrorHandler.class, () -> errorHandler)
                .withBean("second", OrderedInterceptor.class, () -> second)
                .withBean("first", OrderedInterceptor.class, () -> first)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(consumerOptions(context, "REMINDER").errorHandler()).isSameAs(errorHandler);
                    assertThat(consumerOptions(context, "ORDER_TIMEOUT").errorHandler()).isNull();
                    assertThat(consumerOptions(context, "ORDER_TIMEOUT").interceptors()).containsExactly(first, second);
                    assertThat(consumerOptions(context, "REMINDER").interceptors()).containsExactly(first, second);
                });
    }

    @Test
    void failsForSettingsTheEngineRejects() {
        this.runner.withUserConfiguration(ClassHandlerConfig.class)
                .withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.concurrency=0")
                .run(context -> assertThat(configFailure(context))
                        .hasMessageContaining("Invalid consumer settings for queue 'ORDER_TIMEOUT'")
                        .hasMessageContaining("concurrency must be between 1 and 10000"));
    }

    @Test
    void failsForDeadLetterSettingsTheEngineRejects() {
        this.runner.withUserConfiguration(ClassHandlerConfig.class)
                .withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.dead-letter.max-count=0")
                .run(context -> assertThat(configFailure(context))
                        .hasMessageContaining("Invalid consumer settings for queue 'ORDER_TIMEOUT'")
                        .hasMessageContaining("deadLetterMaxCount must be at least 1"));
        this.runner.withUserConfiguration(ClassHandlerConfig.class)
                .withPropertyValues("delayqueue.consumer.dead-letter.retention=0s")
                .run(context -> assertThat(configFailure(context))
                        .hasMessageContaining("deadLetterRetention must be positive"));
    }

    @Test
    void failsForTwoEnumsDeclaringOneCode() {
        this.runner.withPropertyValues("delayqueue.scan-packages=io.github.delayqueue.spring.autoconfigure.fixtures.duplicate")
                .run(context -> assertThat(configFailure(context))
                        .hasMessageContaining("Queue code 'SAME' is declared twice")
                        .hasMessageContaining("fixtures.duplicate.FirstCodes.SAME")
                        .hasMessageContaining("fixtures.duplicate.SecondCodes.OTHER"));
    }

    @Test
    void failsForCodeThatIsNoValidQueueName() {
        this.runner.withPropertyValues("delayqueue.scan-packages=io.github.delayqueue.spring.autoconfigure.fixtures.invalid")
                .run(context -> assertThat(configFailure(context))
                        .hasMessageContaining("Queue code 'has space' of")
                        .hasMessageContaining("fixtures.invalid.BadCodes.SPACED")
                        .hasMessageContaining("not a valid queue name"));
    }

    @Test
    void failureAnalyzerReportsDescriptionAndAction() {
        this.runner.withUserConfiguration(UndeclaredCodeConfig.class).run(context -> {
            var analysis = new DelayQueueFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("'NOPE'");
            assertThat(analysis.getAction()).contains("declare it in an enum implementing DelayQueueCode");
        });
    }

    // ---- template input checks (no Redis needed: they fail before any write) ------------------------

    @Test
    void templateRejectsUnknownAndNullCodes() {
        this.runner.run(context -> {
            DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
            assertThatIllegalArgumentException().isThrownBy(() -> template.send(null, "x", Duration.ZERO))
                    .withMessageContaining("must not be null");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> template.send(
                            io.github.delayqueue.spring.autoconfigure.fixtures.duplicate.FirstCodes.SAME, "x", Duration.ZERO))
                    .withMessageContaining("Unknown queue code 'SAME'");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> context.getBean(DelayQueueAdmin.class).stats(
                            io.github.delayqueue.spring.autoconfigure.fixtures.duplicate.FirstCodes.SAME))
                    .withMessageContaining("Unknown queue code 'SAME'");
        });
    }

    private void assertUnusable(Class<?> config, String... fragments) {
        this.runner.withUserConfiguration(config).run(context -> {
            Throwable failure = configFailure(context);
            for (String fragment : fragments) {
                assertThat(failure.getMessage()).contains(fragment);
            }
        });
    }

    /** The {@link DelayQueueConfigurationException} that failed the context, however Spring wrapped it. */
    private static Throwable configFailure(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        Throwable failure = context.getStartupFailure();
        while (!(failure instanceof DelayQueueConfigurationException) && failure.getCause() != null) {
            failure = failure.getCause();
        }
        assertThat(failure).isInstanceOf(DelayQueueConfigurationException.class);
        return failure;
    }

    private static ConsumerOptions consumerOptions(AssertableApplicationContext context, String code) {
        return definition(context, code).options();
    }

    private static DefaultDelayQueueConsumerRegistry.Definition definition(AssertableApplicationContext context,
            String code) {
        return context.getBean(DefaultDelayQueueConsumerRegistry.class).definitions().stream()
                .filter(d -> d.queue().name().equals(code)).findFirst().orElseThrow();
    }

    private static void assertSameOptions(ConsumerOptions actual, ConsumerOptions expected) {
        assertThat(actual.deadLetterRetention()).isEqualTo(expected.deadLetterRetention());
        assertThat(actual.deadLetterMaxCount()).isEqualTo(expected.deadLetterMaxCount());
        assertThat(actual.concurrency()).isEqualTo(expected.concurrency());
        assertThat(actual.batchSize()).isEqualTo(expected.batchSize());
        assertThat(actual.visibilityTimeout()).isEqualTo(expected.visibilityTimeout());
        assertThat(actual.handlerTimeout()).isEqualTo(expected.handlerTimeout());
        assertThat(actual.maxPollInterval()).isEqualTo(expected.maxPollInterval());
        assertThat(actual.shutdownTimeout()).isEqualTo(expected.shutdownTimeout());
        assertThat(actual.retry()).isEqualTo(expected.retry());
    }

    // ---- handler fixtures -----------------------------------------------------------------------------

    @DelayHandler("ORDER_TIMEOUT")
    static class OrderHandler implements DelayMessageHandler<OrderTimeout> {
        @Override
        public void handle(OrderTimeout payload) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ClassHandlerConfig {
        @Bean
        OrderHandler orderHandler() {
            return new OrderHandler();
        }
    }

    static class ReminderHandlers {
        @DelayHandler(value = "REMINDER", concurrency = "2", maxAttempts = "${reminder.attempts}",
                visibilityTimeout = "45s")
        void remind(MessageContext context, String text) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MethodHandlerConfig {
        @Bean
        ReminderHandlers reminderHandlers() {
            return new ReminderHandlers();
        }
    }

    interface Reminders {
        @DelayHandler("REMINDER")
        void remind(String text);
    }

    static class ReminderImpl implements Reminders {
        @Override
        public void remind(String text) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrototypeHandlerConfig {
        @Bean
        @org.springframework.context.annotation.Scope("prototype")
        OrderHandler orderHandler() {
            return new OrderHandler();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrototypeConsumersConfig {
        @Bean
        Object first(OrderHandler handler) {
            return handler;
        }

        @Bean
        Object second(OrderHandler handler) {
            return handler;
        }
    }

    @DelayHandler("REMINDER")
    static class ContextReminderHandler implements ContextAwareDelayMessageHandler<String> {
        @Override
        public void handle(String payload, MessageContext context) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AdvisedHandlersConfig {
        private final List<String> advised = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Bean
        List<String> advised() {
            return this.advised;
        }

        @Bean
        Object orderHandler() {
            return advise(new OrderHandler());
        }

        @Bean
        Object contextReminderHandler() {
            return advise(new ContextReminderHandler());
        }

        private Object advise(Object target) {
            ProxyFactory factory = new ProxyFactory(target);
            factory.setProxyTargetClass(true);
            factory.addAdvice((org.aopalliance.intercept.MethodInterceptor) invocation -> {
                if (invocation.getMethod().getName().equals("handle")) {
                    this.advised.add("handle/" + invocation.getMethod().getParameterCount());
                }
                return invocation.proceed();
            });
            return factory.getProxy();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ProxiedHandlersConfig {
        @Bean
        Object orderHandler() {
            ProxyFactory factory = new ProxyFactory(new OrderHandler());
            factory.setProxyTargetClass(true);
            return factory.getProxy();
        }

        @Bean
        Object reminders() {
            ProxyFactory factory = new ProxyFactory(new ReminderImpl()); // JDK proxy of Reminders
            factory.addInterface(Reminders.class);
            return factory.getProxy();
        }
    }

    abstract static class BaseHandler<T> implements ContextAwareDelayMessageHandler<T> {
        @Override
        public void handle(T payload, MessageContext context) {
        }
    }

    @DelayHandler("REMINDER")
    static class ListHandler extends BaseHandler<List<OrderTimeout>> {
    }

    abstract static class PlainBaseHandler<T> implements DelayMessageHandler<T> {
        @Override
        public void handle(T payload) {
        }
    }

    abstract static class ListOf<E> extends PlainBaseHandler<List<E>> {
    }

    @DelayHandler("PRODUCER_ONLY")
    static class PlainListHandler extends ListOf<OrderTimeout> {
    }

    static class MapHandlers {
        @DelayHandler("orders.dotted")
        void on(Map<String, List<OrderTimeout>> byCustomer) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class GenericHandlersConfig {
        @Bean
        ListHandler listHandler() {
            return new ListHandler();
        }

        @Bean
        PlainListHandler plainListHandler() {
            return new PlainListHandler();
        }

        @Bean
        MapHandlers mapHandlers() {
            return new MapHandlers();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UndeclaredCodeConfig {
        @Bean
        Object undeclaredHandler() {
            return new Object() {
                @DelayHandler("NOPE")
                void on(String payload) {
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SecondOrderHandlerConfig {
        @DelayHandler("ORDER_TIMEOUT")
        void onOrder(OrderTimeout order) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NoPayloadConfig {
        @DelayHandler("ORDER_TIMEOUT")
        void on(MessageContext context) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoPayloadsConfig {
        @DelayHandler("ORDER_TIMEOUT")
        void on(String a, Integer b) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoContextsConfig {
        @DelayHandler("ORDER_TIMEOUT")
        void on(String a, MessageContext b, MessageContext c) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AsyncConfig {
        @DelayHandler("ORDER_TIMEOUT")
        java.util.concurrent.CompletableFuture<Void> on(String a) {
            return null;
        }
    }

    @DelayHandler("ORDER_TIMEOUT")
    static class NotAHandler {
    }

    /** Its only constructor is private: every message would be dead-lettered at once. */
    static final class Unbuildable {
        private final String orderId;

        private Unbuildable(String orderId) {
            this.orderId = orderId;
        }

        public String getOrderId() {
            return this.orderId;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UnbuildablePayloadConfig {
        @DelayHandler("ORDER_TIMEOUT")
        void on(Unbuildable payload) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AsyncMethodConfig {
        @DelayHandler("ORDER_TIMEOUT")
        @org.springframework.scheduling.annotation.Async
        void on(String a) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @org.springframework.scheduling.annotation.Async
    static class AsyncClassConfig {
        @DelayHandler("ORDER_TIMEOUT")
        void on(String a) {
        }
    }

    @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
    @org.springframework.scheduling.annotation.Async
    @interface InBackground {
    }

    @Configuration(proxyBeanMethods = false)
    static class MetaAsyncConfig {
        @DelayHandler("ORDER_TIMEOUT")
        @InBackground
        void on(String a) {
        }
    }

    @DelayHandler("ORDER_TIMEOUT")
    static class AsyncOrderHandler implements DelayMessageHandler<OrderTimeout> {
        @Override
        @org.springframework.scheduling.annotation.Async
        public void handle(OrderTimeout payload) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AsyncClassHandlerConfig {
        @Bean
        AsyncOrderHandler asyncOrderHandler() {
            return new AsyncOrderHandler();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NotAHandlerConfig {
        @Bean
        NotAHandler notAHandler() {
            return new NotAHandler();
        }
    }

    @DelayHandler("ORDER_TIMEOUT")
    static class BothHandler implements DelayMessageHandler<String>, ContextAwareDelayMessageHandler<String> {
        @Override
        public void handle(String payload) {
        }

        @Override
        public void handle(String payload, MessageContext context) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BothHandlerConfig {
        @Bean
        BothHandler bothHandler() {
            return new BothHandler();
        }
    }

    @SuppressWarnings("rawtypes")
    @DelayHandler("ORDER_TIMEOUT")
    static class RawHandler implements DelayMessageHandler {
        @Override
        public void handle(Object payload) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class RawHandlerConfig {
        @Bean
        RawHandler rawHandler() {
            return new RawHandler();
        }
    }

    @DelayHandler("ORDER_TIMEOUT")
    static class UnboundHandler<T> extends BaseHandler<T> {
    }

    @Configuration(proxyBeanMethods = false)
    static class UnboundGenericConfig {
        @Bean
        UnboundHandler<?> unboundHandler() {
            return new UnboundHandler<>();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BadAttributeConfig {
        @DelayHandler(value = "ORDER_TIMEOUT", concurrency = "many")
        void on(String a) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ErrorHandlerNameConfig {
        @DelayHandler(value = "REMINDER", errorHandler = "${order.error-handler:missingHandler}")
        void on(String a) {
        }
    }

    /** An interceptor that does nothing, placed by {@link Ordered}. */
    static class OrderedInterceptor implements DeliveryInterceptor, Ordered {

        private final int order;

        OrderedInterceptor(int order) {
            this.order = order;
        }

        @Override
        public int getOrder() {
            return this.order;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MissingPlaceholderConfig {
        @DelayHandler("${no.such.property}")
        void on(String a) {
        }
    }
}
