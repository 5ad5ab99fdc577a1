package io.github.delayqueue.sample.orders;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /orders}, {@code POST /orders/{id}/pay}, {@code GET /orders/{id}}. */
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
}
