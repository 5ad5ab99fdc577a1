package io.github.delayqueue.test.app;

/** Payload of {@link TestQueues#PAYMENT_TIMEOUT}. */
public record PaymentTimeout(long orderId) {
}
