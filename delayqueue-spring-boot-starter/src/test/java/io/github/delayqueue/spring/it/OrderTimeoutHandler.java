package io.github.delayqueue.spring.it;

import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.spring.ContextAwareDelayMessageHandler;
import io.github.delayqueue.spring.DelayHandler;

import org.springframework.stereotype.Component;

/** A class-level handler that wants the context too. */
@Component
@DelayHandler("ORDER_TIMEOUT")
class OrderTimeoutHandler implements ContextAwareDelayMessageHandler<Payloads.OrderTimeout> {

    private final Inbox inbox;

    OrderTimeoutHandler(Inbox inbox) {
        this.inbox = inbox;
    }

    @Override
    public void handle(Payloads.OrderTimeout payload, MessageContext context) {
        this.inbox.add(payload, context);
    }
}
