package io.github.delayqueue.core.protocol;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.MessagePage;
import io.github.delayqueue.core.PartitionCountException;
import io.github.delayqueue.core.QueueFlow;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.core.history.HistoryPage;
import io.github.delayqueue.core.history.SettledMessage;
import io.github.delayqueue.core.internal.Checks;

/**
 * A queue as the client sees it: its partitions ({@link QueueOps} each; one for a queue that is not partitioned),
 * which partition holds an id, and the reads that span them all. The partition count is checked against the one
 * recorded in Redis (partitions.lua) before the first operation of this client on the queue, and again after a
 * failed check.
 */
public final class QueueRoute {

    /**
     * Most messages a page of a partitioned queue may reach ({@code offset + limit}): a page is merged from every
     * partition's first {@code offset + limit} entries.
     */
    public static final int MERGE_WINDOW = 10_000;

    private final String queue;
    private final String prefix;
    private final Scripts scripts;
    private final QueueOps[] parts;
    private final List<Object> checkKeys;
    private volatile boolean checked;

    public QueueRoute(Scripts scripts, String prefix, String queue, int partitions, ClientOptions options) {
        this.queue = queue;
        this.prefix = prefix;
        this.scripts = scripts;
        this.parts = new QueueOps[partitions];
        for (int p = 0; p < partitions; p++) {
            parts[p] = new QueueOps(scripts, QueueKeys.of(prefix, queue, p, partitions), new ReplicaWait(queue,
                    options.waitForReplicas(), options.replicaTimeout(), options.replicasRequired()));
        }
        QueueKeys whole = QueueKeys.of(prefix, queue);
        List<Object> base = whole.keys();
        this.checkKeys = List.of(QueueKeys.partitionsKey(prefix, queue), base.get(1), base.get(2), base.get(5),
                whole.sibling("schedule-next"));
    }

    public int count() {
        return parts.length;
    }

    public QueueOps part(int partition) {
        return parts[partition];
    }

    /** The partition holding {@code id}. */
    public QueueOps of(String id) {
        return parts[Partitions.of(id, parts.length)];
    }

    public List<QueueOps> parts() {
        return List.of(parts);
    }

    /**
     * Checks this client's partition count against the one recorded in Redis (recording it on the queue's first use,
     * one partition too, so that a client with another count started later is refused); one script call until it
     * has succeeded once.
     *
     * @throws PartitionCountException if they differ, or the queue holds messages of the one-partition layout
     *                                 while this client has several partitions
     */
    public void check() {
        if (checked) {
            return;
        }
        String answer = scripts.text(Scripts.Name.PARTITIONS, checkKeys, Integer.toString(parts.length));
        if (answer.isEmpty()) {
            checked = true;
            return;
        }
        String key = QueueKeys.partitionsKey(prefix, queue);
        if (answer.equals("unpartitioned")) {
            throw new PartitionCountException("queue '" + queue + "' holds messages in the one-partition layout, but "
                    + "this client has " + parts.length + " partitions for it: those messages would never be delivered. "
                    + "Keep 1 partition until the queue is empty (see docs/operations/scaling.md, \"Changing the partition count\")");
        }
        if (answer.startsWith("schedules:")) { // "schedules:<count>:<up to 10 ids>", see partitions.lua
            int colon = answer.indexOf(':', "schedules:".length());
            throw new PartitionCountException("queue '" + queue + "' holds " + answer.substring("schedules:".length(), colon)
                    + " schedules in the one-partition layout (" + answer.substring(colon + 1) + "), but this client has "
                    + parts.length + " partitions for it: they would not be found, and a put would make a second copy. "
                    + "Remove them with 1 partition, change the count, then put them again (a schedule declared in yaml "
                    + "is declared again at start); see docs/operations/scaling.md, \"Changing the partition count\"");
        }
        String recorded = answer + (answer.equals("1") ? " partition" : " partitions");
        throw new PartitionCountException("queue '" + queue + "' has " + recorded + " recorded in Redis ("
                + key + "), but this client has " + parts.length + ": a message lives in partition hash(id) mod the "
                + "count, so a client counting otherwise would not find what the others wrote. Configure " + recorded
                + " (delayqueue.queues.<code>.partitions), or change the count as docs/operations/scaling.md says");
    }

    /**
     * Every partition's stats summed, the earliest next due time of any; the flow state summed too ({@link FlowPart}).
     * One script call per partition: each partition's snapshot is atomic, the sum is not.
     */
    public QueueStats stats() {
        if (parts.length == 1) {
            return parts[0].stats();
        }
        long pending = 0;
        long ready = 0;
        long inFlight = 0;
        long dead = 0;
        long history = 0;
        Instant next = null;
        Instant time = null;
        Map<Integer, Long> byPriority = new java.util.HashMap<>();
        List<FlowPart> flows = new ArrayList<>(parts.length);
        for (QueueOps part : parts) {
            List<Object> reply = part.statsReply();
            QueueStats s = part.stats(reply, QueueFlow.NONE);
            flows.add(QueueOps.flowPart(reply));
            pending += s.pending();
            ready += s.ready();
            inFlight += s.inFlight();
            dead += s.dead();
            history += s.history();
            s.readyByPriority().forEach((priority, count) -> byPriority.merge(priority, count, Long::sum));
            if (s.nextDueAt() != null && (next == null || s.nextDueAt().isBefore(next))) {
                next = s.nextDueAt();
            }
            time = time == null || s.serverTime().isAfter(time) ? s.serverTime() : time;
        }
        return new QueueStats(queue, pending, ready, inFlight, dead, next, time, FlowPart.sum(flows, inFlight), history,
                byPriority);
    }

