package io.github.delayqueue.core;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.delayqueue.core.internal.Checks;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.QueueRoute;
import io.github.delayqueue.core.history.HistoryPage;
import io.github.delayqueue.core.history.MessageStatus;

/**
 * The reads of a {@link DelayQueueClient}: statistics, pages of pending and in-flight messages, one message by id.
 * Each is one bounded script call per partition. The contract of each method is on the client's method of the
 * same name.
 */
final class Reads {

    private final ClientQueues queues;

    Reads(ClientQueues queues) {
        this.queues = queues;
    }

    QueueStats stats(String queue) {
        QueueRoute route = queues.route(queue);
        return ClientQueues.redis(route, "read stats of queue '" + queue + "'", route::stats);
    }

    MessagePage pending(String queue, long offset, int limit) {
        return page(queue, QueueOps.PageOf.PENDING, offset, limit);
    }

    MessagePage inFlight(String queue, long offset, int limit) {
        return page(queue, QueueOps.PageOf.IN_FLIGHT, offset, limit);
    }

    Optional<QueuedMessage> message(String queue, String id) {
        QueueRoute route = queues.route(queue);
        ClientQueues.validateId(id, "");
        return ClientQueues.redis(route, "read '" + id + "' in queue '" + queue + "'", () -> route.of(id).peek(id));
    }

    MessageStatus status(String queue, String id) {
        QueueRoute route = queues.route(queue);
        ClientQueues.validateId(id, "");
        return ClientQueues.redis(route, "read the status of '" + id + "' in queue '" + queue + "'",
                () -> route.of(id).status(id));
    }

    HistoryPage history(String queue, long offset, int limit) {
        QueueRoute route = queues.route(queue);
        Checks.require(offset >= 0, "offset must not be negative, was " + offset);
        Checks.require(limit >= 1 && limit <= DelayQueueClient.DEAD_BATCH, "limit must be between 1 and "
                + DelayQueueClient.DEAD_BATCH + ", was " + limit);
        return ClientQueues.redis(route, "read the history of queue '" + queue + "'", () -> route.history(offset, limit));
    }

        List<GroupStats> groups(String queue, int limit) {
        QueueRoute route = queues.route(queue);
        Checks.require(limit >= 1 && limit <= DelayQueueClient.DEAD_BATCH, "limit must be between 1 and "
                + DelayQueueClient.DEAD_BATCH + ", was " + limit);
        return ClientQueues.redis(route, "read the groups of queue '" + queue + "'", () -> {
            // a group's messages are spread over the partitions: its figures are summed, its times the earliest, over
            // the partitions that list it among their first `limit` (partial for a group listed by only some)
            Map<String, GroupStats> merged = new LinkedHashMap<>();
            for (int p = 0; p < route.count(); p++) {
                for (GroupStats g : route.part(p).groups(limit)) {
                    merged.merge(g.group(), g, GroupStats::plus);
                }
            }
            return merged.values().stream().sorted(GroupStats.FURTHEST_BEHIND_FIRST).limit(limit).toList();
        });
    }

    MessagePage pendingInGroup(String queue, String group, long offset, int limit) {
        QueueRoute route = queues.route(queue);
        SendOptions.checkGroup(group, "");
        Checks.require(offset >= 0, "offset must not be negative, was " + offset);
        Checks.require(limit >= 1 && limit <= DelayQueueClient.DEAD_BATCH, "limit must be between 1 and " + DelayQueueClient.DEAD_BATCH + ", was " + limit);
        return ClientQueues.redis(route, "read the pending messages of group '" + group + "' of queue '" + queue + "'",
                () -> route.groupPage(group, offset, limit));
    }

    private MessagePage page(String queue, QueueOps.PageOf set, long offset, int limit) {
        QueueRoute route = queues.route(queue);
        Checks.require(offset >= 0, "offset must not be negative, was " + offset);
        Checks.require(limit >= 1 && limit <= DelayQueueClient.DEAD_BATCH, "limit must be between 1 and " + DelayQueueClient.DEAD_BATCH + ", was " + limit);
        return ClientQueues.redis(route, "read " + set.arg + " messages of queue '" + queue + "'", () -> route.page(set, offset, limit));
    }
}
