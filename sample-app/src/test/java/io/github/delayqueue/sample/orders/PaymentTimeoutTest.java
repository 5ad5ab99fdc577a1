package io.github.delayqueue.sample.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import io.github.delayqueue.sample.SampleQueues;
import io.github.delayqueue.test.DelayQueueTester;
import io.github.delayqueue.test.ScheduledMessage;

/** The example of docs/guides/testing.md, kept here so that it compiles and passes: change both together. */
@SpringBootTest
class PaymentTimeoutTest {

    @Autowired
    OrderService orders;

    @Autowired
    DelayQueueTester delayQueue;

    @BeforeEach
    void noMessagesOfOtherTests() {
        this.delayQueue.awaitIdle();   // handlers of earlier tests in this context have finished
        this.delayQueue.reset();       // and their messages are gone
    }

    @Test
    void anUnpaidOrderIsCancelledWhenItsPaymentWindowCloses() {
        Order order = this.orders.create("alice", 4200);

        // what was sent: a typed payload, its id, due in 30 s by the Redis clock
        List<ScheduledMessage<PaymentTimeout>> timeouts =
                this.delayQueue.pending(SampleQueues.ORDER_PAYMENT_TIMEOUT, PaymentTimeout.class);
        assertThat(timeouts).singleElement().satisfies(timeout -> {
            assertThat(timeout.id()).isEqualTo("order-" + order.reference());
            assertThat(timeout.payload()).isEqualTo(new PaymentTimeout(order.reference()));
            assertThat(timeout.dueIn()).isCloseTo(Duration.ofSeconds(30), Duration.ofSeconds(10));
        });

        // 30 seconds pass at once: the message goes through Redis, the consumer and PaymentTimeoutHandler
        this.delayQueue.runDueWithin(Duration.ofSeconds(30));

        assertThat(this.orders.get(order.id()).status()).isEqualTo(OrderStatus.CANCELLED);
    }

    @Test
    void aPaidOrderKeepsNoTimeout() {
        Order order = this.orders.create("bob", 1500);
        this.orders.pay(order.id());

        assertThat(this.delayQueue.pending(SampleQueues.ORDER_PAYMENT_TIMEOUT)).isEmpty();
    }

    @Test
    void aRejectedOrderSendsNothing() {
        // over the limit: the transaction rolls back, and the send it made is dropped with it
        assertThatThrownBy(() -> this.orders.create("carol", 5_000_000)).isInstanceOf(OrderRejectedException.class);

        assertThat(this.delayQueue.pending(SampleQueues.ORDER_PAYMENT_TIMEOUT)).isEmpty();
    }
}
