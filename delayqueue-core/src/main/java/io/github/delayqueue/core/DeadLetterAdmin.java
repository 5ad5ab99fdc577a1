package io.github.delayqueue.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import io.github.delayqueue.core.internal.Checks;
import io.github.delayqueue.core.protocol.DeadLetterKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.QueueRoute;

/**
 * The dead-letter administration of a {@link DelayQueueClient}: pages of dead letters, and requeue or purge by key
 * or all, in bounded batches. The contract of each method is on the client's method of the same name.
 */
final class DeadLetterAdmin {

    private final ClientQueues queues;

    DeadLetterAdmin(ClientQueues queues) {
        this.queues = queues;
    }

    List<DeadLetter> deadLetters(String queue, int limit) {
        return deadLetters(queue, 0, limit);
    }

    List<DeadLetter> deadLetters(String queue, long offset, int limit) {
        QueueRoute route = queues.route(queue);
        Checks.require(offset >= 0, "offset must not be negative, was " + offset);
        Checks.require(limit >= 1 && limit <= DelayQueueClient.DEAD_BATCH, "limit must be between 1 and " + DelayQueueClient.DEAD_BATCH + ", was " + limit);
        return ClientQueues.redis(route, "list dead letters of queue '" + queue + "'", () -> route.listDead(offset, limit));
    }

    long requeueDeadLetters(String queue, Collection<String> keys) {
        return moveDead(queue, QueueOps.DeadOp.REQUEUE, keys);
    }

    long requeueAllDeadLetters(String queue) {
        return moveAllDead(queue, QueueOps.DeadOp.REQUEUE);
    }

    long purgeDeadLetters(String queue, Collection<String> keys) {
        return moveDead(queue, QueueOps.DeadOp.PURGE, keys);
    }

    long purgeAllDeadLetters(String queue) {
        return moveAllDead(queue, QueueOps.DeadOp.PURGE);
    }

    private long moveDead(String queue, QueueOps.DeadOp op, Collection<String> keys) {
        QueueRoute route = queues.route(queue);
        Checks.require(keys != null, "keys must not be null");
        Checks.require(keys.size() <= DelayQueueClient.DEAD_BATCH, "at most " + DelayQueueClient.DEAD_BATCH + " keys per call, was " + keys.size());
        List<String> stored = new ArrayList<>(keys.size());
        for (String key : keys) {
            String raw = DeadLetterKeys.stored(key);
            ClientQueues.validateId(DeadLetterKeys.id(raw), " (in dead-letter key '" + key + "')");
            stored.add(raw);
        }
        if (stored.isEmpty()) {
            return 0;
        }
        return ClientQueues.redis(route, op.arg + " dead letters of queue '" + queue + "'", () -> route.moveDead(op, DelayQueueClient.DEAD_BATCH, stored));
    }

    private long moveAllDead(String queue, QueueOps.DeadOp op) {
        QueueRoute route = queues.route(queue);
        return ClientQueues.redis(route, op.arg + " dead letters of queue '" + queue + "'", () -> {
            long total = 0;
            for (QueueOps ops : route.parts()) {
                total += moveAllDead(ops, op);
            }
            return total;
        });
    }

    /** Requeues or purges every dead letter of one partition, in bounded batches. */
    private static long moveAllDead(QueueOps ops, QueueOps.DeadOp op) {
        long total = 0;
        // requeue leaves an id that is live again among the dead letters: the next batch starts past those
        long skipped = 0;
        long limit = ops.stats().dead(); // bounds the loop even if requeued messages die again meanwhile
        while (total + skipped < limit) {
            int batch = (int) Math.min(DelayQueueClient.DEAD_BATCH, limit - total - skipped);
            long moved = ops.moveDead(op, batch, skipped, List.of());
            total += moved;
            skipped += batch - moved; // letters deleted meanwhile (a short batch) only end the loop sooner
        }
        return total;
    }
}
