package io.github.delayqueue.core.history;

/**
 * Why records of a queue's history were deleted ({@link io.github.delayqueue.core.DelayQueueListener#historyTrimmed}):
 * one of the two bounds of {@link io.github.delayqueue.core.ConsumerOptions.Builder#keepHistory}.
 */
public enum HistoryTrim {
    /** The count bound: the oldest records beyond it, deleted by the settle that kept newer ones. */
    COUNT,
    /** The age bound: records older than it, deleted by a consumer's periodic housekeeping. */
    AGE
}
