package io.github.delayqueue.core.engine;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.DelayQueueConsumer;

/**
 * The consumer of a partitioned queue: one {@link ConsumerEngine} per partition (each its poller, wake-ups, lease
 * keeping and settling), sharing one set of handler {@link Slots}, so the consumer runs at most {@code concurrency}
 * handlers over all partitions. Each partition's poller sleeps until its partition's next event and is woken by its
 * partition's channel; as they claim only for free slots, which each takes before its claim, a backlog in one
 * partition cannot keep another's messages from their turn for longer than a handler takes to free a slot.
 */
public final class PartitionedConsumer implements DelayQueueConsumer {

    private final String queue;
    private final List<? extends DelayQueueConsumer> engines;
    private @Nullable CompletableFuture<Void> stopped;

    public PartitionedConsumer(String queue, List<? extends DelayQueueConsumer> engines) {
        this.queue = queue;
        this.engines = List.copyOf(engines);
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public synchronized void start() {
        if (stopped != null || engines.get(0).isRunning()) {
            throw new IllegalStateException("consumer of queue '" + queue + "' was already started");
        }
        for (DelayQueueConsumer engine : engines) {
            engine.start();
        }
    }

    @Override
    public synchronized CompletableFuture<Void> stopAsync() {
        if (stopped == null) {
            CompletableFuture<?>[] all = new CompletableFuture<?>[engines.size()];
            for (int i = 0; i < all.length; i++) {
                all[i] = engines.get(i).stopAsync();
            }
            stopped = CompletableFuture.allOf(all);
        }
        return stopped;
    }

    @Override
    public boolean isRunning() {
        return engines.get(0).isRunning();
    }

    @Override
    public int activeHandlers() {
        int active = 0;
        for (DelayQueueConsumer engine : engines) {
            active += engine.activeHandlers();
        }
        return active;
    }

    /** Whether the poller of every partition sleeps until at least {@code serverMs}; see {@link ConsumerEngine#sleepsPast}. */
    public boolean sleepsPast(long serverMs) {
        for (DelayQueueConsumer engine : engines) {
            if (!(engine instanceof ConsumerEngine<?> partition) || !partition.sleepsPast(serverMs)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public @Nullable Throwable failure() {
        for (DelayQueueConsumer engine : engines) {
            Throwable failure = engine.failure();
            if (failure != null) {
                return failure;
            }
        }
        return null;
    }
}
