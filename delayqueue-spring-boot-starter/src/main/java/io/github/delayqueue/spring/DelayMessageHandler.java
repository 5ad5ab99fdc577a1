package io.github.delayqueue.spring;

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
 * <p>When the handler also needs the message id, attempt or due time, implement
 * {@link ContextAwareDelayMessageHandler} instead (a class implementing both fails startup).
 *
 * <p>The payload is bound from JSON to {@code T} as resolved from the class's generic declaration,
 * so records and generic types such as {@code List<Item>} work. Returning normally acknowledges the
 * message; throwing retries it with back-off and finally dead-letters it. Delivery is at-least-once:
 * a handler must tolerate seeing a message twice.
 *
 * @param <T> the payload type
 */
@FunctionalInterface
public interface DelayMessageHandler<T> {

    /** Handles one payload. */
    void handle(T payload) throws Exception;
}
