package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.core.VersionedIntent.Outcome;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/** Versioned intents (a transactional outbox's rows): per id, the highest version wins, whatever the order of the writes. */
@ExtendWith(RedisExtension.class)
class VersionedIntentTest {

    private static final String QUEUE = "versioned";
    private static final Duration KEEP = Duration.ofHours(1);

    private final RedisContext redis;
    private final DelayQueueClient client;

    VersionedIntentTest(RedisContext redis) {
        this.redis = redis;
        this.client = redis.client();
    }

    private VersionedIntent send(String id, String payload, SendMode mode, long version) {
        PreparedSend prepared = client.prepare(QUEUE, List.of(SendRequest.of(payload, Duration.ofHours(1),
                SendOptions.id(id).withMode(mode))));
        return VersionedIntent.send(prepared.messages().get(0), version);
    }

    private String payload(String id) {
        return client.message(QUEUE, id).map(QueuedMessage::payload).orElse(null);
    }

    @Test
    void anOlderReplaceWrittenAfterANewerOneChangesNothing() {
        assertThat(client.applyVersioned(QUEUE, List.of(send("a", "v2", SendMode.REPLACE, 11)), KEEP))
                .containsExactly(Outcome.APPLIED);
        assertThat(client.applyVersioned(QUEUE, List.of(send("a", "v1", SendMode.REPLACE, 10)), KEEP))
                .containsExactly(Outcome.SUPERSEDED);
        assertThat(payload("a")).isEqualTo("\"v2\"");
    }

    @Test
    void anOlderSendCannotBringBackACancelledOrDeliveredId() {
        // the cancel finds nothing (the send is still in an outbox), and is recorded all the same
        assertThat(client.applyVersioned(QUEUE, List.of(VersionedIntent.cancel("b", 21)), KEEP))
                .containsExactly(Outcome.NOTHING_TO_DO);
        assertThat(client.applyVersioned(QUEUE, List.of(send("b", "late", SendMode.IF_ABSENT, 20)), KEEP))
                .containsExactly(Outcome.SUPERSEDED);
        assertThat(client.message(QUEUE, "b")).isEmpty();
        // applied, then gone (as after its delivery): the same intent again does not write it twice
        assertThat(client.applyVersioned(QUEUE, List.of(send("c", "once", SendMode.IF_ABSENT, 30)), KEEP))
                .containsExactly(Outcome.APPLIED);
        assertThat(client.cancel(QUEUE, "c")).isTrue();
        assertThat(client.applyVersioned(QUEUE, List.of(send("c", "once", SendMode.IF_ABSENT, 30)), KEEP))
                .containsExactly(Outcome.SUPERSEDED);
        assertThat(client.message(QUEUE, "c")).isEmpty();
    }

    @Test
    void intentsOfOneCallApplyInOrderAndANewerCancelWins() {
        assertThat(client.applyVersioned(QUEUE, List.of(send("d", "v1", SendMode.IF_ABSENT, 40),
                VersionedIntent.reschedule("d", Duration.ofMinutes(5), null, 41), VersionedIntent.cancel("d", 42),
                send("d", "v0", SendMode.REPLACE, 39), send("e", "other", SendMode.IF_ABSENT, 43)), KEEP))
                .containsExactly(Outcome.APPLIED, Outcome.APPLIED, Outcome.APPLIED, Outcome.SUPERSEDED, Outcome.APPLIED);
        assertThat(client.message(QUEUE, "d")).isEmpty();
        assertThat(payload("e")).isEqualTo("\"other\"");
    }

    @Test
    void aRetriedReplaceKeepsTheWrittenMessageAndItsDelivery() {
        VersionedIntent replace = send("f", "v1", SendMode.REPLACE, 50);
        client.applyVersioned(QUEUE, List.of(replace), KEEP);
        QueuedMessage before = client.message(QUEUE, "f").orElseThrow();
        assertThat(client.applyVersioned(QUEUE, List.of(replace), KEEP)).containsExactly(Outcome.SUPERSEDED);
        assertThat(client.message(QUEUE, "f").orElseThrow()).isEqualTo(before);
    }

    @Test
    void versionsAreForgottenAfterTheirRetention() {
        client.applyVersioned(QUEUE, List.of(VersionedIntent.cancel("g", 60)), Duration.ofMillis(1));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> client.applyVersioned(QUEUE, List.of(VersionedIntent.cancel("other", 1)), Duration.ofMillis(1))
                        .equals(List.of(Outcome.NOTHING_TO_DO))
                        && redis.redisson().getMap(redis.prefix() + ":{" + QUEUE + "}:versions",
                                org.redisson.client.codec.StringCodec.INSTANCE).get("g") == null);
        assertThat(client.applyVersioned(QUEUE, List.of(send("g", "again", SendMode.IF_ABSENT, 59)), KEEP))
                .containsExactly(Outcome.APPLIED);
    }

    @Test
    void badIntentsWriteNothing() {
        assertThatThrownBy(() -> VersionedIntent.cancel("h", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("version must be positive");
        assertThatThrownBy(() -> client.applyVersioned(QUEUE, List.of(send("h", "ok", SendMode.IF_ABSENT, 70),
                VersionedIntent.cancel("bad\nid", 71)), KEEP)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("(intent 1)");
        assertThat(client.message(QUEUE, "h")).isEmpty();
        assertThatThrownBy(() -> client.applyVersioned(QUEUE, List.of(), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keepVersions");
    }

    @Test
    void aPartitionedQueueKeepsEachIdsVersionsInItsPartitionAndTheOrderOfTheList() {
        DelayQueueClient partitioned = DelayQueueClient.create(redis.redisson(),
                ClientOptions.builder().keyPrefix(redis.prefix()).partitions("versioned-parts", 4).build());
        List<VersionedIntent> intents = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            PreparedSend prepared = partitioned.prepare("versioned-parts", List.of(SendRequest.of("p" + i,
                    Duration.ofHours(1), SendOptions.id("p-" + i).withMode(SendMode.REPLACE))));
            intents.add(VersionedIntent.send(prepared.messages().get(0), 100 + i));
        }
        intents.add(VersionedIntent.cancel("p-3", 200));
        List<Outcome> outcomes = partitioned.applyVersioned("versioned-parts", intents, KEEP);
        assertThat(outcomes).hasSize(21).containsOnly(Outcome.APPLIED);
        assertThat(partitioned.stats("versioned-parts").pending()).isEqualTo(19);
        assertThat(partitioned.applyVersioned("versioned-parts", intents.subList(0, 20), KEEP))
                .containsOnly(Outcome.SUPERSEDED);
        assertThat(partitioned.message("versioned-parts", "p-3")).isEmpty();
    }
}
