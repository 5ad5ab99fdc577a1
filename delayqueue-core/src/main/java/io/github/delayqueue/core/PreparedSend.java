package io.github.delayqueue.core;

import java.util.List;

/**
 * Messages for one queue that {@link DelayQueueClient#prepare} checked and encoded, ready to be written
 * later by {@link DelayQueueClient#send(PreparedSend)} of the same client: each has its id (given or
 * generated) and its payload's JSON as of the prepare. Immutable; a delay still counts from the write.
 */
public final class PreparedSend {

    /** Consecutive messages of one send mode: id, due spec, body per message, and their bytes. */
    record Run(SendMode mode, List<String> triples, List<Integer> bytes) {
    }

    final DelayQueueClient client;
    private final String queue;
    private final List<String> ids;
    final List<Run> runs;

    PreparedSend(DelayQueueClient client, String queue, List<String> ids, List<Run> runs) {
        this.client = client;
        this.queue = queue;
        this.ids = List.copyOf(ids);
        this.runs = List.copyOf(runs);
    }

    public String queue() {
        return queue;
    }

    /** The ids of the messages, in order. */
    public List<String> ids() {
        return ids;
    }

    @Override
    public String toString() {
        return "PreparedSend[queue=" + queue + ", ids=" + ids + "]";
    }
}
