package io.github.delayqueue.spring.autoconfigure;

import io.github.delayqueue.spring.actuate.DelayQueueEndpoint;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * The endpoint is there only with the actuator and when the application makes it available (exposes it,
 * and does not deny access), as Boot's own endpoints are; without the actuator the application starts as
 * before.
 */
class DelayQueueEndpointAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class,
                    DelayQueueHealthContributorAutoConfiguration.class, DelayQueueEndpointAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1",
                    "delayqueue.scan-packages=" + OrderQueues.class.getPackageName());

    @Test
    void providesTheEndpointWhenItIsExposed() {
        this.runner.withPropertyValues("management.endpoints.web.exposure.include=delayqueue")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(DelayQueueEndpoint.class));
    }

    @Test
    void noEndpointUnlessExposed() {
        this.runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(DelayQueueEndpoint.class));
    }

    @Test
    void noEndpointWhenAccessIsDenied() {
        this.runner.withPropertyValues("management.endpoints.web.exposure.include=delayqueue",
                "management.endpoint.delayqueue.access=NONE") // a runner has no lenient enum conversion
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(DelayQueueEndpoint.class));
    }

    @Test
    void anApplicationWithoutTheActuatorStartsAsBefore() {
        this.runner.withPropertyValues("management.endpoints.web.exposure.include=delayqueue")
                .withClassLoader(new FilteredClassLoader(Endpoint.class, ConditionalOnAvailableEndpoint.class,
                        HealthIndicator.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(DelayQueueEndpoint.class)
                        .doesNotHaveBean("delayQueueHealthIndicator").hasBean("delayQueueTemplate")
                        .hasBean("delayQueueAdmin").hasBean("delayQueueConsumerRegistry"));
    }

    @Test
    void anApplicationWithTheActuatorButNotItsAutoConfigurationModuleStartsAsBefore() {
        this.runner.withPropertyValues("management.endpoints.web.exposure.include=delayqueue")
                .withClassLoader(new FilteredClassLoader(ConditionalOnAvailableEndpoint.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(DelayQueueEndpoint.class)
                        .hasBean("delayQueueTemplate"));
    }

    @Test
    void backsOffForTheApplicationsOwnEndpointBean() {
        DelayQueueEndpoint own = mock(DelayQueueEndpoint.class);
        this.runner.withPropertyValues("management.endpoints.web.exposure.include=delayqueue")
                .withBean(DelayQueueEndpoint.class, () -> own)
                .run(context -> assertThat(context.getBean(DelayQueueEndpoint.class)).isSameAs(own));
    }
}
