package io.github.delayqueue.sample.orders;

/** Payload of {@code ORDER_PAYMENT_TIMEOUT}: which order to cancel if it is still unpaid. */
public record PaymentTimeout(String orderReference) {
}
