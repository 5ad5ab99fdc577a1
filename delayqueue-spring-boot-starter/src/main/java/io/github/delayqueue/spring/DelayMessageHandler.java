package io.github.delayqueue.spring;

import io.github.delayqueue.core.MessageContext;

/**
 * A handler bean for one queue, bound with {@link DelayHandler @DelayHandler} on its class:
 *
 * <pre>{@code
 * @Component
 * @DelayHandler("ORDER_PAYMENT_TIMEOUT")
 * class PaymentTimeoutHandler implements DelayMessageHandler<OrderRef> {
 *     public void handle(OrderRef order) { ... }
 * }
 * }</pre>
 *
 * <p>Implement <em>one</em> of the two methods: {@link #handle(Object)} when the payload is all you
 * need, {@link #handle(Object, MessageContext)} when you also want the message id, attempt or due time.
 * Startup fails if a handler implements neither.
 *
 * <p>The payload is bound from JSON to {@code T} as resolved from the class's generic declaration,
 * so records and generic types such as {@code List<Item>} work. Returning normally acknowledges the
 * message; throwing retries it with back-off and finally dead-letters it. Delivery is at-least-once:
 * a handler must tolerate seeing a message twice.
 *
 * @param <T> the payload type
 */
public interface DelayMessageHandler<T> {

    /** Handles one payload. Called by the default {@link #handle(Object, MessageContext)}. */
    default void handle(T payload) throws Exception {
        throw new UnsupportedOperationException(getClass().getName()
                + " implements neither handle(T) nor handle(T, MessageContext)");
    }

    /** Handles one payload with its delivery details. The default calls {@link #handle(Object)}. */
    default void handle(T payload, MessageContext context) throws Exception {
        handle(payload);
    }
}
