package io.github.delayqueue.spring.core;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.PreparedSend;
import io.github.delayqueue.core.PreparedSet;
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
 * the caller's data is committed anyway.
 *
 * <p>A job set is held the same way, as one unit: with an outbox, its rows (openings, members, seal:
 * {@link SendOutbox#writeSet}) are written before the commit, and after it the set is opened, its members sent and
 * the set sealed ({@link #applySet}); without one, it is sent after the commit as {@code DelayQueueClient.send} sends
 * a prepared set. Members added to a set and chains are deferred too, in call order with the sends, checked at the
 * call, but never through the outbox.
 */
final class AfterCommitSends implements TransactionSynchronization {

    private static final Logger log = LoggerFactory.getLogger(AfterCommitSends.class);

    /**
     * Sends of one call, or one job set ({@code set}, then {@code sends} is null); {@code rows} (or {@code setRows})
     * are their outbox rows once written before the commit. Or, with {@code write}, members added to a set or a chain
     * (checked at the call, never through the outbox), {@code what} naming it in logs.
     */
    private static final class Pending {
        final QueueCatalog.@Nullable Queue queue;
        final @Nullable PreparedSend sends;
        final @Nullable PreparedSet set;
        final @Nullable SendOutbox outbox;
        final @Nullable Runnable write;
        final String what;
        final List<String> ids;
        @Nullable List<Long> rows;
        SendOutbox.@Nullable SetRows setRows;

        Pending(QueueCatalog.Queue queue, @Nullable PreparedSend sends, @Nullable PreparedSet set,
                @Nullable SendOutbox outbox) {
            this.queue = queue;
            this.sends = sends;
            this.set = set;
            this.outbox = outbox;
            this.write = null;
            this.ids = sends != null ? sends.ids() : set.sends().stream().flatMap(s -> s.ids().stream()).toList();
            this.what = sends != null ? "sending to queue '" + queue.name() + "'"
                    : "job set '" + set.id() + "' (" + this.ids.size() + " members)";
        }

        Pending(String what, List<String> ids, Runnable write) {
            this.queue = null;
            this.sends = null;
            this.set = null;
            this.outbox = null;
            this.write = write;
            this.what = what;
            this.ids = List.copyOf(ids);
        }

        boolean written() {
            return this.rows != null || this.setRows != null;
        }

        List<String> ids() {
            return this.ids;
        }

        /** For a log line. */
        String what() {
            return this.what;
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
        current().pending.add(new Pending(queue, prepared, null, outbox));
    }

    /**
     * Defers a prepared job set to after the current transaction commits, sent through {@code queue}'s client (the one
     * that prepared it); with an {@code outbox}, its rows are also written to it before the commit.
     */
    static void deferSet(QueueCatalog.Queue queue, PreparedSet prepared, @Nullable SendOutbox outbox) {
        current().pending.add(new Pending(queue, null, prepared, outbox));
    }

    /**
     * Defers a write (members added to a job set, or a chain), checked by the caller, to after the current
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
                    dropped.stream().mapToInt(p -> p.ids().size()).sum());
            dropped.clear();
        }
    }

    /**
     * Writes the outbox rows of this transaction's sends, in it: they commit, or roll back, with its data. Rows are
     * written in call order (consecutive sends in one batch, each job set in one of its own), so their keys, the
     * versions Redis compares, follow the calls.
     */
    @Override
    public void beforeCommit(boolean readOnly) {
        Map<SendOutbox, List<Pending>> byOutbox = new IdentityHashMap<>();
        for (Pending p : this.pending) {
            if (p.outbox != null && !p.written() && p.write == null) {
                byOutbox.computeIfAbsent(p.outbox, o -> new ArrayList<>()).add(p);
            }
        }
        byOutbox.forEach((outbox, all) -> {
            List<Pending> sends = new ArrayList<>();
            for (Pending p : all) {
                if (p.set == null) {
                    sends.add(p);
                    continue;
                }
                write(outbox, sends);
                sends.clear();
                p.setRows = outbox.writeSet(p.queue.name(), p.set);
            }
            write(outbox, sends);
        });
    }

    private static void write(SendOutbox outbox, List<Pending> sends) {
        if (sends.isEmpty()) {
            return;
        }
        List<Long> rows = outbox.write(sends.stream().map(p -> p.sends).toList());
        int from = 0;
        for (Pending p : sends) {
            int to = from + p.sends.ids().size();
            p.rows = List.copyOf(rows.subList(from, to));
            from = to;
        }
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
            if (p.set != null) {
                sendSet(p);
                continue;
            }
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

    /** {@link #sendAll} for a job set: through its outbox rows if it has some (written now if not yet), else directly. */
    private static void sendSet(Pending p) {
        PreparedSet set = p.set;
        if (p.outbox != null && p.setRows == null) {
            p.setRows = writeSetAlone(p.queue, set, p.outbox);
        }
        try {
            if (p.setRows != null && p.outbox != null) {
                applySet(p.queue, set, p.setRows, p.outbox);
            } else {
                p.queue.client().send(set);
            }
        } catch (RuntimeException e) {
            if (p.setRows != null) {
                log.warn("Transaction committed but sending {} failed; what is not in Redis yet stays in the outbox and "
                        + "its relay will send it (the set calls back only once it is complete)", p.what(), e);
            } else {
                log.error("Transaction committed but sending {} failed; it was not sent, or only in part (unsealed: it "
                        + "calls back only if it is sent again with the same ids)", p.what(), e);
            }
        }
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

    /** The rows of a job set sent after its transaction committed; {@code null} as {@link #writeAlone}. */
    static SendOutbox.@Nullable SetRows writeSetAlone(QueueCatalog.Queue queue, PreparedSet set, SendOutbox outbox) {
        try {
            return outbox.writeSetAlone(queue.name(), set);
        } catch (RuntimeException e) {
            log.error("Job set '{}', sent after its transaction committed, could not be written to the outbox; it is sent "
                    + "to Redis without it", set.id(), e);
            return null;
        }
    }

    /**
     * Writes outbox sends to Redis under their rows' keys as versions (a newer intent for an id already there wins),
     * then lets their rows go. Throws what Redis throws; the rows then stay for the relay.
     */
    static void apply(QueueCatalog.Queue queue, PreparedSend sends, List<Long> rows, SendOutbox outbox) {
        queue.client().applyVersioned(queue.name(), intents(sends, rows), outbox.versionRetention());
        release(outbox, rows, "message ids " + sends.ids() + " in queue '" + queue.name() + "'");
    }

    /**
     * Writes a job set from its outbox rows' steps, in their order: opens it (every opening row at once), sends its
     * members under their rows' keys as versions, seals it; then lets go the rows of the steps that got through.
     * Throws at the first step that fails: the rows of that step and the later ones stay for the relay, which applies
     * them in the same order (each step is idempotent, and the set calls back only after its seal and once every
     * member the opening registered has settled, so no replay fires a callback early or twice).
     */
    static void applySet(QueueCatalog.Queue queue, PreparedSet set, SendOutbox.SetRows rows, SendOutbox outbox) {
        List<Long> done = new ArrayList<>();
        try {
            queue.client().openSet(set.opening());
            done.addAll(rows.openings());
            for (int i = 0; i < set.sends().size(); i++) {
                PreparedSend batch = set.sends().get(i);
                List<Long> batchRows = rows.members().get(i);
                queue.client().applyVersioned(batch.queue(), intents(batch, batchRows), outbox.versionRetention());
                done.addAll(batchRows);
            }
            queue.client().sealSet(set.id());
            done.add(rows.seal());
        } finally {
            if (!done.isEmpty()) {
                release(outbox, done, "job set '" + set.id() + "'");
            }
        }
    }

    private static List<VersionedIntent> intents(PreparedSend sends, List<Long> rows) {
        List<VersionedIntent> intents = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            intents.add(VersionedIntent.send(sends.messages().get(i), rows.get(i)));
        }
        return intents;
    }

    private static void release(SendOutbox outbox, List<Long> rows, String what) {
        try {
            outbox.sent(rows);
        } catch (RuntimeException e) {
            // the relay may send them again: same versions, so a replay changes nothing
            log.warn("Could not release the outbox rows of {}", what, e);
        }
    }

    private int count() {
        return this.pending.stream().mapToInt(p -> p.ids().size()).sum();
    }

    private List<String> ids() {
        return this.pending.stream().flatMap(p -> p.ids().stream()).toList();
    }
}
