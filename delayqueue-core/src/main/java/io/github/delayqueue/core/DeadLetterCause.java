package io.github.delayqueue.core;

/** Why a message went to the dead letters, as {@link DelayQueueListener#deadLettered} reports it. */
public enum DeadLetterCause {
    /** Its handler failed on the last attempt, with an exception never retried, or an error handler said so. */
    HANDLER_FAILED,
    /** Its payload could not be decoded to the handler's type, or its envelope could not be read. */
    UNDECODABLE,
    /** Its lease expired on its last attempt: the consumer died or lost it while the handler ran. */
    LEASE_EXPIRED,
    /** Its due time in Redis was not one delayqueue writes (set by hand or by another tool). */
    INVALID_DUE_TIME,
    /** It was not handed to a handler by its expiry ({@link SendOptions#expiresAt}, {@link SendOptions#expiresAfter}). */
    EXPIRED
}
