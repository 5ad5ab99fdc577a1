package io.github.delayqueue.spring.outbox;

/**
 * Rows of the outbox table: {@code pending} wait for Redis (the after-commit write failed or has not
 * finished, or the relay is retrying them), {@code parked} failed too often and wait for an operator.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public record OutboxStats(long pending, long parked) {
}
