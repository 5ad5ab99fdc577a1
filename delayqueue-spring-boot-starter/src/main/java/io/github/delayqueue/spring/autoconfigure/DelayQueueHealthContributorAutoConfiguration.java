package io.github.delayqueue.spring.autoconfigure;

import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueConsumerRegistry;
import io.github.delayqueue.spring.health.DelayQueueHealthIndicator;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * A {@code delayqueue} health indicator when Spring Boot's health support ({@code spring-boot-health},
 * brought by the actuator) is present; {@code management.health.delayqueue.enabled=false} turns it off.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(DelayQueueAdmin.class)
@ConditionalOnEnabledHealthIndicator("delayqueue")
public final class DelayQueueHealthContributorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "delayQueueHealthIndicator")
    HealthIndicator delayQueueHealthIndicator(DelayQueueAdmin admin, ObjectProvider<DelayQueueConsumerRegistry> registry) {
        return new DelayQueueHealthIndicator(admin, registry.getIfUnique());
    }
}
