package io.github.delayqueue.spring.core;

import java.lang.reflect.Type;
import java.time.Duration;
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
import io.github.delayqueue.core.RDelayedQueueImporter;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueCode;

/**
 * The auto-configured {@link DelayQueueAdmin}.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class DefaultDelayQueueAdmin implements DelayQueueAdmin {

    private final QueueCatalog catalog;
    private final Function<String, Optional<Type>> payloadTypes;

    public DefaultDelayQueueAdmin(QueueCatalog catalog) {
        this(catalog, code -> Optional.empty());
    }

    /**
     * @param payloadTypes the payload type of the handler of a queue code in this application, if it has one
     */
    public DefaultDelayQueueAdmin(QueueCatalog catalog, Function<String, Optional<Type>> payloadTypes) {
        this.catalog = catalog;
        this.payloadTypes = payloadTypes;
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
    public DelayQueueClient client(DelayQueueCode code) {
        return this.catalog.require(code).client();
    }

    @Override
    public Optional<Type> payloadType(DelayQueueCode code) {
        return this.payloadTypes.apply(this.catalog.require(code).name());
    }

    @Override
    public QueueStats stats(DelayQueueCode code) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().stats(queue.name());
    }

    @Override
    public List<GroupStats> groups(DelayQueueCode code, int limit) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().groups(queue.name(), limit);
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
    public MessageStatus status(DelayQueueCode code, String id) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().status(queue.name(), id);
    }

    @Override
    public HistoryPage history(DelayQueueCode code, long offset, int limit) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().history(queue.name(), offset, limit);
    }

    @Override
    public List<ActivityMinute> activity(DelayQueueCode code) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().activity(queue.name());
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

    @Override
    public void pause(DelayQueueCode code) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        queue.client().pause(queue.name());
    }

    @Override
    public void resume(DelayQueueCode code) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        queue.client().resume(queue.name());
    }

    @Override
    public boolean isPaused(DelayQueueCode code) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().isPaused(queue.name());
    }

    @Override
    public boolean cancel(DelayQueueCode code, String id) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().cancel(queue.name(), id);
    }

    @Override
    public boolean runNow(DelayQueueCode code, String id) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        return queue.client().reschedule(queue.name(), id, Duration.ZERO); // moves a pending message only
    }

    @Override
    public ImportReport importFromRDelayedQueue(DelayQueueCode code, String redissonQueueName, Codec codec,
            boolean dryRun, Function<Object, ?> mapping) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        RDelayedQueueImporter.Builder importer = RDelayedQueueImporter.builder(queue.client())
                .from(redissonQueueName, codec)
                .to(queue.name())
                .mapping(mapping)
                .dryRun(dryRun);
        this.payloadTypes.apply(queue.name()).ifPresent(importer::payloadType);
        return importer.build().run();
    }
}
