package io.github.delayqueue.dashboard.app;

import io.github.delayqueue.spring.DelayQueueCode;

/** The test application's queues: EMAILS and SLOW have handlers, REPORTS is only sent to. */
public enum DashQueues implements DelayQueueCode {
    EMAILS, REPORTS, SLOW
}
