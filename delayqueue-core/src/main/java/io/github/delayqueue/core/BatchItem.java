package io.github.delayqueue.core;

/**
 * One message of a batch handed to a {@link BatchMessageHandler}: its payload and its own context (id, attempt,
 * headers, due time, group).
 *
 * @param <T> the payload type
 */
public record BatchItem<T>(T payload, MessageContext context) {

    public BatchItem {
        if (payload == null || context == null) {
            throw new IllegalArgumentException("payload and context must not be null");
        }
    }

    /** The message's id: what {@link BatchFailedException} names. */
    public String id() {
        return context.id();
    }
}
