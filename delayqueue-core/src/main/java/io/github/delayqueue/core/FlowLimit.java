package io.github.delayqueue.core;

/** A flow limit that held due messages back in a claim ({@code DelayQueueListener.claimThrottled}). */
public enum FlowLimit {
    /** The queue's {@link RateLimit}: the next permit is later. */
    RATE_LIMIT,
    /** The queue's {@code maxInFlight}: that many messages are in flight over every instance. */
    MAX_IN_FLIGHT,
    /** A handler threw {@code SlowDownException}: claims of the queue hold until its delay has passed. */
    SLOW_DOWN
}
