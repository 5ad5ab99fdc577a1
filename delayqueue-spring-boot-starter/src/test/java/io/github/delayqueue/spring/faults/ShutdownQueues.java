package io.github.delayqueue.spring.faults;

import io.github.delayqueue.spring.DelayQueueCode;

/** The queue of {@link ShutdownApp}. */
public enum ShutdownQueues implements DelayQueueCode {
    SHUTDOWN_WORK
}
