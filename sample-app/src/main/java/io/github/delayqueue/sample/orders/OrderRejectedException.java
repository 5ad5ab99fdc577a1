package io.github.delayqueue.sample.orders;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/** The order breaks a business rule; its transaction rolls back, so no payment timeout is sent. */
@ResponseStatus(HttpStatus.BAD_REQUEST)
public class OrderRejectedException extends RuntimeException {

    public OrderRejectedException(String message) {
        super(message);
    }
}
