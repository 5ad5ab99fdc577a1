package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * Messages that an older release left in Redis (envelope format 1, members {@code <seq12><id>}) keep
 * working after an upgrade to format 2: they are delivered, cancelled, rescheduled, replaced and
 * requeued from dead letters, and at equal due times they still come before newer messages.
 */
@ExtendWith(RedisExtension.class)
class EnvelopeFormat1CompatibilityTest {

    private final RedisContext redis;
    private final DelayQueueClient client;

    EnvelopeFormat1CompatibilityTest(RedisContext redis) {
        this.redis = redis;
        this.client = redis.client();
    }

    /** Writes a message as release 0.1 did, due at {@code dueMs}. */
    private void writeFormat1(String queue, String id, long seq, long dueMs, long enqueuedMs, String json) {
        String seq12 = String.format("%012x", seq);
        String base = this.redis.prefix() + ":{" + queue + "}:";
        this.redis.redisson().getMap(base + "messages", StringCodec.INSTANCE).put(id, "1:" + seq12 + ":" + enqueuedMs + ":0:" + json);
        this.redis.redisson().getScoredSortedSet(base + "delayed", StringCodec.INSTANCE).add(dueMs, seq12 + id);
        this.redis.redisson().getAtomicLong(base + "sequence").set(Math.max(seq, 100));
    }

    private long serverNow() {
        return this.client.stats("any").serverTime().toEpochMilli();
    }

    @Test
    void oldMessagesAreCancelledRescheduledAndReplaced() {
        long later = serverNow() + 60_000;
        writeFormat1("compat", "a", 1, later, 1_700_000_000_000L, "\"old-a\"");
        writeFormat1("compat", "b", 2, later, 1_700_000_000_000L, "\"old-b\"");
        writeFormat1("compat", "c", 3, later, 1_700_000_000_000L, "\"old-c\"");

        assertThat(this.client.cancel("compat", "a")).isTrue();
        assertThat(this.client.reschedule("compat", "b", Duration.ofMinutes(5))).isTrue();
        this.client.send("compat", "new-c", Duration.ofMinutes(2), SendOptions.id("c").replaceExisting());

        QueueStats stats = this.client.stats("compat");
        assertThat(stats.pending()).isEqualTo(2);
        assertThat(this.redis.redisson().getScoredSortedSet(this.redis.prefix() + ":{compat}:delayed", StringCodec.INSTANCE)
                .readAll()).hasSize(2).noneMatch(member -> member.toString().endsWith("a"));
    }

    @Test
    void oldMessagesAreDeliveredFirstAtEqualDueTimesAndRequeuedFromDeadLetters() {
        long due = serverNow() + 300;
        writeFormat1("mixed", "old-1", 7, due, 1_700_000_000_123L, "\"old-1\"");
        writeFormat1("mixed", "old-2", 8, due, 1_700_000_000_123L, "\"old-2\"");
        this.client.sendAll("mixed", List.of(SendRequest.at("new-1", java.time.Instant.ofEpochMilli(due), SendOptions.id("new-1")),
                SendRequest.at("new-2", java.time.Instant.ofEpochMilli(due), SendOptions.id("new-2"))));

        List<String> order = new CopyOnWriteArrayList<>();
        List<MessageContext> contexts = new CopyOnWriteArrayList<>();
        AtomicBoolean failed = new AtomicBoolean();
        DelayQueueConsumer consumer = this.client.newConsumer("mixed", String.class, (payload, context) -> {
            order.add(payload);
            contexts.add(context);
            if (payload.equals("old-2") && failed.compareAndSet(false, true)) {
                throw new IllegalStateException("fail once, to the dead letters");
            }
        }, ConsumerOptions.builder().concurrency(1).batchSize(1)
                .retry(new RetryPolicy(1, Duration.ofMillis(100), 2.0, Duration.ofSeconds(1), 0)).build());
        consumer.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> order.size() == 4);
            assertThat(order).containsExactly("old-1", "old-2", "new-1", "new-2");
            assertThat(contexts.get(0).enqueuedAt().toEpochMilli()).isEqualTo(1_700_000_000_123L);
            assertThat(contexts.get(0).id()).isEqualTo("old-1");

            await().atMost(Duration.ofSeconds(20)).until(() -> this.client.stats("mixed").dead() == 1);
            assertThat(this.client.requeueDeadLetters("mixed", List.of(this.client.deadLetters("mixed", 1).get(0).key()))).isEqualTo(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> order.size() == 5);
            assertThat(order.get(4)).isEqualTo("old-2");
            assertThat(contexts.get(4).enqueuedAt().toEpochMilli()).isEqualTo(1_700_000_000_123L);
        } finally {
            consumer.stop();
        }
    }
}
