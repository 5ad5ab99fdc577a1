package io.github.delayqueue.core;

import org.jspecify.annotations.Nullable;

/**
 * Redis could not be reached or refused an operation. When a send throws it, the message may or may
 * not have been written (the connection can fail after Redis ran the command); a caller that retries
 * should send with an id and {@link SendMode#IF_ABSENT} so the retry is idempotent.
 */
public class DelayQueueException extends RuntimeException {

    public DelayQueueException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
