package io.github.delayqueue.spring.autoconfigure;

import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.actuate.DelayQueueEndpoint;
import io.github.delayqueue.spring.consumer.DefaultDelayQueueConsumerRegistry;
import io.github.delayqueue.spring.schedule.DelayQueueSchedules;

import org.springframework.beans.factory.ObjectProvider;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code delayqueue} actuator endpoint, when the actuator is present and the endpoint is available (access
 * permitted and exposed, as Boot decides for each of its own endpoints: {@code management.endpoints.web.exposure.include},
 * {@code management.endpoint.delayqueue.access}).
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnAvailableEndpoint(DelayQueueEndpoint.class)
public final class DelayQueueEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean({ DelayQueueAdmin.class, DefaultDelayQueueConsumerRegistry.class })
    DelayQueueEndpoint delayQueueEndpoint(DelayQueueAdmin admin, DefaultDelayQueueConsumerRegistry registry,
            DelayQueueProperties properties, ObjectProvider<DelayQueueSchedules> schedules) {
        return new DelayQueueEndpoint(admin, registry, queue -> registry.definitions().stream()
                .filter(d -> d.queue().name().equals(queue)).findFirst().map(d -> d.options().concurrency()).orElse(null),
                queue -> registry.definitions().stream().filter(d -> d.queue().name().equals(queue)).findFirst()
                        .map(d -> d.options()).orElse(null),
                properties.getEndpoint().isShowPayloads(), schedules.getIfUnique());
    }
}
