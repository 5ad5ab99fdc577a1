package io.github.delayqueue.dashboard;

import io.github.delayqueue.dashboard.app.DashQueues;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.autoconfigure.DelayQueueAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** The dashboard is off unless enabled, only in servlet web applications, and refuses unusable settings at startup. */
class DelayQueueDashboardAutoConfigurationTests {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class,
                    DelayQueueDashboardAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1",
                    "delayqueue.scan-packages=" + DashQueues.class.getPackageName());

    @Test
    void offUnlessEnabled() {
        this.runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(DashboardController.class));
        this.runner.withPropertyValues("delayqueue.dashboard.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(DashboardController.class));
    }

    @Test
    void servedWhenEnabledReadOnlyAndWithoutPayloadsByDefault() {
        this.runner.withPropertyValues("delayqueue.dashboard.enabled=true").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(DashboardController.class);
            DashboardProperties properties = context.getBean(DashboardProperties.class);
            assertThat(properties.getPath()).isEqualTo("/delayqueue");
            assertThat(properties.isActionsEnabled()).isFalse();
            assertThat(properties.isShowPayloads()).isFalse();
            assertThat(context.getBean(QueueMetrics.class)).isInstanceOf(MicrometerQueueMetrics.class);
        });
    }

    @Test
    void withoutMicrometerTheFiguresAreUnknown() {
        this.runner.withPropertyValues("delayqueue.dashboard.enabled=true")
                .withClassLoader(new FilteredClassLoader(MeterRegistry.class))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(DashboardController.class)
                        .doesNotHaveBean(QueueMetrics.class));
    }

    @Test
    void notInAnApplicationWithoutSpringMvc() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class,
                        DelayQueueDashboardAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1", "delayqueue.dashboard.enabled=true",
                        "delayqueue.scan-packages=" + DashQueues.class.getPackageName())
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(DashboardController.class));
    }

    @Test
    void anUnusablePathFailsStartupNamingTheProperty() {
        for (String path : new String[] { "delayqueue", "/", "/queues/", "/a b", "/{x}", "/a/../b", "/*" }) {
            this.runner.withPropertyValues("delayqueue.dashboard.enabled=true", "delayqueue.dashboard.path=" + path)
                    .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                            .isInstanceOf(DelayQueueConfigurationException.class)
                            .hasMessageContaining("delayqueue.dashboard.path '" + path + "' is not a usable path"));
        }
        this.runner.withPropertyValues("delayqueue.dashboard.enabled=true", "delayqueue.dashboard.path=/admin/queues_2.x")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void outOfRangeSizesAndIntervalsFailStartup() {
        this.runner.withPropertyValues("delayqueue.dashboard.enabled=true", "delayqueue.dashboard.max-payload-size=2MB")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("delayqueue.dashboard.max-payload-size 2097152B is out of range"));
        this.runner.withPropertyValues("delayqueue.dashboard.enabled=true", "delayqueue.dashboard.refresh-interval=100ms")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("delayqueue.dashboard.refresh-interval PT0.1S is out of range"));
    }
}
