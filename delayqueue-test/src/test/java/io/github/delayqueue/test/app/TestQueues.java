package io.github.delayqueue.test.app;

import io.github.delayqueue.spring.DelayQueueCode;

/** The queues of the test application. */
public enum TestQueues implements DelayQueueCode {
    /** Handled by {@link PaymentTimeoutHandler}. */
    PAYMENT_TIMEOUT,
    /** Handled by {@link Handlers#remind}, payload a list of attendees. */
    REMINDER,
    /** Handled by {@link Handlers#poison}, which always fails. */
    POISON,
    /** Handled by {@link Handlers#slow}, which waits for {@link Recorder#release()}; one at a time. */
    SLOW,
    /** Handled by {@link Handlers#batch}, a batch handler. */
    BATCH,
    /** No handler in this application: only sent to. */
    SEND_ONLY
}