    /** A page of pending or in-flight messages: one partition's, or the merge of every partition's first pages. */
    public MessagePage page(QueueOps.PageOf set, long offset, int limit) {
        return merged(set, offset, limit, (part, from, size) -> part.page(set, from, size));
    }

    /** A page of one group's pending messages (SendOptions.group) in due order, merged from every partition. */
    public MessagePage groupPage(String group, long offset, int limit) {
        return merged(QueueOps.PageOf.PENDING, offset, limit, (part, from, size) -> part.groupPage(group, from, size));
    }

    /** One partition's page read. */
    private interface PageRead {
        MessagePage read(QueueOps part, long offset, int limit);
    }

    private MessagePage merged(QueueOps.PageOf set, long offset, int limit, PageRead read) {
        if (parts.length == 1) {
            return read.read(parts[0], offset, limit);
        }
        int window = window(offset, limit);
        long total = 0;
        Instant time = null;
        List<QueuedMessage> all = new ArrayList<>();
        for (QueueOps part : parts) {
            MessagePage page = read.read(part, 0, window);
            total += page.total();
            time = time == null ? page.serverTime() : time;
            all.addAll(page.messages());
        }
        Comparator<QueuedMessage> order = set == QueueOps.PageOf.PENDING
                ? Comparator.comparing(QueuedMessage::dueAt, Comparator.nullsLast(Comparator.naturalOrder()))
                : Comparator.comparing(QueuedMessage::leaseDeadline, Comparator.nullsLast(Comparator.naturalOrder()));
        all.sort(order.thenComparing(QueuedMessage::id));
        return new MessagePage(queue, total, offset, time, slice(all, offset, limit));
    }

    /** A page of dead letters, the oldest first, merged from every partition. */
    public List<DeadLetter> listDead(long offset, int limit) {
        if (parts.length == 1) {
            return parts[0].listDead(offset, limit);
        }
        int window = window(offset, limit);
        List<DeadLetter> all = new ArrayList<>();
        for (QueueOps part : parts) {
            all.addAll(part.listDead(0, window));
        }
        all.sort(Comparator.comparing(DeadLetter::deadAt).thenComparing(DeadLetter::key));
        return slice(all, offset, limit);
    }

    /**
     * A page of the history, the latest settled first (equal times in reverse id order, as one partition orders them),
     * merged from every partition's first {@code offset + limit} records; the total summed.
     */
    public HistoryPage history(long offset, int limit) {
        if (parts.length == 1) {
            return parts[0].history(offset, limit);
        }
        int window = window(offset, limit);
        long total = 0;
        Instant time = null;
        List<SettledMessage> all = new ArrayList<>();
        for (QueueOps part : parts) {
            HistoryPage page = part.history(0, window);
            total += page.total();
            time = time == null || page.serverTime().isAfter(time) ? page.serverTime() : time;
            all.addAll(page.records());
        }
        all.sort(Comparator.comparing(SettledMessage::settledAt).thenComparing(SettledMessage::id).reversed());
        return new HistoryPage(queue, total, offset, time, slice(all, offset, limit));
    }

    /** Requeues or purges the dead letters named by {@code storedKeys}, each in the partition of its id. */
    public long moveDead(QueueOps.DeadOp op, int limit, Collection<String> storedKeys) {
        if (parts.length == 1) {
            return parts[0].moveDead(op, limit, 0, storedKeys);
        }
        List<List<String>> byPartition = new ArrayList<>(parts.length);
        for (int p = 0; p < parts.length; p++) {
            byPartition.add(new ArrayList<>());
        }
        for (String key : storedKeys) {
            byPartition.get(Partitions.of(DeadLetterKeys.id(key), parts.length)).add(key);
        }
        long moved = 0;
        for (int p = 0; p < parts.length; p++) {
            if (!byPartition.get(p).isEmpty()) {
                moved += parts[p].moveDead(op, limit, 0, byPartition.get(p));
            }
        }
        return moved;
    }

    private int window(long offset, int limit) {
        Checks.require(offset + limit <= MERGE_WINDOW, "offset + limit must be at most " + MERGE_WINDOW + " on queue '"
                + queue + "', which has " + parts.length + " partitions (a page is merged from each partition's first "
                + "offset + limit entries), was " + (offset + limit));
        return (int) (offset + limit);
    }

    private static <T> List<T> slice(List<T> all, long offset, int limit) {
        if (offset >= all.size()) {
            return List.of();
        }
        return new ArrayList<>(all.subList((int) offset, (int) Math.min(all.size(), offset + limit)));
    }

    /** Groups {@code ids} (with a parallel list of anything) by partition; index lists in original order. */
    public List<List<Integer>> byPartition(List<String> ids) {
        List<List<Integer>> groups = new ArrayList<>(parts.length);
        for (int p = 0; p < parts.length; p++) {
            groups.add(new ArrayList<>());
        }
        for (int i = 0; i < ids.size(); i++) {
            groups.get(Partitions.of(ids.get(i), parts.length)).add(i);
        }
        return groups;
    }
}
