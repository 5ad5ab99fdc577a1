package io.github.delayqueue.core;

/**
 * A queue is used with a partition count that differs from the one recorded in Redis, or with several partitions
 * while it holds messages of the one-partition layout. Nothing was written. Fix the configuration (every client of
 * a queue must have the same count), or change the count as docs/operations/scaling.md describes.
 */
public final class PartitionCountException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public PartitionCountException(String message) {
        super(message);
    }
}
