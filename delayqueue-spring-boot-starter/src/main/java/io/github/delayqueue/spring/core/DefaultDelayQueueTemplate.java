package io.github.delayqueue.spring.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueTemplate;
import org.jspecify.annotations.Nullable;

/**
 * The auto-configured {@link DelayQueueTemplate}: declared codes only, every call acts on Redis at once.
 * {@link TransactionAwareDelayQueueTemplate} defers sends made inside a transaction.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public class DefaultDelayQueueTemplate implements DelayQueueTemplate {

    private final QueueCatalog catalog;
    private final SendObserver observer;

    public DefaultDelayQueueTemplate(QueueCatalog catalog) {
        this(catalog, SendObserver.NONE);
    }

    /** {@code observer} wraps every send (the {@code delayqueue.send} observation). */
    public DefaultDelayQueueTemplate(QueueCatalog catalog, SendObserver observer) {
        this.catalog = catalog;
        this.observer = observer;
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
        if (this.observer == SendObserver.NONE) {
            return send(queue, requests);
        }
        return this.observer.observe(queue.name(), requests, observed -> send(queue, observed));
    }

    /** Writes the requests of a declared queue; the only step a subclass changes. */
    List<String> send(QueueCatalog.Queue queue, List<SendRequest> requests) {
        return queue.client().sendAll(queue.name(), requests);
    }

    @Override
    public boolean cancel(DelayQueueCode code, String id) {
        return cancel(this.catalog.require(code), id);
    }

    @Override
    public boolean reschedule(DelayQueueCode code, String id, Duration delay) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        if (delay == null) {
            throw new IllegalArgumentException("delay must not be null");
        }
        return reschedule(queue, id, delay, null);
    }

    @Override
    public boolean rescheduleAt(DelayQueueCode code, String id, Instant dueAt) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        if (dueAt == null) {
            throw new IllegalArgumentException("dueAt must not be null");
        }
        return reschedule(queue, id, null, dueAt);
    }

    /** Cancels in a declared queue; a subclass may route it. */
    boolean cancel(QueueCatalog.Queue queue, String id) {
        return queue.client().cancel(queue.name(), id);
    }

    /** Reschedules in a declared queue, after {@code delay} or at {@code dueAt} (exactly one); a subclass may route it. */
    boolean reschedule(QueueCatalog.Queue queue, String id, @Nullable Duration delay, @Nullable Instant dueAt) {
        return delay != null ? queue.client().reschedule(queue.name(), id, delay)
                : queue.client().rescheduleAt(queue.name(), id, dueAt);
    }
}
