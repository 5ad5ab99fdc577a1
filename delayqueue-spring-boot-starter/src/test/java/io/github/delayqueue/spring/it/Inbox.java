package io.github.delayqueue.spring.it;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

import io.github.delayqueue.core.MessageContext;

import org.springframework.stereotype.Component;

/** What the handlers received, in order of arrival. */
@Component
public class Inbox {

    record Delivery(Object payload, MessageContext context, Instant receivedAt) {
    }

    private final List<Delivery> deliveries = new CopyOnWriteArrayList<>();

    void add(Object payload, MessageContext context) {
        this.deliveries.add(new Delivery(payload, context, Instant.now()));
    }

    List<Delivery> of(ItQueues queue) {
        return this.deliveries.stream().filter(d -> d.context().queue().equals(queue.code())).toList();
    }

    Optional<Delivery> find(ItQueues queue, Predicate<Object> payload) {
        return of(queue).stream().filter(d -> payload.test(d.payload())).findFirst();
    }
}
