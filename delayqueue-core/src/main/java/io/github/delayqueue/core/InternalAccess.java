package io.github.delayqueue.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.internal.Checks;
import io.github.delayqueue.core.protocol.Envelope;
import io.github.delayqueue.core.protocol.Partitions;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.ScheduleScript;

/**
 * Not API: how the library's own feature packages ({@code io.github.delayqueue.core.schedule}) reach the engine's
 * package-private Redis protocol (keys, scripts, envelopes). It may change in any release; applications must not use
 * it.
 */
public final class InternalAccess {

    private InternalAccess() {
    }

    /**
     * The keys of partition {@code partition} of {@code queue}: the ten of common.lua followed by {@code extra}, each
     * under the partition's hash tag ({@code <prefix>:{<tag>}:<extra>}), so one script may touch them all on a cluster.
     */
    public static List<Object> keys(DelayQueueClient client, String queue, int partition, String... extra) {
        QueueKeys keys = client.queueRoute(queue).part(partition).keys();
        List<Object> all = new ArrayList<>(keys.keys());
        String messages = (String) keys.keys().get(0);
        String base = messages.substring(0, messages.length() - "messages".length());
        for (String name : extra) {
            all.add(base + name);
        }
        return all;
    }

    /** The wake-up channel of a partition of {@code queue}. */
    public static String wakeChannel(DelayQueueClient client, String queue, int partition) {
        return client.queueRoute(queue).part(partition).keys().wakeChannel();
    }

    /** The partition count of {@code queue} on this client. */
    public static int partitions(DelayQueueClient client, String queue) {
        return client.queueRoute(queue).count();
    }

    /** The partition of an id among {@code count}: the rule of docs/redis-layout.md. */
    public static int partitionOf(String id, int count) {
        return Partitions.of(id, count);
    }

    /** Checks this client's partition count of {@code queue} against Redis, once ({@link PartitionCountException}). */
    public static void checkPartitions(DelayQueueClient client, String queue) {
        client.queueRoute(queue).check();
    }

    /** Runs one of the engine's scripts (by its {@code Scripts.Name}) returning a list. */
    public static List<Object> runScript(DelayQueueClient client, String script, List<Object> keys, Object... args) {
        Checks.require(script.equals("SCHEDULE"), "only the schedule script runs through here");
        return ScheduleScript.run(client.scripts(), keys, args);
    }

    /** The body of an envelope as the enqueue script takes it: headers and payload JSON. */
    public static String body(Map<String, String> headers, String payloadJson) {
        return Envelope.body(headers, payloadJson);
    }

    /** UTF-8 bytes of a stored envelope with {@code body}. */
    public static int storedBytes(String body) {
        return Envelope.PREFIX_LENGTH + body.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    }

    /** Validates a queue name as every call does; throws {@link IllegalArgumentException}. */
    public static void validateQueue(String queue) {
        QueueKeys.validateName(queue);
    }
}
