package io.github.delayqueue.spring.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.github.delayqueue.core.PreparedSend;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueTemplate;

/** The auto-configured {@link DelayQueueTemplate}: declared codes only, sends after commit when asked to. */
final class DefaultDelayQueueTemplate implements DelayQueueTemplate {

    private final QueueCatalog catalog;
    private final boolean transactionAware;

    /**
     * @param transactionAware whether to defer sends inside transactions; only {@code true} when
     *                         spring-tx is on the class path
     */
    DefaultDelayQueueTemplate(QueueCatalog catalog, boolean transactionAware) {
        this.catalog = catalog;
        this.transactionAware = transactionAware;
    }

    @Override
    public String send(DelayQueueCode code, Object payload, Duration delay) {
        return send(code, payload, delay, SendOptions.none());
    }

    @Override
    public String send(DelayQueueCode code, Object payload, Duration delay, SendOptions options) {
        return sendAll(code, List.of(SendRequest.of(payload, delay, options))).get(0);
    }

    @Override
    public String sendAt(DelayQueueCode code, Object payload, Instant dueAt) {
        return sendAt(code, payload, dueAt, SendOptions.none());
    }

    @Override
    public String sendAt(DelayQueueCode code, Object payload, Instant dueAt, SendOptions options) {
        return sendAll(code, List.of(SendRequest.at(payload, dueAt, options))).get(0);
    }

    @Override
    public List<String> sendAll(DelayQueueCode code, List<SendRequest> requests) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        if (this.transactionAware && AfterCommitSends.inTransaction()) {
            PreparedSend prepared = queue.client().prepare(queue.name(), requests); // checked and encoded now
            AfterCommitSends.defer(queue, prepared);
            return prepared.ids();
        }
        return queue.client().sendAll(queue.name(), requests);
    }

    @Override
    public boolean cancel(DelayQueueCode code, String id) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().cancel(queue.name(), id);
    }

    @Override
    public boolean reschedule(DelayQueueCode code, String id, Duration delay) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().reschedule(queue.name(), id, delay);
    }

    @Override
    public boolean rescheduleAt(DelayQueueCode code, String id, Instant dueAt) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().rescheduleAt(queue.name(), id, dueAt);
    }
}
