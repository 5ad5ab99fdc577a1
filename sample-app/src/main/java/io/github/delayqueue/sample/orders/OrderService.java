package io.github.delayqueue.sample.orders;

import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.history.MessageStatus;
import io.github.delayqueue.sample.SampleProperties;
import io.github.delayqueue.sample.SampleQueues;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueTemplate;

/** Creates, pays and cancels orders; schedules and withdraws their payment timeouts. */
@Service
public class OrderService {

    private static final Logger log = LoggerFactory.getLogger(OrderService.class);

    private final OrderRepository orders;
    private final DelayQueueTemplate delayQueue;
    private final SampleProperties properties;
    private final DelayQueueAdmin admin;
    private final Clock clock = Clock.systemUTC();

    OrderService(OrderRepository orders, DelayQueueTemplate delayQueue, DelayQueueAdmin admin,
            SampleProperties properties) {
        this.orders = orders;
        this.delayQueue = delayQueue;
        this.admin = admin;
        this.properties = properties;
    }

    /**
     * What became of the order's payment timeout: pending (due when), running (where), completed or cancelled (when,
     * where, after how many attempts), from the queue's history (application.yml keeps a week of it).
     */
    public MessageStatus timeout(long id) {
        return this.admin.status(SampleQueues.ORDER_PAYMENT_TIMEOUT, timeoutId(get(id)));
    }

    /**
     * Saves a new order and schedules its payment timeout in the same transaction. The starter holds
     * the send until the transaction commits, so when a rule below rejects the order and the
     * transaction rolls back, no timeout is ever sent. With the outbox on (application.yml), the timeout
     * is also written to the outbox table in this transaction: if Redis is down at the commit, or the
     * JVM dies right after it, the relay sends it later, so a saved order always gets its timeout.
     */
    @Transactional
    public Order create(String customer, long amountCents) {
        if (customer == null || customer.isBlank()) {
            throw new OrderRejectedException("customer is required");
        }
        if (amountCents <= 0) {
            throw new OrderRejectedException("amountCents must be positive");
        }
        Instant now = this.clock.instant();
        Order order = this.orders.save(Order.create(customer, amountCents, now, now.plus(this.properties.paymentTimeout())));
        // The message id is derived from the order, so the timeout can be withdrawn when it is paid.
        this.delayQueue.send(SampleQueues.ORDER_PAYMENT_TIMEOUT, new PaymentTimeout(order.reference()),
                this.properties.paymentTimeout(), SendOptions.id(timeoutId(order)));
        // A rule checked after the writes, as real services often do: breaking it rolls back the
        // insert and drops the pending send with it.
        if (amountCents > this.properties.maxOrderCents()) {
            throw new OrderRejectedException("amountCents " + amountCents + " is over the limit of "
                    + this.properties.maxOrderCents());
        }
        log.info("Order {} created; cancelled unless paid within {}", order.id(), this.properties.paymentTimeout());
        return order;
    }

    /**
     * Marks the order paid if it is still pending, then withdraws its payment timeout. Paying a paid
     * order is a no-op; paying a cancelled one is rejected.
     */
    @Transactional
    public Order pay(long id) {
        Order order = get(id);
        if (order.status() == OrderStatus.PAID) {
            return order;
        }
        if (this.orders.closePending(id, OrderStatus.PAID, this.clock.instant()) == 0) {
            throw new OrderRejectedException("order " + id + " is " + get(id).status() + " and can no longer be paid");
        }
        // Withdraw the timeout once the payment is committed. Were this cancel lost, the handler
        // would still find the order paid and do nothing.
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                OrderService.this.delayQueue.cancel(SampleQueues.ORDER_PAYMENT_TIMEOUT, timeoutId(order));
            }
        });
        log.info("Order {} paid", id);
        return get(id);
    }

    /**
     * Cancels the order if it is still unpaid and returns it; empty if no such order exists. Idempotent:
     * an order paid in time or already cancelled (a redelivered message) is returned unchanged.
     */
    @Transactional
    public Optional<Order> cancelIfUnpaid(String reference) {
        return this.orders.findByReference(reference).map(order -> {
            if (this.orders.closePending(order.id(), OrderStatus.CANCELLED, this.clock.instant()) == 1) {
                log.info("Order {} cancelled: not paid in time", order.id());
                return get(order.id());
            }
            log.info("Order {} payment timeout ignored: order is {}", order.id(), order.status());
            return order;
        });
    }

    public Order get(long id) {
        return this.orders.findById(id).orElseThrow(() -> new OrderNotFoundException(id));
    }

    private static String timeoutId(Order order) {
        return "order-" + order.reference();
    }
}
