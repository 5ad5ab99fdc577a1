package io.github.delayqueue.spring;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.MessagePage;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueuedMessage;

/**
 * Statistics and dead-letter management of the application's declared queues, for dashboards,
 * admin endpoints and operations scripts. Every method acts on Redis at once. Bad input throws
 * {@link IllegalArgumentException} and changes nothing: a {@code null} or undeclared code, a
 * {@code null} id collection or more than 1000 ids in one call, a {@code null} or blank id, a limit
 * outside 1 to 1000. A Redis failure throws {@link io.github.delayqueue.core.DelayQueueException}.
 */
public interface DelayQueueAdmin {

    /** The declared queue codes, sorted by code. */
    List<DelayQueueCode> codes();

    /**
     * The declared code whose {@link DelayQueueCode#code()} is {@code code}, for example from a URL;
     * empty for an unknown or {@code null} code.
     */
    Optional<DelayQueueCode> find(String code);

    /** Pending, due, in-flight and dead counts of one queue, read atomically. */
    QueueStats stats(DelayQueueCode code);

    /** {@link #stats(DelayQueueCode)} of every declared queue, in {@link #codes()} order. */
    List<QueueStats> stats();

    /** The oldest dead letters of the queue, at most {@code limit} (1 to 1000). */
    List<DeadLetter> deadLetters(DelayQueueCode code, int limit);

    /**
     * A page of the queue's dead letters, the oldest first: at most {@code limit} (1 to 1000) from position
     * {@code offset} (0 or more; 0 is the oldest). Empty past the end. One bounded read.
     */
    List<DeadLetter> deadLetters(DelayQueueCode code, long offset, int limit);

    /**
     * A page of the queue's pending messages in due order, those already due first: {@code limit} (1 to 1000)
     * from rank {@code offset} (0 or more; 0 is the next to be claimed). Empty past the end. One bounded read.
     */
    MessagePage pending(DelayQueueCode code, long offset, int limit);

    /** A page of the queue's in-flight messages, the earliest lease deadline first; bounds as {@link #pending}. */
    MessagePage inFlight(DelayQueueCode code, long offset, int limit);

    /** The live (pending or in-flight) message with this id, or empty if there is none. */
    Optional<QueuedMessage> message(DelayQueueCode code, String id);

    /**
     * Moves a pending message to a new due time (Redis clock; an instant in the past makes it due now).
     * Returns false if no pending message has this id: delivered, in flight, dead or never sent.
     */
    boolean reschedule(DelayQueueCode code, String id, Instant dueAt);

    /**
     * Sends the given dead letters again, due now, attempts reset. {@code keys} are {@link DeadLetter#key()}s
     * (an id that died twice has two dead letters, each with its own key). A dead letter whose id is live
     * again stays. Returns how many were requeued.
     */
    long requeue(DelayQueueCode code, Collection<String> keys);

    /** Requeues every dead letter of the queue. Returns how many were requeued. */
    long requeueAll(DelayQueueCode code);

    /** Deletes the dead letters with the given {@link DeadLetter#key()}s. Returns how many existed. */
    long purge(DelayQueueCode code, Collection<String> keys);

    /** Deletes every dead letter of the queue. Returns how many were deleted. */
    long purgeAll(DelayQueueCode code);
}
