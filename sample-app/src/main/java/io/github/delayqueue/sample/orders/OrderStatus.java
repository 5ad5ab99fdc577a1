package io.github.delayqueue.sample.orders;

/** Life cycle of an order. */
public enum OrderStatus {
    PENDING_PAYMENT, PAID, CANCELLED
}
