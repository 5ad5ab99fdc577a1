package io.github.delayqueue.core;

/**
 * What a send with an explicit id does when a live (pending or in-flight) message with that id
 * already exists in the queue.
 */
public enum SendMode {

    /** Keep the existing message untouched; the send is a no-op. Makes retried sends idempotent. */
    IF_ABSENT,

    /** Replace the existing message: the new payload, headers and due time win. */
    REPLACE
}
