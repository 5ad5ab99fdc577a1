package io.github.delayqueue.sample;

import io.github.delayqueue.spring.DelayQueueCode;

/**
 * The delay queues of this application. The starter finds this enum in the application's package;
 * each constant's name is its queue code, which {@code @DelayHandler} and {@code delayqueue.queues.*}
 * refer to.
 */
public enum SampleQueues implements DelayQueueCode {

    /** Cancels an order that is still unpaid when its payment window closes. */
    ORDER_PAYMENT_TIMEOUT,

    /** Notifies a meeting's attendees a lead time before it starts. */
    MEETING_REMINDER,

    /** The ticks of the recurring report job ({@code delayqueue.schedules.nightly-report} in application.yml). */
    NIGHTLY_REPORT,

    /** One e-mail of a campaign: each is a member of its campaign's job set. */
    CAMPAIGN_EMAIL,

    /** A campaign's report: the success callback of its job set, sent once every e-mail of it went out. */
    CAMPAIGN_REPORT
}
