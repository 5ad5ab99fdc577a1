package io.github.delayqueue.core;

import java.time.Duration;

/**
 * Thrown by a handler when the downstream said "slow down" (an HTTP 429 or 503 with {@code Retry-After}, a quota
 * error): a {@link RetryLaterException} for the whole queue. The message goes back to the queue due after
 * {@code delay}, its attempt not counted, as {@link RetryLaterException} does; and claims of its queue hold for
 * {@code delay} on every instance (a hold-until time in Redis, on the Redis clock, that every claim reads), so no
 * consumer hands out another message of the queue before the downstream is ready. Messages already claimed
 * still run. A second hold while one lasts keeps the later end. On a partitioned queue every partition holds.
 * An interceptor sees the outcome {@link DeliveryOutcome#RETRY_LATER}.
 */
public class SlowDownException extends RetryLaterException {

    private static final long serialVersionUID = 1L;

    /** @param delay from zero to {@link DelayQueueClient#MAX_DELAY}: how long the queue holds, and when the message is due again */
    public SlowDownException(Duration delay) {
        this(delay, "slow down, for " + delay);
    }

    /** As {@link #SlowDownException(Duration)}; {@code reason} shows in logs at DEBUG */
    public SlowDownException(Duration delay, String reason) {
        super(delay, reason);
    }
}
