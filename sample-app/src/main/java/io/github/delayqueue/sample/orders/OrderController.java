package io.github.delayqueue.sample.orders;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

import io.github.delayqueue.core.history.MessageStatus;
import io.github.delayqueue.core.history.SettledMessage;

/** {@code POST /orders}, {@code POST /orders/{id}/pay}, {@code GET /orders/{id}}, {@code GET /orders/{id}/timeout}. */
@RestController
@RequestMapping("/orders")
class OrderController {

    private final OrderService orders;

    OrderController(OrderService orders) {
        this.orders = orders;
    }

    record CreateOrder(String customer, long amountCents) {
    }

    @PostMapping
    @ResponseStatus(HttpStatus.CREATED)
    Order create(@RequestBody CreateOrder request) {
        return this.orders.create(request.customer(), request.amountCents());
    }

    @PostMapping("/{id}/pay")
    Order pay(@PathVariable long id) {
        return this.orders.pay(id);
    }

    @GetMapping("/{id}")
    Order get(@PathVariable long id) {
        return this.orders.get(id);
    }

    /** What became of an order's payment timeout: its state and, once handled or cancelled, when and where. */
    record TimeoutView(String state, @Nullable Instant dueAt, @Nullable Instant settledAt, @Nullable String instance,
            int attempts) {
    }

    @GetMapping("/{id}/timeout")
    TimeoutView timeout(@PathVariable long id) {
        MessageStatus status = this.orders.timeout(id);
        SettledMessage settled = status.settled();
        if (settled != null) {
            return new TimeoutView(status.state().name(), settled.dueAt(), settled.settledAt(), settled.instance(),
                    settled.attempts());
        }
        return new TimeoutView(status.state().name(), status.live() == null ? null : status.live().dueAt(), null,
                status.running() == null ? null : status.running().instance(),
                status.live() == null ? 0 : status.live().attempts());
    }
}
