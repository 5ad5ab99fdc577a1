package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.ScoredEntry;

import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * A lone send (one message, no other send to combine with) takes enqueue.lua's short path: it must store
 * exactly what the batch path stores, keep or replace a live id as the batch path does, and keep send order.
 */
@ExtendWith(RedisExtension.class)
class LoneSendTest {

    private final RedisContext redis;
    private final DelayQueueClient client;

    LoneSendTest(RedisContext redis) {
        this.redis = redis;
        this.client = redis.client();
    }

    private List<ScoredEntry<String>> delayed(String queue) {
        return new ArrayList<>(redis.redisson().<String>getScoredSortedSet(redis.prefix() + ":{" + queue + "}:delayed",
                StringCodec.INSTANCE).entryRange(0, -1));
    }

    private Map<String, String> messages(String queue) {
        return redis.redisson().<String, String>getMap(redis.prefix() + ":{" + queue + "}:messages", StringCodec.INSTANCE)
                .readAllMap();
    }

    @Test
    void aLoneSendStoresWhatABatchStoresInSendOrder() {
        Instant due = client.stats("lone").serverTime().plusSeconds(3600);
        client.sendAll("lone", List.of(SendRequest.at("x", due, SendOptions.id("a")))); // lone
        client.sendAll("lone", List.of(SendRequest.at("x", due, SendOptions.id("b")), // the batch path
                SendRequest.at("x", due, SendOptions.id("c"))));
        client.send("lone", "x", Duration.ofHours(2), SendOptions.id("d")); // lone, relative

        List<ScoredEntry<String>> entries = delayed("lone");
        assertThat(entries).extracting(e -> e.getValue().substring(9)).containsExactly("a", "b", "c", "d");
        assertThat(entries).extracting(ScoredEntry::getScore).startsWith((double) due.toEpochMilli(),
                (double) due.toEpochMilli(), (double) due.toEpochMilli());
        assertThat(entries.get(3).getScore()).isGreaterThan(due.toEpochMilli() + 3_000_000.0);
        Map<String, String> messages = messages("lone");
        for (ScoredEntry<String> e : entries) {
            String member = e.getValue();
            assertThat(member).matches("~[-0-9A-Za-z_]{8}[a-d]");
            String envelope = messages.get(member.substring(9));
            // "2", the sequence number of the member, 8 digits of enqueue time, then the body as the batch path wrote it
            assertThat(envelope).as("envelope of " + member).startsWith("2" + member.substring(1, 9)).endsWith("\"x\"");
            assertThat(envelope.substring(17)).as("body of " + member).isEqualTo(messages.get("b").substring(17));
        }
    }

    @Test
    void aKeptLoneSendChangesNothingAndOrderHolds() {
        Instant due = client.stats("kept").serverTime().plusSeconds(3600);
        client.sendAll("kept", List.of(SendRequest.at("first", due, SendOptions.id("k"))));
        Map<String, String> before = messages("kept");
        List<ScoredEntry<String>> delayedBefore = delayed("kept");

        assertThat(client.send("kept", "second", Duration.ofMillis(1), SendOptions.id("k"))).isEqualTo("k");
        assertThat(messages("kept")).isEqualTo(before);
        assertThat(delayed("kept")).usingRecursiveFieldByFieldElementComparator().isEqualTo(delayedBefore);

        client.sendAll("kept", List.of(SendRequest.at("after", due, SendOptions.id("m"))));
        assertThat(delayed("kept")).extracting(e -> e.getValue().substring(9)).containsExactly("k", "m");
    }

    @Test
    void aLoneReplaceLeavesOneMessageWithTheNewDueTimeAndPayload() {
        client.send("replaced", "old", Duration.ofHours(1), SendOptions.id("r"));
        Instant due = client.stats("replaced").serverTime().plusSeconds(7200);
        client.sendAll("replaced", List.of(SendRequest.at("new", due, SendOptions.id("r").replaceExisting())));

        List<ScoredEntry<String>> entries = delayed("replaced");
        assertThat(entries).hasSize(1);
        assertThat(entries.get(0).getScore()).isEqualTo((double) due.toEpochMilli());
        assertThat(messages("replaced")).hasSize(1).hasEntrySatisfying("r", v -> assertThat(v).endsWith("\"new\""));
        assertThat(client.stats("replaced").pending()).isEqualTo(1);
    }
}
