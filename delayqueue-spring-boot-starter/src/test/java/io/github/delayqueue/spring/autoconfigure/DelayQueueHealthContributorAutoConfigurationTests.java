package io.github.delayqueue.spring.autoconfigure;

import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import io.github.delayqueue.spring.health.DelayQueueHealthIndicator;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** The health indicator is optional: present with spring-boot-health, off by property, replaceable. */
class DelayQueueHealthContributorAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class,
                    DelayQueueHealthContributorAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1",
                    "delayqueue.scan-packages=" + OrderQueues.class.getPackageName());

    @Test
    void providesAHealthIndicator() {
        this.runner.run(context -> assertThat(context).hasNotFailed().getBean("delayQueueHealthIndicator")
                .isInstanceOf(DelayQueueHealthIndicator.class));
    }

    @Test
    void backsOffWithoutSpringBootHealth() {
        this.runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("delayQueueHealthIndicator"));
    }

    @Test
    void canBeDisabled() {
        this.runner.withPropertyValues("management.health.delayqueue.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("delayQueueHealthIndicator"));
    }

    @Test
    void backsOffForApplicationIndicatorOfTheSameName() {
        HealthIndicator own = () -> Health.up().build();
        this.runner.withBean("delayQueueHealthIndicator", HealthIndicator.class, () -> own)
                .run(context -> assertThat(context.getBean("delayQueueHealthIndicator")).isSameAs(own));
    }
}
