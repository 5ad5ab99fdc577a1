package io.github.delayqueue.spring.it;

import io.github.delayqueue.spring.DelayQueueCode;

public enum ItQueues implements DelayQueueCode {
    ORDER_TIMEOUT, ITEMS, FAILING, SLOW, TX, REPLACE, SEND_ONLY
}
