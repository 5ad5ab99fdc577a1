package io.github.delayqueue.spring.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.context.annotation.Bean;

import io.github.delayqueue.core.schedule.ScheduleListener;
import io.github.delayqueue.spring.consumer.DefaultDelayQueueConsumerRegistry;
import io.github.delayqueue.spring.core.QueueCatalog;

/**
 * Recurring schedules: the {@code DelayQueueSchedules} bean (also the interceptor every consumer runs first, which
 * writes each schedule's next tick) and the schedules of {@code delayqueue.schedules.*}, checked and declared when the
 * context starts. Both are machinery, not strategies to swap: not {@code @ConditionalOnMissingBean}.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnBean(QueueCatalog.class)
public final class DelayQueueScheduleAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(DelayQueueScheduleAutoConfiguration.class);

    /** Ticks are told to every {@link ScheduleListener} bean in {@code @Order} (the metrics bind one). */
    @Bean
    DefaultDelayQueueSchedules delayQueueSchedules(QueueCatalog catalog, ObjectProvider<ScheduleListener> listeners) {
        return new DefaultDelayQueueSchedules(catalog, all(listeners.orderedStream().toList()));
    }

    private static ScheduleListener all(List<ScheduleListener> listeners) {
        if (listeners.size() <= 1) {
            return listeners.isEmpty() ? ScheduleListener.NONE : listeners.get(0);
        }
        return new ScheduleListener() {
            @Override
            public void tick(String queue, String schedule, Instant tick, Outcome outcome, Duration late) {
                for (ScheduleListener listener : listeners) {
                    try {
                        listener.tick(queue, schedule, tick, outcome, late);
                    } catch (RuntimeException e) { // one failing listener does not silence the others
                        log.warn("Schedule listener {} failed: {}", listener.getClass().getName(), e.toString());
                    }
                }
            }

            @Override
            public void missed(String queue, String schedule, long count) {
                for (ScheduleListener listener : listeners) {
                    try {
                        listener.missed(queue, schedule, count);
                    } catch (RuntimeException e) {
                        log.warn("Schedule listener {} failed: {}", listener.getClass().getName(), e.toString());
                    }
                }
            }
        };
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
