package io.github.delayqueue.spring.it;

import java.util.List;

import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.spring.DelayHandler;

import org.springframework.stereotype.Component;

/** Method-level handlers: payload first or context first, generic payloads. */
@Component
class MethodHandlers {

    private final Inbox inbox;

    MethodHandlers(Inbox inbox) {
        this.inbox = inbox;
    }

    @DelayHandler("ITEMS")
    void items(List<Payloads.Item> items, MessageContext context) {
        this.inbox.add(items, context);
    }

    @DelayHandler(value = "TX", concurrency = "${it.tx.concurrency:1}")
    void transactional(MessageContext context, String text) {
        this.inbox.add(text, context);
    }

    @DelayHandler("REPLACE")
    void replace(String text, MessageContext context) {
        this.inbox.add(text, context);
    }
}
