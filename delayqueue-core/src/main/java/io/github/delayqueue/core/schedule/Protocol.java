package io.github.delayqueue.core.schedule;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.internal.ClientAccess;
import io.github.delayqueue.core.protocol.Envelope;
import io.github.delayqueue.core.protocol.Partitions;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.ScheduleScript;

/** What schedules need of the engine's Redis protocol: a partition's keys, the partition rule, envelopes, the script. */
final class Protocol {

    private Protocol() {
    }

    /** The ten keys of partition {@code partition} of {@code queue}, then {@code extra} under the same hash tag. */
    static List<Object> keys(DelayQueueClient client, String queue, int partition, String... extra) {
        QueueKeys keys = ClientAccess.route(client, queue).part(partition).keys();
        List<Object> all = new ArrayList<>(keys.keys());
        for (String name : extra) {
            all.add(keys.sibling(name));
        }
        return all;
    }

    static String wakeChannel(DelayQueueClient client, String queue, int partition) {
        return ClientAccess.route(client, queue).part(partition).keys().wakeChannel();
    }

    static int partitions(DelayQueueClient client, String queue) {
        return ClientAccess.route(client, queue).count();
    }

    static int partitionOf(String id, int count) {
        return Partitions.of(id, count);
    }

    /** Checks the client's partition count of {@code queue} against Redis, once per client and queue. */
    static void checkPartitions(DelayQueueClient client, String queue) {
        ClientAccess.route(client, queue).check();
    }

    static List<Object> run(DelayQueueClient client, List<Object> keys, Object... args) {
        return ScheduleScript.run(ClientAccess.scripts(client), keys, args);
    }

    static String body(Map<String, String> headers, String payloadJson) {
        return Envelope.body(headers, payloadJson);
    }

    static int storedBytes(String body) {
        return Envelope.PREFIX_LENGTH + body.getBytes(StandardCharsets.UTF_8).length;
    }

    static void validateQueue(String queue) {
        QueueKeys.validateName(queue);
    }
}
