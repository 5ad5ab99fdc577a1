package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/** Send-with-id (if-absent, replace), cancel and reschedule, with 100,000 other messages pending. */
@ExtendWith(RedisExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdentityTest {

    private static final String QUEUE = "identity";
    private static final int BACKGROUND = 100_000;

    private final RedisContext redis;
    private DelayQueueClient client;
    private DelayQueueConsumer consumer;
    private final List<String> received = new CopyOnWriteArrayList<>();

    IdentityTest(RedisContext redis) {
        this.redis = redis;
    }

    /** The client under test; the partitioned variants of this class give one with several partitions per queue. */
    DelayQueueClient newClient() {
        return redis.client();
    }

    RedisContext redis() {
        return redis;
    }

    @BeforeAll
    void fillAndConsume() {
        client = newClient();
        for (int batch = 0; batch < BACKGROUND / 10_000; batch++) {
            List<SendRequest> requests = new ArrayList<>(10_000);
            for (int i = 0; i < 10_000; i++) {
                requests.add(SendRequest.of("background", Duration.ofHours(1)));
            }
            client.sendAll(QUEUE, requests);
        }
        consumer = client.newConsumer(QUEUE, String.class,
                (payload, context) -> received.add(context.id() + "=" + payload + "@" + context.attempt()),
                ConsumerOptions.DEFAULTS);
        consumer.start();
    }

    @AfterAll
    void stop() {
        consumer.stop();
        assertThat(client.stats(QUEUE).pending()).as("background messages untouched").isEqualTo(BACKGROUND);
    }

    @Test
    void ifAbsentKeepsTheFirst() {
        // paused until both sends are written: a machine that stalled 400 ms between them delivered and acknowledged
        // "first" before the second send, which then wrote "second" under the free id
        client.pause(QUEUE);
        String first;
        String second;
        try {
            first = client.send(QUEUE, "first", Duration.ofMillis(400), SendOptions.id("absent:1"));
            second = client.send(QUEUE, "second", Duration.ofMillis(50), SendOptions.id("absent:1"));
        } finally {
            client.resume(QUEUE);
        }

        assertThat(first).isEqualTo("absent:1").isEqualTo(second);
        await().atMost(Duration.ofSeconds(20)).until(() -> received.stream().anyMatch(r -> r.startsWith("absent:1=")));
        await().during(Duration.ofMillis(300)).until(() -> true);
        assertThat(received).filteredOn(r -> r.startsWith("absent:1=")).containsExactly("absent:1=first@1");
    }

    @Test
    void replaceKeepsTheLastAndMovesItsDueTime() {
        // paused until the replace is written: a machine that stalled 100 ms after the first send delivered "old"
        long before;
        client.pause(QUEUE);
        try {
            client.send(QUEUE, "old", Duration.ofMillis(100), SendOptions.id("replace:1"));
            before = client.stats(QUEUE).serverTime().toEpochMilli();
            client.send(QUEUE, "new", Duration.ofMillis(700), SendOptions.id("replace:1").replaceExisting());
        } finally {
            client.resume(QUEUE);
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> received.stream().anyMatch(r -> r.startsWith("replace:1=")));
        long deliveredAt = client.stats(QUEUE).serverTime().toEpochMilli();
        assertThat(deliveredAt - before).as("delivered at the replaced due time, not the old one").isGreaterThanOrEqualTo(700);
        await().during(Duration.ofMillis(300)).until(() -> true);
        assertThat(received).filteredOn(r -> r.startsWith("replace:1=")).containsExactly("replace:1=new@1");
    }

    @Test
    void cancelRemovesAPendingMessage() {
        // paused until the cancels ran: a machine that stalled 300 ms after the send delivered "doomed" first
        client.pause(QUEUE);
        try {
            client.send(QUEUE, "doomed", Duration.ofMillis(300), SendOptions.id("cancel:1"));

            assertThat(client.cancel(QUEUE, "cancel:1")).isTrue();
            assertThat(client.cancel(QUEUE, "cancel:1")).as("second cancel").isFalse();
            assertThat(client.cancel(QUEUE, "never-sent")).isFalse();
        } finally {
            client.resume(QUEUE);
        }

        client.send(QUEUE, "marker", Duration.ofMillis(600), SendOptions.id("cancel:marker"));
        await().atMost(Duration.ofSeconds(20)).until(() -> received.contains("cancel:marker=marker@1"));
        assertThat(received).noneMatch(r -> r.startsWith("cancel:1="));
    }

    @Test
    void rescheduleMovesAPendingMessage() {
        client.send(QUEUE, "later", Duration.ofHours(2), SendOptions.id("resched:1"));

        assertThat(client.reschedule(QUEUE, "resched:1", Duration.ofMillis(200))).isTrue();
        assertThat(client.reschedule(QUEUE, "never-sent", Duration.ofMillis(200))).isFalse();

        await().atMost(Duration.ofSeconds(20)).until(() -> received.contains("resched:1=later@1"));
        assertThat(client.reschedule(QUEUE, "resched:1", Duration.ofMillis(200))).as("already delivered").isFalse();
    }

    @Test
    void idsAreReusableOnceDelivered() {
        client.send(QUEUE, "one", Duration.ZERO, SendOptions.id("reuse:1"));
        await().atMost(Duration.ofSeconds(20)).until(() -> received.contains("reuse:1=one@1"));
        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(QUEUE).inFlight() == 0);
        client.send(QUEUE, "two", Duration.ZERO, SendOptions.id("reuse:1"));
        await().atMost(Duration.ofSeconds(20)).until(() -> received.contains("reuse:1=two@1"));
    }
}
