package io.github.delayqueue.test.other;

import io.github.delayqueue.spring.DelayQueueCode;

/** Not under the test application's package, so not declared there. */
public enum OtherQueues implements DelayQueueCode {
    UNDECLARED
}
