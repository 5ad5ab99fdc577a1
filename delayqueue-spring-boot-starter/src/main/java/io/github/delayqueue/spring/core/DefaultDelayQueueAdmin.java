package io.github.delayqueue.spring.core;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.MessagePage;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueCode;

/**
 * The auto-configured {@link DelayQueueAdmin}.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class DefaultDelayQueueAdmin implements DelayQueueAdmin {

    private final QueueCatalog catalog;

    public DefaultDelayQueueAdmin(QueueCatalog catalog) {
        this.catalog = catalog;
    }

    @Override
    public List<DelayQueueCode> codes() {
        return this.catalog.codes();
    }

    @Override
    public Optional<DelayQueueCode> find(String code) {
        return this.catalog.find(code).map(QueueCatalog.Queue::code);
    }

    @Override
    public QueueStats stats(DelayQueueCode code) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().stats(queue.name());
    }

    @Override
    public List<QueueStats> stats() {
        return this.catalog.codes().stream().map(this::stats).toList();
    }

    @Override
    public List<DeadLetter> deadLetters(DelayQueueCode code, int limit) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().deadLetters(queue.name(), limit);
    }

    @Override
    public List<DeadLetter> deadLetters(DelayQueueCode code, long offset, int limit) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().deadLetters(queue.name(), offset, limit);
    }

    @Override
    public MessagePage pending(DelayQueueCode code, long offset, int limit) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().pending(queue.name(), offset, limit);
    }

    @Override
    public MessagePage inFlight(DelayQueueCode code, long offset, int limit) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().inFlight(queue.name(), offset, limit);
    }

    @Override
    public Optional<QueuedMessage> message(DelayQueueCode code, String id) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().message(queue.name(), id);
    }

    @Override
    public boolean reschedule(DelayQueueCode code, String id, Instant dueAt) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().rescheduleAt(queue.name(), id, dueAt);
    }

    @Override
    public long requeue(DelayQueueCode code, Collection<String> keys) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().requeueDeadLetters(queue.name(), keys);
    }

    @Override
    public long requeueAll(DelayQueueCode code) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().requeueAllDeadLetters(queue.name());
    }

    @Override
    public long purge(DelayQueueCode code, Collection<String> keys) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().purgeDeadLetters(queue.name(), keys);
    }

    @Override
    public long purgeAll(DelayQueueCode code) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().purgeAllDeadLetters(queue.name());
    }
}
