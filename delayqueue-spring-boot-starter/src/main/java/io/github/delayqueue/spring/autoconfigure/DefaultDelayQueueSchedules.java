package io.github.delayqueue.spring.autoconfigure;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;

import org.springframework.core.Ordered;

import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DeliveryInterceptor;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.schedule.ScheduleInfo;
import io.github.delayqueue.core.schedule.ScheduleListener;
import io.github.delayqueue.core.schedule.SchedulePage;
import io.github.delayqueue.core.schedule.ScheduleSpec;
import io.github.delayqueue.core.schedule.Schedules;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.core.QueueCatalog;
import io.github.delayqueue.spring.schedule.CronTicks;
import io.github.delayqueue.spring.schedule.DelayQueueSchedules;

/**
 * {@link DelayQueueSchedules} over the declared queues: one engine {@link Schedules} per client of the catalog (queues
 * with other settings, partitions for one, have clients of their own), with the {@code every} and {@code cron} kinds.
 * Also the {@link DeliveryInterceptor} that every consumer runs first: it hands each claimed message to the
 * {@link Schedules#interceptor()} of its queue's client.
 * Internal to the starter (created by {@link DelayQueueScheduleAutoConfiguration}).
 */
final class DefaultDelayQueueSchedules implements DelayQueueSchedules, DeliveryInterceptor, Ordered {

    private final QueueCatalog catalog;
    private final Map<DelayQueueClient, Schedules> byClient = new IdentityHashMap<>();

    DefaultDelayQueueSchedules(QueueCatalog catalog, ScheduleListener listener) {
        this.catalog = catalog;
        for (DelayQueueCode code : catalog.codes()) {
            DelayQueueClient client = catalog.require(code).client();
            this.byClient.computeIfAbsent(client, c -> Schedules.builder(c).kind("cron", CronTicks.FACTORY)
                    .listener(listener).build());
        }
    }

    /**
     * The engine's schedules of a declared queue.
     *
     * @throws IllegalArgumentException if no DelayQueueCode declares {@code queue}
     */
    Schedules of(String queue) {
        QueueCatalog.Queue declared = this.catalog.find(queue).orElseThrow(() -> new IllegalArgumentException(
                "queue '" + queue + "' is not declared: declared queue codes are "
                        + this.catalog.codes().stream().map(DelayQueueCode::code).toList()));
        return this.byClient.get(declared.client());
    }

    @Override
    public Schedules.Outcome put(ScheduleSpec spec) {
        if (spec == null) {
            throw new IllegalArgumentException("spec must not be null");
        }
        return of(spec.queue()).put(spec);
    }

    @Override
    public boolean remove(String queue, String id) {
        return of(queue).remove(queue, id);
    }

    @Override
    public Optional<ScheduleInfo> get(String queue, String id) {
        return of(queue).get(queue, id);
    }

    @Override
    public SchedulePage list(String queue, long offset, int limit) {
        return of(queue).list(queue, offset, limit);
    }

    @Override
    public boolean pause(String queue, String id) {
        return of(queue).pause(queue, id);
    }

    @Override
    public boolean resume(String queue, String id) {
        return of(queue).resume(queue, id);
    }

    @Override
    public String trigger(String queue, String id) {
        return of(queue).trigger(queue, id);
    }

    /** Outermost: a tick left out (overlap, misfire) never reaches the other interceptors (metrics, tracing). */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public void aroundHandle(MessageContext context, Object payload, Invocation invocation) throws Exception {
        if (!context.headers().containsKey(Schedules.SCHEDULE_HEADER)) {
            invocation.proceed();
            return;
        }
        Optional<QueueCatalog.Queue> queue = this.catalog.find(context.queue());
        if (queue.isEmpty()) {
            invocation.proceed();
            return;
        }
        this.byClient.get(queue.get().client()).interceptor().aroundHandle(context, payload, invocation);
    }

    /** A tick whose payload cannot be decoded still writes its next tick (see {@link DeliveryInterceptor#undecodable}). */
    @Override
    public void undecodable(MessageContext context) {
        if (context.headers().containsKey(Schedules.SCHEDULE_HEADER)) {
            this.catalog.find(context.queue())
                    .ifPresent(queue -> this.byClient.get(queue.client()).interceptor().undecodable(context));
        }
    }
}
