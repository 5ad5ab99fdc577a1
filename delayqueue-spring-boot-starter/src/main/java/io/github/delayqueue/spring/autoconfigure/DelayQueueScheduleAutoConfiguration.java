package io.github.delayqueue.spring.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.context.annotation.Bean;

import io.github.delayqueue.core.schedule.ScheduleListener;
import io.github.delayqueue.spring.consumer.DefaultDelayQueueConsumerRegistry;
import io.github.delayqueue.spring.core.QueueCatalog;
import io.github.delayqueue.spring.schedule.DefaultDelayQueueSchedules;
import io.github.delayqueue.spring.schedule.ScheduleDeclarations;

/**
 * Recurring schedules: the {@code DelayQueueSchedules} bean (also the interceptor every consumer runs first, which
 * writes each schedule's next tick) and the schedules of {@code delayqueue.schedules.*}, checked and declared when the
 * context starts. Both are machinery, not strategies to swap: not {@code @ConditionalOnMissingBean}.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnBean(QueueCatalog.class)
public final class DelayQueueScheduleAutoConfiguration {

    /** Ticks are told to the {@link ScheduleListener} bean if there is exactly one (the metrics bind one). */
    @Bean
    DefaultDelayQueueSchedules delayQueueSchedules(QueueCatalog catalog, ObjectProvider<ScheduleListener> listener) {
        return new DefaultDelayQueueSchedules(catalog, listener.getIfUnique(() -> ScheduleListener.NONE));
    }

    @Bean
    ScheduleDeclarations delayQueueScheduleDeclarations(DelayQueueProperties properties, QueueCatalog catalog,
            DefaultDelayQueueSchedules schedules, ObjectProvider<DefaultDelayQueueConsumerRegistry> registry) {
        Map<String, ScheduleDeclarations.Declared> declared = new LinkedHashMap<>();
        properties.getSchedules().forEach((name, s) -> declared.put(name, new ScheduleDeclarations.Declared(s.getQueue(),
                s.getCron(), s.getEvery(), s.getZone(), s.getPayload(), s.getMisfire(), s.getCatchUpLimit(),
                s.getOverlap())));
        // looked up at start: handlers are registered after the singletons are created
        return new ScheduleDeclarations(declared, catalog, schedules, code -> Optional.ofNullable(registry.getIfAvailable())
                .flatMap(r -> r.definitions().stream().filter(d -> d.queue().name().equals(code)).findFirst())
                .map(d -> d.endpoint().payloadType()));
    }
}
