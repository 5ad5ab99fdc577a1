package io.github.delayqueue.core;

/**
 * Handles the payloads of one queue. Returning normally acknowledges the message (it is deleted);
 * throwing schedules a retry with back-off, and after the last attempt moves it to the dead letters.
 * Delivery is at-least-once: a handler must tolerate seeing the same message again.
 *
 * @param <T> the payload type the JSON is bound to
 */
@FunctionalInterface
public interface MessageHandler<T> {

    void handle(T payload, MessageContext context) throws Exception;
}
