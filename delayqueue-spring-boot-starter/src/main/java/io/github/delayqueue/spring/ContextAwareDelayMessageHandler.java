package io.github.delayqueue.spring;

import io.github.delayqueue.core.MessageContext;

/**
 * A {@link DelayMessageHandler} that also receives the delivery details (queue, message id, attempt,
 * due time, headers), bound with {@link DelayHandler @DelayHandler} on its class:
 *
 * <pre>{@code
 * @Component
 * @DelayHandler("MEETING_REMINDER")
 * class ReminderHandler implements ContextAwareDelayMessageHandler<Reminder> {
 *     public void handle(Reminder reminder, MessageContext context) { ... }
 * }
 * }</pre>
 *
 * <p>Payload binding, acknowledgement and retries are those of {@link DelayMessageHandler}. A class
 * implements one of the two interfaces, not both: startup fails naming the bean otherwise.
 *
 * @param <T> the payload type
 */
@FunctionalInterface
public interface ContextAwareDelayMessageHandler<T> {

    /** Handles one payload with its delivery details. */
    void handle(T payload, MessageContext context) throws Exception;
}
