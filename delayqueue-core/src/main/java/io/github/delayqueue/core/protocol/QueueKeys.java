package io.github.delayqueue.core.protocol;

import java.util.List;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.internal.Checks;

/**
 * The Redis keys of one queue, or of one partition of a partitioned queue ({@link Partitions}). All share one hash
 * tag, {@code {queue}} (or the partition's), so every script is legal on a cluster. {@code queue} is the queue's
 * name whichever partition these are; {@code partition} is 0 of 1 for a queue that is not partitioned.
 */
public record QueueKeys(String queue, List<Object> keys, String wakeChannel, int partition, int partitions) {

    private static final Pattern QUEUE_NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1,100}");

    public static QueueKeys of(String prefix, String queue) {
        return of(prefix, queue, 0, 1);
    }

    /** Partition {@code partition} of {@code partitions}; with one partition, the keys of an unpartitioned queue. */
    public static QueueKeys of(String prefix, String queue, int partition, int partitions) {
        validateName(queue);
        String base = prefix + ":{" + (partitions == 1 ? queue : Partitions.tag(queue, partition, partitions)) + "}:";
        return new QueueKeys(queue, List.of(base + "messages", base + "delayed", base + "inflight", base + "attempts",
                base + "errors", base + "dead", base + "dead-messages", base + "dead-reasons", base + "sequence",
                base + "paused"),
                base + "wake", partition, partitions);
    }

    /**
     * The key recording the partition count of the queue ({@code <prefix>:{<queue>}:partitions}), in the slot of the
     * unpartitioned queue's keys whatever the count, so that partitions.lua reads it with them.
     */
    public static String partitionsKey(String prefix, String queue) {
        return prefix + ":{" + queue + "}:partitions";
    }

    /** A name for threads and logs: the queue, and the partition when there are several. */
    public String label() {
        return partitions == 1 ? queue : queue + "#" + partition;
    }

    /**
     * Another key of this queue (partition), named as the scripts name it from their first key (includes/keys.lua's
     * {@code base}): {@code <prefix>:{<tag>}:<name>}, in the same hash slot.
     */
    public String sibling(String name) {
        String messages = (String) keys.get(0);
        return messages.substring(0, messages.length() - "messages".length()) + name;
    }

    /** The ledger of messages imported from another store and not yet removed there ({@code RDelayedQueueImporter}). */
    public String importLedger() {
        return sibling("imported");
    }

    /** The keys of the scripts that use flow control (claim, settle, hold): the ten, then the flow hash (flow.lua). */
    List<Object> flowKeys() {
        List<Object> all = new java.util.ArrayList<>(keys);
        all.add(sibling("flow"));
        return all;
    }

    /** The keys of versioned writes (versioned.lua): the ten, then the versions hash and their record times. */
    List<Object> versionedKeys() {
        List<Object> all = new java.util.ArrayList<>(keys);
        all.add(sibling("versions"));
        all.add(sibling("versions-at"));
        return all;
    }

    public static void validateName(@Nullable String queue) {
        Checks.require(queue != null && !queue.isBlank(), "queue name must not be null or blank");
        Checks.require(QUEUE_NAME.matcher(queue).matches(),
                "queue name must be 1 to 100 characters of A-Z a-z 0-9 _ . -, was '" + queue + "'");
    }
}
