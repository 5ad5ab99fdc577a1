package io.github.delayqueue.spring;

import java.lang.reflect.Type;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import org.redisson.client.codec.Codec;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.GroupStats;
import io.github.delayqueue.core.ImportReport;
import io.github.delayqueue.core.MessagePage;
import io.github.delayqueue.core.history.HistoryPage;
import io.github.delayqueue.core.activity.ActivityMinute;
import io.github.delayqueue.core.history.MessageStatus;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.core.sets.SetStatus;

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

    /**
     * The engine client that serves the queue (its key prefix, partitions and Redis connection), for what this
     * interface does not wrap; the queue's name there is {@code code.code()}.
     */
    DelayQueueClient client(DelayQueueCode code);

    /**
     * The payload type of the queue's {@link DelayHandler @DelayHandler} in this application; empty when it has none
     * (a queue it only sends to). Batch handlers give their item type.
     */
    Optional<Type> payloadType(DelayQueueCode code);

    /** Pending, due, in-flight and dead counts of one queue, read atomically. */
    QueueStats stats(DelayQueueCode code);

    /** {@link #stats(DelayQueueCode)} of every declared queue, in {@link #codes()} order. */
    List<QueueStats> stats();

    /**
     * The groups of the queue's grouped messages ({@code SendOptions.group}) furthest behind, at most {@code limit}
     * (1 to 1000): see {@code DelayQueueClient.groups}. A default method, so that implementations written before
     * groups existed still compile: they list none.
     */
    default List<GroupStats> groups(DelayQueueCode code, int limit) {
        return List.of();
    }

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
     * Where the message with this id stands: pending, in flight, acknowledged or dead-lettered (while the queue's
     * history keeps its record: {@code delayqueue.consumer.history.*} or per queue), or unknown. One read.
     */
    MessageStatus status(DelayQueueCode code, String id);

    /**
     * A page of the queue's history, the latest settled message first: the records its consumers left of the messages
     * they acknowledged or dead-lettered, while the queue keeps its history ({@code delayqueue.consumer.history.*} or
     * per queue) and until they are trimmed; {@code limit} (1 to 1000) from rank {@code offset} (0 or more; 0 is the
     * latest). Empty for a queue that keeps none. See {@code DelayQueueClient.history} for a partitioned queue's bound.
     */
    HistoryPage history(DelayQueueCode code, long offset, int limit);

    /** The queue's {@code limit} (1 to 1000) latest history records: {@link #history(DelayQueueCode, long, int)} from 0. */
    default HistoryPage history(DelayQueueCode code, int limit) {
        return history(code, 0, limit);
    }

    /**
     * What the queue's consumers did in each of the last 60 minutes of the Redis clock, the oldest first: messages
     * handled, retried and dead-lettered and the lateness of the handlers started, summed over every instance
     * ({@code delayqueue.activity.enabled}); zeros where nothing happened. See {@code DelayQueueClient.activity}. One
     * read. A default method, so that implementations written before it still compile: the queue's engine client
     * reads it.
     */
    default List<ActivityMinute> activity(DelayQueueCode code) {
        return client(code).activity(code.code());
    }

    /**
     * Where a job set stands ({@code DelayQueueTemplate.sendSet}): its counts, whether it is sealed, its callbacks
     * sent, and up to 100 of its dead members, the first to die first. Empty for a set that does not exist (never
     * sent, or past its retention). A set's keys are under the key prefix of its queues: with queues under several
     * prefixes, each is looked in, in the order of {@link #codes()}. A default method, so that implementations
     * written before job sets still compile: it reads with the engine clients of the declared queues.
     *
     * @throws IllegalArgumentException on an invalid set id ({@link JobSet#checkId})
     */
    default Optional<SetStatus> setStatus(String setId) {
        JobSet.checkId(setId);
        java.util.Set<String> prefixes = new java.util.HashSet<>();
        for (DelayQueueCode code : codes()) {
            DelayQueueClient client = client(code);
            if (prefixes.add(client.options().keyPrefix())) {
                Optional<SetStatus> status = client.setStatus(setId);
                if (status.isPresent()) {
                    return status;
                }
            }
        }
        return Optional.empty();
    }

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

    /**
     * Pauses the queue in every application on this Redis and key prefix: within one poll interval no consumer
     * is handed a message until {@link #resume}. Sends go on; running handlers finish; the pause is stored in
     * Redis and outlives restarts. Pausing a paused queue changes nothing.
     */
    void pause(DelayQueueCode code);

    /** Resumes a paused queue; its consumers are woken at once. Resuming a queue that is not paused changes nothing. */
    void resume(DelayQueueCode code);

    /** Whether the queue is paused, as Redis says now. */
    boolean isPaused(DelayQueueCode code);

    /** Removes a pending or in-flight message. Returns true if it existed (a running handler is not interrupted). */
    boolean cancel(DelayQueueCode code, String id);

    /**
     * Makes a pending message due now. Returns false if no pending message has this id: never sent, already
     * delivered, or in flight (a message being handled is not touched).
     */
    boolean runNow(DelayQueueCode code, String id);

    /**
     * Imports the jobs still pending in a Redisson {@code RDelayedQueue} into the queue, each due at its Redisson
     * due time, the decoded values as payloads: {@link #importFromRDelayedQueue(DelayQueueCode, String, Codec,
     * boolean, Function)} with the identity mapping.
     */
    default ImportReport importFromRDelayedQueue(DelayQueueCode code, String redissonQueueName, Codec codec,
            boolean dryRun) {
        return importFromRDelayedQueue(code, redissonQueueName, codec, dryRun, Function.identity());
    }

    /**
     * Imports the jobs still pending in the Redisson {@code RDelayedQueue} named {@code redissonQueueName} (the name
     * of the blocking queue it was created on) into the queue of {@code code}, with
     * {@link io.github.delayqueue.core.RDelayedQueueImporter}: each entry is decoded with {@code codec} (the codec the
     * old application used; Redisson's default is {@code Kryo5Codec}), turned into a payload by {@code mapping},
     * written due at its Redisson due time (past ones at once) and only then removed from Redisson's structures.
     * Restartable: a run interrupted at any point and run again delivers every job once. When this application has a
     * handler for the queue, each payload must bind to the handler's payload type; an entry that does not, or that
     * does not decode, is reported in {@link ImportReport#failures()} and left in Redisson. A dry run only reads and
     * counts. Stop the old application's Redisson consumers first (see {@code docs/guides/migrating-from-rdelayedqueue.md}).
     *
     * @throws IllegalArgumentException for a {@code null} or undeclared code, a {@code null} or blank name, a
     *                                  {@code null} codec or mapping; nothing is read or written then
     * @throws io.github.delayqueue.core.ImportInProgressException if another import (in this JVM or another) holds
     *                                  the import lease of the queue's key prefix; nothing is read or written then
     */
    ImportReport importFromRDelayedQueue(DelayQueueCode code, String redissonQueueName, Codec codec, boolean dryRun,
            Function<Object, ?> mapping);
}
