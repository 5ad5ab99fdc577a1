package io.github.delayqueue.spring.health;

import io.github.delayqueue.spring.outbox.OutboxRelay;
import io.github.delayqueue.spring.outbox.OutboxStats;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health of the transactional outbox: UP with the rows waiting for Redis ({@code pending}) and the rows the
 * relay gave up on ({@code parked}, which need an operator); DOWN when the table cannot be read.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class DelayQueueOutboxHealthIndicator implements HealthIndicator {

    private final OutboxRelay relay;

    public DelayQueueOutboxHealthIndicator(OutboxRelay relay) {
        this.relay = relay;
    }

    @Override
    public Health health() {
        try {
            OutboxStats stats = this.relay.stats();
            return Health.up().withDetail("pending", stats.pending()).withDetail("parked", stats.parked()).build();
        } catch (RuntimeException e) {
            return Health.down().withDetail("error", e.toString()).build();
        }
    }
}
