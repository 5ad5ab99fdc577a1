package io.github.delayqueue.spring.core;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.core.PreparedSend;
import io.github.delayqueue.core.SendRequest;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The auto-configured {@link io.github.delayqueue.spring.DelayQueueTemplate} when spring-tx is on the
 * class path and {@code delayqueue.producer.transaction-aware} is on: inside an active transaction a
 * send is checked and encoded at the call and written after the commit ({@link AfterCommitSends}),
 * dropped on rollback; outside one it is written at once. Selected by the auto-configuration's
 * {@code @ConditionalOnClass}, so without spring-tx this class is never loaded.
 *
 * <p>With an outbox ({@code delayqueue.producer.outbox.enabled}), a send inside a transaction on the
 * outbox's database is also written to the outbox table in that transaction, so the message exists if and
 * only if the transaction commits. A send inside a read-only transaction is then refused at the call (its
 * row could not be written); one inside a transaction on another resource is written after the commit
 * without the outbox, and logged once.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class TransactionAwareDelayQueueTemplate extends DefaultDelayQueueTemplate {

    private static final Logger log = LoggerFactory.getLogger(TransactionAwareDelayQueueTemplate.class);

    private final @Nullable SendOutbox outbox;
    private final AtomicBoolean warnedOutsideOutbox = new AtomicBoolean();

    public TransactionAwareDelayQueueTemplate(QueueCatalog catalog) {
        this(catalog, null, SendObserver.NONE);
    }

    /**
     * With {@code outbox}, sends inside a transaction on the outbox's database are kept in it until they reach Redis.
     * {@code observer} wraps every send: inside a transaction, the check and deferral (the trace context is the caller's).
     */
    public TransactionAwareDelayQueueTemplate(QueueCatalog catalog, @Nullable SendOutbox outbox, SendObserver observer) {
        super(catalog, observer);
        this.outbox = outbox;
    }

    @Override
    List<String> send(QueueCatalog.Queue queue, List<SendRequest> requests) {
        if (!AfterCommitSends.inTransaction()) {
            return super.send(queue, requests);
        }
        PreparedSend prepared = queue.client().prepare(queue.name(), requests); // checked and encoded now
        AfterCommitSends.defer(queue, prepared, outboxOfCurrentTransaction(queue));
        return prepared.ids();
    }

    private @Nullable SendOutbox outboxOfCurrentTransaction(QueueCatalog.Queue queue) {
        SendOutbox outbox = this.outbox;
        if (outbox == null) {
            return null;
        }
        if (!outbox.coversCurrentTransaction()) {
            if (this.warnedOutsideOutbox.compareAndSet(false, true)) {
                log.warn("A send to queue '{}' was made in a transaction that does not run on the outbox's DataSource: "
                        + "it is written to Redis after the commit without the outbox (so a crash or a Redis failure "
                        + "right after the commit loses it). Logged once.", queue.name());
            }
            return null;
        }
        if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
            throw new IllegalStateException("Cannot send to queue '" + queue.name() + "' in a read-only transaction: "
                    + "with delayqueue.producer.outbox.enabled=true the message is written to the outbox table in the "
                    + "sending transaction. Send from a read-write transaction.");
        }
        return outbox;
    }
}
