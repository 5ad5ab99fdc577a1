package io.github.delayqueue.spring.autoconfigure;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueListener;
import io.github.delayqueue.core.DeliveryInterceptor;
import io.github.delayqueue.core.JacksonPayloadCodec;
import io.github.delayqueue.core.PayloadCodec;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.annotation.DelayHandlerBeanPostProcessor;
import io.github.delayqueue.spring.consumer.ConsumerStarter;
import io.github.delayqueue.spring.consumer.DefaultDelayQueueConsumerRegistry;
import io.github.delayqueue.spring.core.DefaultDelayQueueAdmin;
import io.github.delayqueue.spring.core.DefaultDelayQueueTemplate;
import io.github.delayqueue.spring.core.Listeners;
import io.github.delayqueue.spring.core.QueueCatalog;
import io.github.delayqueue.spring.core.QueueCodeScanner;
import io.github.delayqueue.spring.core.SendOutbox;
import io.github.delayqueue.spring.core.SendObserver;
import io.github.delayqueue.spring.core.TransactionAwareDelayQueueTemplate;
import io.github.delayqueue.spring.redis.RedisWarmUp;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;

/**
 * Auto-configuration of delayqueue: the queues declared by {@code DelayQueueCode} enums, a
 * {@link DelayQueueTemplate}, a {@link DelayQueueAdmin}, and consumers for {@code @DelayHandler}
 * beans, on the application's {@link RedissonClient} (or one built from Boot's Redis connection details or
 * {@code spring.data.redis.*}).
 */
