package io.github.delayqueue.spring.autoconfigure;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import io.github.delayqueue.spring.autoconfigure.DelayQueueProperties.Queue;
import io.github.delayqueue.spring.core.QueueCatalog;
import io.github.delayqueue.spring.observation.DelayQueueProcessObservationConvention;
import io.github.delayqueue.spring.observation.DelayQueueSendObservationConvention;
import io.github.delayqueue.spring.observation.ObservedSends;
import io.github.delayqueue.spring.observation.ObservingDeliveryInterceptor;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The {@code delayqueue.send} and {@code delayqueue.process} observations, opt-in as Spring Kafka's are
 * ({@code delayqueue.producer.observation-enabled}, {@code delayqueue.consumer.observation-enabled}, and
 * {@code delayqueue.queues.<code>.observation-enabled} for one queue), when the application has an
 * {@link ObservationRegistry} (as Boot's observation auto-configuration makes): with Micrometer Tracing, the
 * trace context travels in the message's headers, and the handler's span joins the sender's trace. A
 * {@link DelayQueueSendObservationConvention} or {@link DelayQueueProcessObservationConvention} bean replaces the
 * default names and key values. With every switch off (the default) neither bean exists: the template sends and
 * the consumers deliver with no observation in their path (the meters count either way).
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ ObservationRegistry.class, QueueCatalog.class })
public final class DelayQueueObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @Conditional(OnSendObservations.class)
    ObservedSends delayQueueObservedSends(ObservationRegistry registry,
            ObjectProvider<DelayQueueSendObservationConvention> convention, DelayQueueProperties properties) {
        return new ObservedSends(registry, convention.getIfUnique(),
                switchOf(properties, properties.getProducer().isObservationEnabled()));
    }

    @Bean
    @ConditionalOnMissingBean
    @Conditional(OnProcessObservations.class)
    ObservingDeliveryInterceptor delayQueueObservingDeliveryInterceptor(ObservationRegistry registry,
            ObjectProvider<DelayQueueProcessObservationConvention> convention, DelayQueueProperties properties) {
        return new ObservingDeliveryInterceptor(registry, convention.getIfUnique(),
                switchOf(properties, properties.getConsumer().isObservationEnabled()));
    }

    /**
     * Whether a queue (by name, its code) is observed: its {@code delayqueue.queues.<code>.observation-enabled}
     * (the exact key, else a relaxed match as environment variables give), else {@code global}. Answered once per
     * queue.
     */
    static Predicate<String> switchOf(DelayQueueProperties properties, boolean global) {
        Map<String, Boolean> answers = new ConcurrentHashMap<>();
        return queue -> answers.computeIfAbsent(queue, name -> {
            Queue exact = properties.getQueues().get(name);
            if (exact != null && exact.getObservationEnabled() != null) {
                return exact.getObservationEnabled();
            }
            if (exact == null) {
                String relaxed = QueueSettings.relaxed(name);
                for (Map.Entry<String, Queue> entry : properties.getQueues().entrySet()) {
                    if (QueueSettings.relaxed(entry.getKey()).equals(relaxed)
                            && entry.getValue().getObservationEnabled() != null) {
                        return entry.getValue().getObservationEnabled();
                    }
                }
            }
            return global;
        });
    }

    /** Whether the global switch of {@code side} or any queue's switch is on. */
    private static ConditionOutcome anySwitchOn(ConditionContext context, String side) {
        Binder binder = Binder.get(context.getEnvironment());
        String global = "delayqueue." + side + ".observation-enabled";
        if (binder.bind(global, Boolean.class).orElse(false)) {
            return ConditionOutcome.match(global + " is true");
        }
        Map<String, Queue> queues = binder.bind("delayqueue.queues", Bindable.mapOf(String.class, Queue.class))
                .orElse(Map.of());
        for (Map.Entry<String, Queue> entry : queues.entrySet()) {
            if (Boolean.TRUE.equals(entry.getValue().getObservationEnabled())) {
                return ConditionOutcome.match("delayqueue.queues." + entry.getKey() + ".observation-enabled is true");
            }
        }
        return ConditionOutcome.noMatch(global + " and every queue's observation-enabled are off");
    }

    static final class OnSendObservations extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return anySwitchOn(context, "producer");
        }
    }

    static final class OnProcessObservations extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return anySwitchOn(context, "consumer");
        }
    }
}
