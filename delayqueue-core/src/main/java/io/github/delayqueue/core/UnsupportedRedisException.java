package io.github.delayqueue.core;

/**
 * The Redis server is older than 6.2, the oldest delayqueue's scripts run on. Thrown by the first
 * operation of a client (a send, a claim, stats) before anything is written, and by every later one
 * until the server is upgraded; consumers keep polling with back-off and log it.
 */
public final class UnsupportedRedisException extends DelayQueueException {

    public UnsupportedRedisException(String message) {
        super(message, null);
    }
}
