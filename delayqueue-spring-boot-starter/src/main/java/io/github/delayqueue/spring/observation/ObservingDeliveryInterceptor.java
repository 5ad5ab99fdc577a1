package io.github.delayqueue.spring.observation;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import io.github.delayqueue.core.DeliveryInterceptor;
import io.github.delayqueue.core.DeliveryOutcome;
import io.github.delayqueue.core.MessageContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;

/**
 * The {@code delayqueue.process} observation around each handler call, the outermost interceptor (so the
 * application's own interceptors run inside its scope). It starts before the handler, with the message's
 * headers as its carrier (the sender's trace context), and stops once the engine decided the outcome, which it
 * records as a key value: the interceptor keeps the running observation from {@code aroundHandle} to
 * {@code afterDelivery} by the delivery's context.
 *
 * <p>Internal to the starter: public only so that the auto-configuration can create it.
 */
public final class ObservingDeliveryInterceptor implements DeliveryInterceptor, Ordered {

    private final ObservationRegistry registry;
    private final @Nullable DelayQueueProcessObservationConvention convention;
    /** Whether a queue's handler calls are observed, by queue name ({@code observation-enabled}). */
    private final Predicate<String> observed;
    /**
     * Started and not yet stopped, by delivery (the engine hands {@code afterDelivery} the context instance it
     * gave {@code aroundHandle}); one entry per running handler.
     */
    private final Map<Delivery, Observation> running = new ConcurrentHashMap<>();

    /** Observes the handler calls of every queue. */
    public ObservingDeliveryInterceptor(ObservationRegistry registry,
            @Nullable DelayQueueProcessObservationConvention convention) {
        this(registry, convention, queue -> true);
    }

    /** Observes the handler calls of the queues {@code observed} accepts; the others run as they are. */
    public ObservingDeliveryInterceptor(ObservationRegistry registry,
            @Nullable DelayQueueProcessObservationConvention convention, Predicate<String> observed) {
        this.registry = registry;
        this.convention = convention;
        this.observed = observed;
    }

    @Override
    public void aroundHandle(MessageContext context, Object payload, Invocation invocation) throws Exception {
        if (!this.observed.test(context.queue())) {
            invocation.proceed(); // not observed: afterDelivery finds no entry
            return;
        }
        DelayQueueProcessContext observed = new DelayQueueProcessContext(context);
        Observation observation = DelayQueueObservation.PROCESS.observation(convention,
                DefaultDelayQueueProcessObservationConvention.INSTANCE, () -> observed, registry).start();
        running.put(new Delivery(context), observation);
        try (Observation.Scope scope = observation.openScope()) {
            invocation.proceed();
        } catch (Exception | Error e) {
            observation.error(e);
            throw e;
        }
    }

    @Override
    public void afterDelivery(MessageContext context, DeliveryOutcome outcome, @Nullable Throwable error,
            Duration handlerTime) {
        Observation observation = running.remove(new Delivery(context));
        if (observation == null) {
            return; // no handler ran (an undecodable payload)
        }
        if (observation.getContext() instanceof DelayQueueProcessContext observed) {
            observed.setOutcome(outcome);
        }
        observation.stop();
    }

    /**
     * A delivery's context as a map key, by identity: the record's own {@code hashCode} and {@code equals} would
     * hash and compare its headers on every put and remove, and two deliveries of one message (a redelivery
     * while a hung handler still runs) must not share an entry.
     */
    private record Delivery(MessageContext context) {

        @Override
        public boolean equals(Object other) {
            return other instanceof Delivery delivery && delivery.context == context;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(context);
        }
    }

    /** Outermost: the application's interceptors run inside the observation's scope. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public String toString() {
        return "ObservingDeliveryInterceptor";
    }
}
