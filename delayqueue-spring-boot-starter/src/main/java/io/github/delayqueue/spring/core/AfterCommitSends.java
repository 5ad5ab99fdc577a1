package io.github.delayqueue.spring.core;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.PreparedSend;
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
 */
final class AfterCommitSends implements TransactionSynchronization {

    private static final Logger log = LoggerFactory.getLogger(AfterCommitSends.class);

    private record Pending(QueueCatalog.Queue queue, PreparedSend sends) {
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

    /** Defers prepared (validated, id-stamped, serialized) requests to after the current transaction commits. */
    static void defer(QueueCatalog.Queue queue, PreparedSend prepared) {
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
        sends.pending.add(new Pending(queue, prepared));
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
                    dropped.stream().mapToInt(p -> p.sends().ids().size()).sum());
            dropped.clear();
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
                try {
                    sendAll();
                } catch (RuntimeException e) {
                    // already logged per message; Spring would only log it again at a lower level
                }
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

    private void sendAll() {
        this.sent = true;
        DelayQueueException first = null;
        for (Pending p : this.pending) {
            try {
                p.queue().client().send(p.sends());
            } catch (RuntimeException e) {
                List<String> ids = p.sends().ids();
                log.error("Transaction committed but sending to queue '{}' failed; message ids {} were not sent",
                        p.queue().name(), ids, e);
                DelayQueueException failure = new DelayQueueException("Transaction committed but sending to queue '"
                        + p.queue().name() + "' failed; message ids " + ids + " were not sent: " + e, e);
                if (first == null) {
                    first = failure;
                } else {
                    first.addSuppressed(failure);
                }
            }
        }
        this.pending.clear();
        if (first != null) {
            throw first;
        }
    }

    private int count() {
        return this.pending.stream().mapToInt(p -> p.sends().ids().size()).sum();
    }

    private List<String> ids() {
        return this.pending.stream().flatMap(p -> p.sends().ids().stream()).toList();
    }
}
