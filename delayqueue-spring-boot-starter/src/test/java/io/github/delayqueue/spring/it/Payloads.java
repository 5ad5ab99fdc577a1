package io.github.delayqueue.spring.it;

import java.time.Instant;

/** Payload types of the test application. */
final class Payloads {

    private Payloads() {
    }

    record OrderTimeout(String orderId, long amountCents, Instant placedAt) {
    }

    record Item(String sku, int quantity) {
    }
}
