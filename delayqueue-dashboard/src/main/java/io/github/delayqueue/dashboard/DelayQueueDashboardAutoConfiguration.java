package io.github.delayqueue.dashboard;

import io.github.delayqueue.spring.schedule.DelayQueueSchedules;
import java.time.Clock;
import java.time.Duration;
import java.util.regex.Pattern;

import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.DelayQueueConsumerRegistry;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.autoconfigure.DelayQueueAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.unit.DataSize;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * The operator dashboard, in a Spring MVC application with {@code delayqueue.dashboard.enabled=true}: the page at
 * {@code delayqueue.dashboard.path} and its JSON under {@code <path>/api}. Throughput and lateness come from the
 * application's {@code MeterRegistry} when Micrometer is present. Invalid {@code delayqueue.dashboard.*} settings
 * fail startup, naming the property.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBooleanProperty("delayqueue.dashboard.enabled")
@ConditionalOnBean(DelayQueueAdmin.class)
@EnableConfigurationProperties(DashboardProperties.class)
public final class DelayQueueDashboardAutoConfiguration {

    private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._-]+)+");

    @Bean
    DashboardController delayQueueDashboardController(DelayQueueAdmin admin, DelayQueueTemplate template,
            DelayQueueConsumerRegistry registry, DashboardProperties properties, ObjectProvider<QueueMetrics> metrics,
            ObjectProvider<DelayQueueSchedules> schedules) {
        check(properties);
        return new DashboardController(admin, template, registry, properties, metrics.getIfAvailable(() -> QueueMetrics.NONE),
                schedules.getIfUnique());
    }

    static void check(DashboardProperties properties) {
        String path = properties.getPath();
        if (path == null || !PATH.matcher(path).matches() || path.contains("/./") || path.contains("/../")
                || path.endsWith("/.") || path.endsWith("/..")) {
            throw new DelayQueueConfigurationException("delayqueue.dashboard.path '" + path + "' is not a usable path.",
                    "Set delayqueue.dashboard.path to a path that starts with '/', does not end with one, and holds only "
                            + "letters, digits, '-', '_', '.' and '/', such as /delayqueue or /admin/queues.");
        }
        DataSize max = properties.getMaxPayloadSize();
        if (max == null || max.toBytes() < 1024 || max.toBytes() > 1024 * 1024) {
            throw new DelayQueueConfigurationException("delayqueue.dashboard.max-payload-size " + max + " is out of range.",
                    "Set delayqueue.dashboard.max-payload-size from 1KB to 1MB.");
        }
        Duration refresh = properties.getRefreshInterval();
        if (refresh == null || refresh.compareTo(Duration.ofSeconds(1)) < 0 || refresh.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new DelayQueueConfigurationException("delayqueue.dashboard.refresh-interval " + refresh + " is out of range.",
                    "Set delayqueue.dashboard.refresh-interval from 1s to 10m.");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class MicrometerMetricsConfiguration {

        @Bean
        QueueMetrics delayQueueDashboardMetrics(ObjectProvider<MeterRegistry> registries) {
            return new MicrometerQueueMetrics(registries, Clock.systemUTC());
        }
    }
}
