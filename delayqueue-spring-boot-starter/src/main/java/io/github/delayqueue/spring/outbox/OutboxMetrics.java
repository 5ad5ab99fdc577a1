package io.github.delayqueue.spring.outbox;

import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The outbox's meters, when the application has Micrometer: {@code delayqueue.outbox.rows} with
 * {@code state=pending} (rows waiting for Redis) and {@code state=parked} (rows the relay gave up on), read from
 * the table at most once a second, and {@code delayqueue.outbox.relayed}, messages this instance's relay sent.
 * Kept apart from the queues' own metrics.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class OutboxMetrics implements MeterBinder {

    private final OutboxRelay relay;

    public OutboxMetrics(OutboxRelay relay) {
        this.relay = relay;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        gauge(registry, "pending", stats -> stats.pending());
        gauge(registry, "parked", stats -> stats.parked());
        FunctionCounter.builder("delayqueue.outbox.relayed", this.relay, OutboxRelay::relayed)
                .description("Messages this instance's outbox relay sent to Redis (rows the after-commit write left)")
                .register(registry);
    }

    private void gauge(MeterRegistry registry, String state, ToDoubleFunction<OutboxStats> value) {
        Gauge.builder("delayqueue.outbox.rows", this.relay, relay -> {
            try {
                return value.applyAsDouble(relay.stats());
            } catch (RuntimeException e) {
                return Double.NaN; // the table cannot be read; the health indicator says why
            }
        }).tag("state", state).description("Rows of the delayqueue outbox table, by state").register(registry);
    }
}
