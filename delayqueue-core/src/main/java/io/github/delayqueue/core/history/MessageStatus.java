package io.github.delayqueue.core.history;

import org.jspecify.annotations.Nullable;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.QueuedMessage;

/**
 * Where one message stands, as {@link DelayQueueClient#status} read it: live (pending or in flight, {@link #live}),
 * settled and still in the queue's history ({@link #settled}), or unknown. A snapshot: the message may move on as it is
 * read. A message sent again under an id that has a record is live first: its record shows its earlier run until the
 * new one settles.
 *
 * @param id      the message id
 * @param state   where it stands
 * @param live    the message while {@link State#PENDING} or {@link State#IN_FLIGHT}, else {@code null}
 * @param running where and since when it runs while {@link State#IN_FLIGHT}, once the consumer that claimed it (one
 *                that keeps the queue's history) wrote it ({@link RunningMessage}); else {@code null}
 * @param settled its record while {@link State#COMPLETED}, {@link State#DEAD_LETTERED} or {@link State#CANCELLED},
 *                else {@code null}
 */
public record MessageStatus(String id, State state, @Nullable QueuedMessage live, @Nullable RunningMessage running,
        @Nullable SettledMessage settled) {

    /** Where a message stands. */
    public enum State {
        /** Waiting for its due time or for a consumer. */
        PENDING,
        /** Claimed by a consumer: its handler may be running. */
        IN_FLIGHT,
        /** Acknowledged, and its record kept in the history. */
        COMPLETED,
        /** Dead-lettered by a consumer, and its record kept in the history (see {@link DelayQueueClient#deadLetters}). */
        DEAD_LETTERED,
        /** Cancelled while it had a running record ({@link RunningMessage}), and its record kept in the history. */
        CANCELLED,
        /**
         * Neither live nor in the history: never sent, cancelled before it had a running record, or settled by a
         * consumer that keeps no history (or its record trimmed); also a message a claim dead-lettered (its lease expired on its last attempt, or it
         * expired), which has no record.
         */
        UNKNOWN
    }
}
