package io.github.delayqueue.spring.autoconfigure;

import io.github.delayqueue.spring.core.QueueCatalog;
import io.github.delayqueue.spring.observation.DelayQueueProcessObservationConvention;
import io.github.delayqueue.spring.observation.DelayQueueSendObservationConvention;
import io.github.delayqueue.spring.observation.ObservedSends;
import io.github.delayqueue.spring.observation.ObservingDeliveryInterceptor;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code delayqueue.send} and {@code delayqueue.process} observations when the application has an
 * {@link ObservationRegistry} (as Boot's observation auto-configuration makes): with Micrometer Tracing, the
 * trace context travels in the message's headers, and the handler's span joins the sender's trace. A
 * {@link DelayQueueSendObservationConvention} or {@link DelayQueueProcessObservationConvention} bean replaces the
 * default names and key values.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ ObservationRegistry.class, QueueCatalog.class })
public final class DelayQueueObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ObservedSends delayQueueObservedSends(ObservationRegistry registry,
            ObjectProvider<DelayQueueSendObservationConvention> convention) {
        return new ObservedSends(registry, convention.getIfUnique());
    }

    @Bean
    @ConditionalOnMissingBean
    ObservingDeliveryInterceptor delayQueueObservingDeliveryInterceptor(ObservationRegistry registry,
            ObjectProvider<DelayQueueProcessObservationConvention> convention) {
        return new ObservingDeliveryInterceptor(registry, convention.getIfUnique());
    }
}
