package io.github.delayqueue.core;

/**
 * What the claim does with a message not handed to a handler by its expiry ({@link SendOptions#expiresAt},
 * {@link SendOptions#expiresAfter}); a queue's {@link ConsumerOptions#onExpiry}.
 */
public enum ExpiryAction {
    /** Moves it to the dead letters with the cause {@link DeadLetterCause#EXPIRED} (the default). */
    DEAD_LETTER,
    /** Deletes it; listeners hear {@link DelayQueueListener#expiredDropped}. */
    DROP
}
