package io.github.delayqueue.spring.core;

import java.util.List;

import io.github.delayqueue.core.PreparedSend;
import io.github.delayqueue.core.SendRequest;

/**
 * The auto-configured {@link io.github.delayqueue.spring.DelayQueueTemplate} when spring-tx is on the
 * class path and {@code delayqueue.producer.transaction-aware} is on: inside an active transaction a
 * send is checked and encoded at the call and written after the commit ({@link AfterCommitSends}),
 * dropped on rollback; outside one it is written at once. Selected by the auto-configuration's
 * {@code @ConditionalOnClass}, so without spring-tx this class is never loaded.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class TransactionAwareDelayQueueTemplate extends DefaultDelayQueueTemplate {

    public TransactionAwareDelayQueueTemplate(QueueCatalog catalog) {
        super(catalog);
    }

    /** {@code observer} wraps every send: inside a transaction, the check and deferral (the trace context is the caller's). */
    public TransactionAwareDelayQueueTemplate(QueueCatalog catalog, SendObserver observer) {
        super(catalog, observer);
    }

    @Override
    List<String> send(QueueCatalog.Queue queue, List<SendRequest> requests) {
        if (!AfterCommitSends.inTransaction()) {
            return super.send(queue, requests);
        }
        PreparedSend prepared = queue.client().prepare(queue.name(), requests); // checked and encoded now
        AfterCommitSends.defer(queue, prepared);
        return prepared.ids();
    }
}