@AutoConfiguration(afterName = { "org.redisson.spring.starter.RedissonAutoConfigurationV4",
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration" })
@ConditionalOnClass({ DelayQueueClient.class, RedissonClient.class })
@EnableConfigurationProperties(DelayQueueProperties.class)
public final class DelayQueueAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(DelayQueueAutoConfiguration.class);

    @Bean(destroyMethod = "shutdown")
    @ConditionalOnMissingBean(RedissonClient.class)
    RedissonClient delayQueueRedissonClient(Environment environment, ObjectProvider<SslBundles> sslBundles,
            ObjectProvider<RedissonConfigSource> connectionDetails,
            ObjectProvider<DelayQueueRedissonConfigCustomizer> customizers) {
        RedissonConfigSource source = connectionDetails.getIfAvailable(() -> RedissonConfigFactory::create);
        Config config = source.create(RedisConnectionProperties.bind(environment), sslBundles.getIfAvailable());
        customizers.orderedStream().forEach(customizer -> customizer.customize(config));
        return Redisson.create(config);
    }

    /** With spring-boot-data-redis, a {@link DataRedisConnectionDetails} bean wins over the starter's own binding. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails")
    static class RedisConnectionDetailsConfiguration {

        @Bean
        @ConditionalOnMissingBean(RedissonClient.class)
        RedissonConfigSource delayQueueRedissonConfigSource(ObjectProvider<DataRedisConnectionDetails> details) {
            return (properties, sslBundles) -> {
                DataRedisConnectionDetails connectionDetails = details.getIfAvailable();
                return connectionDetails != null ? ConnectionDetailsConfigFactory.create(connectionDetails, properties)
                        : RedissonConfigFactory.create(properties, sslBundles);
            };
        }
    }

    @Bean
    @ConditionalOnMissingBean(PayloadCodec.class)
    JacksonPayloadCodec delayQueuePayloadCodec(ObjectProvider<JsonMapper> jsonMapper) {
        JsonMapper mapper = jsonMapper.getIfUnique();
        return mapper != null ? new JacksonPayloadCodec(mapper) : new JacksonPayloadCodec();
    }

    /**
     * Every {@link DelayQueueListener} bean (the Micrometer metrics, when there is a {@code MeterRegistry}, and the
     * application's own) hears the events of every queue, in {@code @Order} order.
     */
    @Bean
    QueueCatalog delayQueueCatalog(BeanFactory beanFactory, Environment environment, ResourceLoader resourceLoader,
            DelayQueueProperties properties, RedissonClient redisson, PayloadCodec codec,
            ObjectProvider<DelayQueueListener> listeners) {
        Set<String> packages = new LinkedHashSet<>();
        if (AutoConfigurationPackages.has(beanFactory)) {
            packages.addAll(AutoConfigurationPackages.get(beanFactory));
        }
        packages.addAll(properties.getScanPackages());
        List<DelayQueueCode> codes = new QueueCodeScanner(environment, resourceLoader).scan(new ArrayList<>(packages));
        List<String> names = codes.stream().map(DelayQueueCode::code).toList();
        QueueSettings settings = new QueueSettings(properties, new LinkedHashSet<>(names));
        List<QueueCatalog.ClientPlan> plans = settings.clientPlans(names, codec,
                Listeners.of(listeners.orderedStream().toList()));
        for (String key : settings.unmatchedKeys()) {
            log.warn("delayqueue.queues.{} matches no declared queue code {}; its settings are ignored", key, names);
        }
        return new QueueCatalog(codes, plans, settings, redisson, codec);
    }

    /** Without spring-tx, or with {@code delayqueue.producer.transaction-aware=false}: sends are written at once. */
    @Bean
    @ConditionalOnMissingBean(DelayQueueTemplate.class)
    DelayQueueTemplate delayQueueTemplate(QueueCatalog catalog, ObjectProvider<SendObserver> observer,
            Environment environment) {
        if (outboxEnabled(environment)) {
            throw new DelayQueueConfigurationException("delayqueue.producer.outbox.enabled=true, but sends are not "
                    + "transaction-aware: delayqueue.producer.transaction-aware is false or spring-tx is missing",
                    "Keep delayqueue.producer.transaction-aware=true and add spring-tx (spring-boot-starter-jdbc brings it), "
                            + "or set delayqueue.producer.outbox.enabled=false.");
        }
        return new DefaultDelayQueueTemplate(catalog, observer.getIfUnique(() -> SendObserver.NONE));
    }

    static boolean outboxEnabled(Environment environment) {
        return environment.getProperty(OUTBOX_ENABLED, Boolean.class, false);
    }

    private static final String OUTBOX_ENABLED = "delayqueue.producer.outbox.enabled";

    @Bean
    @ConditionalOnMissingBean(DelayQueueAdmin.class)
    DelayQueueAdmin delayQueueAdmin(QueueCatalog catalog, ObjectProvider<DefaultDelayQueueConsumerRegistry> registry) {
        // looked up at the call: handlers are registered after the singletons are created
        return new DefaultDelayQueueAdmin(catalog, code -> Optional.ofNullable(registry.getIfAvailable())
                .flatMap(r -> r.definitions().stream().filter(d -> d.queue().name().equals(code)).findFirst())
                .map(d -> d.endpoint().payloadType()));
    }

    /**
     * Not {@code @ConditionalOnMissingBean}: like Spring AMQP's listener endpoint registry, it is the
     * machinery behind {@code @DelayHandler}, not a strategy to swap. Every {@link DeliveryInterceptor} bean
     * runs around every delivery, in {@code @Order} order, the first outermost. Handlers run on virtual threads
     * when Boot's do ({@code spring.threads.virtual.enabled} on Java 21+), else on platform threads.
     */
    @Bean
    DefaultDelayQueueConsumerRegistry delayQueueConsumerRegistry(QueueCatalog catalog, DelayQueueProperties properties,
            ObjectProvider<DeliveryInterceptor> interceptors, Environment environment) {
        return new DefaultDelayQueueConsumerRegistry(catalog, properties.getConsumer().getShutdownTimeout(),
                interceptors.orderedStream().toList(), Threading.VIRTUAL.isActive(environment));
    }

    @Bean
    static DelayHandlerBeanPostProcessor delayHandlerBeanPostProcessor() {
        return new DelayHandlerBeanPostProcessor();
    }

    /**
     * Handler beans are created at startup even with {@code spring.main.lazy-initialization=true}: a lazy one
     * would never be created, and its queue never consumed (as Boot does for {@code @Scheduled} beans).
     */
    @Bean
    static LazyInitializationExcludeFilter delayHandlerLazyInitializationExcludeFilter() {
        return (beanName, definition, beanType) -> DelayHandlerBeanPostProcessor.declaresHandlers(beanType);
    }

    @Bean
    ConsumerStarter delayQueueConsumerStarter(DefaultDelayQueueConsumerRegistry registry) {
        return new ConsumerStarter(registry);
    }

    /**
     * Sends inside a transaction are written after it commits. Needs spring-tx, checked here by
     * {@code @ConditionalOnClass} rather than at runtime; processed before the plain template above,
     * which then backs off.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.transaction.support.TransactionSynchronizationManager")
    @ConditionalOnProperty(prefix = "delayqueue.producer", name = "transaction-aware", havingValue = "true",
            matchIfMissing = true)
    static class TransactionAwareTemplateConfiguration {

        /** With {@code delayqueue.producer.outbox.enabled}, the outbox of {@link DelayQueueOutboxAutoConfiguration}. */
        @Bean
        @ConditionalOnMissingBean(DelayQueueTemplate.class)
        DelayQueueTemplate delayQueueTemplate(QueueCatalog catalog, ObjectProvider<SendOutbox> outbox,
                ObjectProvider<SendObserver> observer, Environment environment) {
            SendOutbox sendOutbox = outbox.getIfUnique();
            if (sendOutbox == null && outboxEnabled(environment)) {
                throw new DelayQueueConfigurationException("delayqueue.producer.outbox.enabled=true, but there is no "
                        + "outbox: it needs spring-jdbc (spring-boot-starter-jdbc) and exactly one DataSource bean",
                        "Add spring-boot-starter-jdbc and a DataSource (or mark one @Primary), or set "
                                + "delayqueue.producer.outbox.enabled=false.");
            }
            return new TransactionAwareDelayQueueTemplate(catalog, sendOutbox,
                    observer.getIfUnique(() -> SendObserver.NONE));
        }
    }

    /** Prepares the codec for the payload types of the handlers that the registry holds when the context starts. */
    @Bean
    RedisWarmUp delayQueueRedisWarmUp(QueueCatalog catalog, RedissonClient redisson, DelayQueueProperties properties,
            ObjectProvider<DefaultDelayQueueConsumerRegistry> registry) {
        Duration wait = properties.getWarmUpWait();
        if (wait == null || wait.isNegative()) {
            throw new DelayQueueConfigurationException("delayqueue.warm-up-wait must not be negative, was " + wait + ".",
                    "Set it to how long readiness may wait for the Redis warm-up (0 does not wait), such as 5s.");
        }
        return new RedisWarmUp(catalog, redisson, () -> registry.stream()
                .flatMap(r -> r.definitions().stream()).<Type>map(d -> d.endpoint().payloadType()).toList(), wait);
    }
}
