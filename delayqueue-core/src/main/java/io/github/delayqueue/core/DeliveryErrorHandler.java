package io.github.delayqueue.core;

/**
 * Decides what a failed delivery of one queue does, instead of the default (retry with the consumer's
 * back-off, dead letter on the last attempt or for a {@code noRetryFor} exception). Set with
 * {@link ConsumerOptions.Builder#errorHandler}. Called on the handler's thread (on the lease keeper's for
 * a timeout); if it throws, the proposed action is taken and the exception logged.
 */
@FunctionalInterface
public interface DeliveryErrorHandler {

    /**
     * @param context  the delivery
     * @param error    what the handler threw, or a {@link java.util.concurrent.TimeoutException} for a handler
     *                 past its timeout
     * @param proposed what the consumer would do without this handler
     * @return the action to take (return {@code proposed} to keep it)
     */
    FailureAction onFailure(MessageContext context, Throwable error, FailureAction proposed);
}
