package io.github.delayqueue.core;

/** What became of one delivery, as {@link DeliveryInterceptor#afterDelivery} reports it. */
public enum DeliveryOutcome {
    /** The handler returned: the message is deleted. */
    ACKNOWLEDGED,
    /** The handler failed (or timed out) and the message is due again after a back-off. */
    RETRIED,
    /** The message moved to the dead letters: last attempt, a {@code noRetryFor} exception, an error
     * handler's decision, or a payload that cannot be decoded. */
    DEAD_LETTERED,
    /** The handler threw {@link RetryLaterException}: due again after its delay, the attempt not counted. */
    RETRY_LATER,
    /** The consumer stopped while the handler ran: the message stays in flight and is redelivered after its lease. */
    ABANDONED,
    /**
     * The message was cancelled while its handler ran ({@link DelayQueueClient#cancel}): the handler was interrupted
     * and whatever it did next is not settled (the message is gone).
     */
    CANCELLED
}
