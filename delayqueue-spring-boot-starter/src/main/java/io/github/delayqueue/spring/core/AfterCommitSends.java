package io.github.delayqueue.spring.core;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.PreparedSend;
import io.github.delayqueue.core.VersionedIntent;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The sends of one transaction, written after it commits and dropped if it rolls back, or if the
 * nested transaction (savepoint) they were made in rolls back. One instance per transaction (found
 * among the current synchronizations, so a suspended outer transaction keeps its own), sends in call
 * order. Used only by {@link TransactionAwareDelayQueueTemplate}; with it, the only classes of the starter
 * that need spring-tx.
 *
 * <p>With an outbox, sends made while the transaction runs on the outbox's database are also written there
 * just before the commit ({@link #beforeCommit}), in the transaction: a crash or a Redis failure after the
 * commit leaves their rows for the relay. They are written to Redis with their rows' keys as versions, so a row
 * the relay sends late never overwrites a newer intent for the same id. A send made after {@code beforeCommit} ran
 * (from another synchronization's {@code afterCommit}) gets its row in a transaction of its own before its write.
 * A failed write to Redis after the commit is logged, never thrown: thrown from {@code afterCommit} it would skip
 * the application's later after-commit work (other synchronizations, {@code @TransactionalEventListener}s), and
 * the caller's data is committed anyway. Job sets, members added to them and chains are deferred here too, in call
 * order with the sends, but never through the outbox.
 */
final class AfterCommitSends implements TransactionSynchronization {

    private static final Logger log = LoggerFactory.getLogger(AfterCommitSends.class);

    /**
     * Sends of one call; {@code rows} are their outbox rows once written before the commit. Or, with {@code write}, a
     * job set's send of one call (checked at the call, never through the outbox), {@code what} naming it in logs.
     */
    private static final class Pending {
        final QueueCatalog.@Nullable Queue queue;
        final @Nullable PreparedSend sends;
        final @Nullable SendOutbox outbox;
        final @Nullable Runnable write;
        final String what;
        final List<String> ids;
        @Nullable List<Long> rows;

        Pending(QueueCatalog.Queue queue, PreparedSend sends, @Nullable SendOutbox outbox) {
            this.queue = queue;
            this.sends = sends;
            this.outbox = outbox;
            this.write = null;
            this.what = "sending to queue '" + queue.name() + "'";
            this.ids = sends.ids();
        }

        Pending(String what, List<String> ids, Runnable write) {
            this.queue = null;
            this.sends = null;
            this.outbox = null;
            this.write = write;
            this.what = what;
            this.ids = List.copyOf(ids);
        }
    }

    private final List<Pending> pending = new ArrayList<>();
    /** How many sends were pending when each savepoint we were told of was created. */
    private final Map<Object, Integer> savepoints = new IdentityHashMap<>();
    private boolean sent;

    /** Whether a send now would be deferred: an actual transaction with synchronization is active. */
    static boolean inTransaction() {
        return TransactionSynchronizationManager.isSynchronizationActive()
                && TransactionSynchronizationManager.isActualTransactionActive();
    }

    /**
     * Defers prepared (validated, id-stamped, serialized) requests to after the current transaction commits;
     * with an {@code outbox}, they are also written to it before the commit.
     */
    static void defer(QueueCatalog.Queue queue, PreparedSend prepared, @Nullable SendOutbox outbox) {
        current().pending.add(new Pending(queue, prepared, outbox));
    }

    /**
     * Defers a job set's write (a set, members added to one, or a chain), checked by the caller, to after the current
     * transaction commits, in call order with the sends; {@code what} names it and {@code ids} are the ids it writes,
     * for the logs. Never through the outbox: a failure after the commit is logged.
     */
    static void defer(String what, List<String> ids, Runnable write) {
        current().pending.add(new Pending(what, ids, write));
    }

    private static AfterCommitSends current() {
        AfterCommitSends sends = null;
        for (TransactionSynchronization synchronization : TransactionSynchronizationManager.getSynchronizations()) {
            if (synchronization instanceof AfterCommitSends existing && !existing.sent) {
                sends = existing;
                break;
            }
        }
        if (sends == null) {
            sends = new AfterCommitSends();
            TransactionSynchronizationManager.registerSynchronization(sends);
        }
        return sends;
    }

    @Override
    public void savepoint(Object savepoint) {
        this.savepoints.put(savepoint, this.pending.size());
    }

    @Override
    public void savepointRollback(Object savepoint) {
        // a savepoint we were not told of was created before our first send: all of ours came after it
        Integer mark = this.savepoints.remove(savepoint);
        int keep = mark == null ? 0 : mark;
        if (keep < this.pending.size()) {
            List<Pending> dropped = this.pending.subList(keep, this.pending.size());
            log.debug("Nested transaction rolled back: dropped {} delay queue send(s)",
                    dropped.stream().mapToInt(p -> p.ids.size()).sum());
            dropped.clear();
        }
    }

    /** Writes the outbox rows of this transaction's sends, in it: they commit, or roll back, with its data. */
    @Override
    public void beforeCommit(boolean readOnly) {
        Map<SendOutbox, List<Pending>> byOutbox = new IdentityHashMap<>();
        for (Pending p : this.pending) {
            if (p.outbox != null && p.rows == null && p.sends != null) {
                byOutbox.computeIfAbsent(p.outbox, o -> new ArrayList<>()).add(p);
            }
        }
        byOutbox.forEach((outbox, sends) -> {
            List<Long> rows = outbox.write(sends.stream().map(p -> p.sends).toList());
            int from = 0;
            for (Pending p : sends) {
                int to = from + p.ids.size();
                p.rows = List.copyOf(rows.subList(from, to));
                from = to;
            }
        });
    }

    @Override
    public void afterCommit() {
        sendAll();
    }

    @Override
    public void afterCompletion(int status) {
        if (status == STATUS_COMMITTED) {
            if (!this.sent) {
                // registered while the other synchronizations ran afterCommit (e.g. from an
                // @TransactionalEventListener): Spring calls our afterCompletion but not our afterCommit
                sendAll();
            }
            return;
        }
        if (status == STATUS_ROLLED_BACK) {
            log.debug("Transaction rolled back: dropped {} delay queue send(s)", count());
        } else {
            log.warn("Transaction ended in an unknown state: dropped {} delay queue send(s) of ids {}", count(), ids());
        }
        this.pending.clear();
    }

    /**
     * Writes every pending send to Redis; logs failures (the rows of outbox sends stay for the relay), throws none.
     * An outbox send added after {@link #beforeCommit} ran (from another synchronization's {@code afterCommit}, or
     * registered then) has no row yet: it gets one in a transaction of its own first.
     */
    private void sendAll() {
        this.sent = true;
        for (Pending p : this.pending) {
            if (p.outbox != null && p.rows == null && p.queue != null && p.sends != null) {
                p.rows = writeAlone(p.queue, p.sends, p.outbox);
            }
            List<String> ids = p.ids;
            try {
                if (p.write != null) {
                    p.write.run();
                } else if (p.rows != null && p.outbox != null) {
                    apply(p.queue, p.sends, p.rows, p.outbox);
                } else {
                    p.queue.client().send(p.sends);
                }
            } catch (RuntimeException e) {
                if (p.rows != null) {
                    log.warn("Transaction committed but {} failed; message ids {} stay in the outbox and its relay "
                            + "will send them", p.what, ids, e);
                } else {
                    log.error("Transaction committed but {} failed; ids {} were not sent", p.what, ids, e);
                }
            }
        }
        this.pending.clear();
    }

    /**
     * The rows of a send made after its transaction committed, in a transaction of their own; {@code null} (the send
     * then goes to Redis without them, and that is logged) if they cannot be written.
     */
    static @Nullable List<Long> writeAlone(QueueCatalog.Queue queue, PreparedSend sends, SendOutbox outbox) {
        try {
            return outbox.writeAlone(List.of(sends));
        } catch (RuntimeException e) {
            log.error("A send to queue '{}' made after its transaction committed could not be written to the outbox; "
                    + "message ids {} are sent to Redis without it", queue.name(), sends.ids(), e);
            return null;
        }
    }

    /**
     * Writes outbox sends to Redis under their rows' keys as versions (a newer intent for an id already there wins),
     * then lets their rows go. Throws what Redis throws; the rows then stay for the relay.
     */
    static void apply(QueueCatalog.Queue queue, PreparedSend sends, List<Long> rows, SendOutbox outbox) {
        List<VersionedIntent> intents = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            intents.add(VersionedIntent.send(sends.messages().get(i), rows.get(i)));
        }
        queue.client().applyVersioned(queue.name(), intents, outbox.versionRetention());
        try {
            outbox.sent(rows);
        } catch (RuntimeException e) {
            // the relay may send them again: same versions, so a replay changes nothing
            log.warn("Could not release the outbox rows of message ids {} in queue '{}'", sends.ids(), queue.name(), e);
        }
    }

    private int count() {
        return this.pending.stream().mapToInt(p -> p.ids.size()).sum();
    }

    private List<String> ids() {
        return this.pending.stream().flatMap(p -> p.ids.stream()).toList();
    }
}
