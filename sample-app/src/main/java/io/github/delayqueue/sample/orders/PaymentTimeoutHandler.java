package io.github.delayqueue.sample.orders;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayMessageHandler;

/**
 * Cancels orders whose payment window closed: a handler class, whose payload type comes from its
 * generic argument. Safe to run twice for one order (delivery is at-least-once) and harmless when
 * the customer paid in time, because {@link OrderService#cancelIfUnpaid} only changes a pending order.
 */
@Component
@DelayHandler("ORDER_PAYMENT_TIMEOUT")
class PaymentTimeoutHandler implements DelayMessageHandler<PaymentTimeout> {

    private static final Logger log = LoggerFactory.getLogger(PaymentTimeoutHandler.class);

    private final OrderService orders;

    PaymentTimeoutHandler(OrderService orders) {
        this.orders = orders;
    }

    @Override
    public void handle(PaymentTimeout timeout) {
        if (this.orders.cancelIfUnpaid(timeout.orderReference()).isEmpty()) {
            // Not an error worth retrying: the order is gone (for example an in-memory database restarted).
            log.warn("Payment timeout for unknown order {} dropped", timeout.orderReference());
        }
    }
}
