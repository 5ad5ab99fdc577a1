package io.github.delayqueue.core;

import java.time.Duration;

import io.github.delayqueue.core.internal.Checks;

/**
 * Thrown by a handler that cannot do its work yet and wants the message again after {@code delay}: not a
 * failure. The message goes back to the queue due after the delay (on the Redis clock), the delivery's
 * attempt is not counted (so asking again and again never dead-letters it), no error is recorded, and it
 * is logged at DEBUG only. An interceptor sees the outcome {@link DeliveryOutcome#RETRY_LATER}.
 * {@link SlowDownException}, a subclass, also holds the claims of the whole queue for the delay.
 */
public class RetryLaterException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final Duration delay;

    /** @param delay from zero to {@link DelayQueueClient#MAX_DELAY} */
    public RetryLaterException(Duration delay) {
        this(delay, "retry later, in " + delay);
    }

    /** @param delay from zero to {@link DelayQueueClient#MAX_DELAY}; {@code reason} shows in logs at DEBUG */
    public RetryLaterException(Duration delay, String reason) {
        super(reason, null, false, false); // control flow, not an error: no stack trace to fill
        Checks.require(delay != null && !delay.isNegative(), "delay must not be null or negative");
        Checks.atMostMaxDelay(delay, "delay");
        this.delay = delay;
    }

    public Duration delay() {
        return delay;
    }
}
