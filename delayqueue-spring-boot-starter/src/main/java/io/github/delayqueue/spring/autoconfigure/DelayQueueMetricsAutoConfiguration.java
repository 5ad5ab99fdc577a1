package io.github.delayqueue.spring.autoconfigure;

import io.github.delayqueue.spring.core.QueueCatalog;
import io.github.delayqueue.spring.metrics.DelayQueueGauges;
import io.github.delayqueue.spring.metrics.DelayQueueMetrics;
import io.github.delayqueue.spring.metrics.ScheduleMetrics;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer metrics of every queue when the application has a {@link MeterRegistry} (as with
 * {@code spring-boot-starter-actuator}): the engine's events as counters and timers, and the queue gauges read
 * from Redis in the background every {@code delayqueue.metrics.refresh-interval}. Meter names and tags are in
 * {@code docs/reference/observability.md}; {@code management.metrics.enable.delayqueue=false} turns them off as any meter.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, QueueCatalog.class })
public final class DelayQueueMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    DelayQueueMetrics delayQueueMetrics(MeterRegistry registry) {
        return new DelayQueueMetrics(registry);
    }

    /** Ticks of recurring schedules, told by the schedules' interceptor ({@code DelayQueueScheduleAutoConfiguration}). */
    @Bean
    @ConditionalOnMissingBean
    ScheduleMetrics delayQueueScheduleMetrics(MeterRegistry registry) {
        return new ScheduleMetrics(registry);
    }

    @Bean
    @ConditionalOnMissingBean
    DelayQueueGauges delayQueueGauges(QueueCatalog catalog, MeterRegistry registry, DelayQueueProperties properties) {
        return new DelayQueueGauges(catalog, registry, properties.getMetrics().getRefreshInterval());
    }
}
