/**
 * A message's life after the fact: where one message stands ({@link io.github.delayqueue.core.history.MessageStatus},
 * read with {@link io.github.delayqueue.core.DelayQueueClient#status}) and the record a queue that keeps its history
 * holds of each message its consumers settled ({@link io.github.delayqueue.core.history.SettledMessage}), listed newest
 * first a page at a time ({@link io.github.delayqueue.core.history.HistoryPage}, read with
 * {@link io.github.delayqueue.core.DelayQueueClient#history}). Values only:
 * the records are written by the engine with the acknowledgement that settles the message, and their stored format
 * is owned by {@code protocol.HistoryRecord}.
 */
@NullMarked
package io.github.delayqueue.core.history;

import org.jspecify.annotations.NullMarked;
