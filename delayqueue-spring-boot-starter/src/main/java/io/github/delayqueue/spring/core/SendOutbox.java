package io.github.delayqueue.spring.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.github.delayqueue.core.PreparedSend;
import io.github.delayqueue.core.PreparedSet;
import io.github.delayqueue.core.VersionedIntent;
import org.jspecify.annotations.Nullable;

/**
 * Where {@link TransactionAwareDelayQueueTemplate} keeps the sends of a transaction so that they outlive a
 * crash or a Redis outage between the commit and the write to Redis: the transactional outbox
 * ({@code delayqueue.producer.outbox.enabled}). The JDBC implementation writes one row per intent (a message
 * sent, a cancel, a reschedule); a row's key is its intent's version, which Redis checks
 * ({@link io.github.delayqueue.core.DelayQueueClient#applyVersioned}), so that per message id the newest row wins
 * whichever path writes it. A relay sends the rows the after-commit write did not.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public interface SendOutbox {

    /** Whether the current transaction can hold the outbox's rows: it runs on the outbox's database. */
    boolean coversCurrentTransaction();

    /**
     * Writes one row per message of {@code sends}, in order, inside the current transaction (called just
     * before it commits); returns the rows' keys in the same order. A failure fails the commit.
     */
    List<Long> write(List<PreparedSend> sends);

    /**
     * Writes one row per message of {@code sends}, in order, in a transaction of its own that has committed when
     * this returns (for a send made after the caller's transaction committed); returns the rows' keys.
     */
    List<Long> writeAlone(List<PreparedSend> sends);

    /**
     * Writes the row of a cancel or reschedule of {@code id} (a reschedule with one of {@code delay} and
     * {@code dueAt}) in a transaction of its own, committed when this returns; returns its key.
     */
    long writeAlone(String queue, VersionedIntent.Kind kind, String id, @Nullable Duration delay, @Nullable Instant dueAt);

    /**
     * Writes the rows of a job set ({@link SetRows}) inside the current transaction (called just before it commits);
     * {@code queue} is a queue of the client that prepared it, whose client the relay opens and seals the set with. A
     * failure fails the commit.
     */
    SetRows writeSet(String queue, PreparedSet set);

    /** {@link #writeSet} in a transaction of its own, committed when this returns (a set sent after its transaction). */
    SetRows writeSetAlone(String queue, PreparedSet set);

    /**
     * The keys of a job set's rows, in the order they were written: its opening rows, its members' rows per
     * {@link PreparedSet#sends()} batch (one key per message, in order), and its seal row.
     */
    record SetRows(List<Long> openings, List<List<Long>> members, long seal) {

        public SetRows {
            openings = List.copyOf(openings);
            members = members.stream().map(List::copyOf).toList();
        }
    }

    /** The intents of these rows reached Redis: their rows may go (at once or soon, on another thread). */
    void sent(List<Long> rows);

    /** How long Redis keeps the version of an id written through the outbox ({@code version-retention}). */
    Duration versionRetention();
}
