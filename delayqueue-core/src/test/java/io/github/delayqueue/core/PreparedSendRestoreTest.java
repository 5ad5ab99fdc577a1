package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * {@link PreparedSend#messages()} and {@link DelayQueueClient#restore}: what a transactional outbox stores
 * and sends later is the message the caller prepared, checked again, with nothing written on a bad one.
 */
@ExtendWith(RedisExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PreparedSendRestoreTest {

    private static final String QUEUE = "restore";

    private final RedisContext redis;
    private DelayQueueClient client;
    private DelayQueueConsumer consumer;
    private final List<String> received = new CopyOnWriteArrayList<>();

    PreparedSendRestoreTest(RedisContext redis) {
        this.redis = redis;
    }

    record Order(String id, int cents) {
    }

    @BeforeAll
    void consume() {
        client = redis.client();
        consumer = client.newConsumer(QUEUE, Order.class,
                (payload, context) -> received.add(context.id() + "=" + payload + context.headers()), ConsumerOptions.DEFAULTS);
        consumer.start();
    }

    @AfterAll
    void stop() {
        consumer.stop();
    }

    @Test
    void aRestoredMessageIsTheOneThatWasPrepared() {
        PreparedSend prepared = client.prepare(QUEUE, List.of(
                SendRequest.of(new Order("o-1", 100), Duration.ofMillis(50), SendOptions.id("restore:1").header("tenant", "acme")),
                SendRequest.at(new Order("o-2", 200), Instant.now(), SendOptions.id("restore:2").replaceExisting())));
        List<PreparedSend.Message> messages = prepared.messages();
        assertThat(messages).extracting(PreparedSend.Message::id).containsExactly("restore:1", "restore:2");
        assertThat(messages.get(0).delay()).isEqualTo(Duration.ofMillis(50));
        assertThat(messages.get(0).dueAt()).isNull();
        assertThat(messages.get(1).delay()).isNull();
        assertThat(messages.get(1).mode()).isEqualTo(SendMode.REPLACE);

        // as if read back from a table: new objects with the same values, the first with less delay left
        List<PreparedSend.Message> stored = List.of(
                new PreparedSend.Message("restore:1", SendMode.IF_ABSENT, Duration.ofMillis(50), null, messages.get(0).body())
                        .withDelay(Duration.ZERO),
                new PreparedSend.Message("restore:2", SendMode.REPLACE, null, messages.get(1).dueAt(), messages.get(1).body()));
        assertThat(client.send(client.restore(QUEUE, stored))).containsExactly("restore:1", "restore:2");

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(received).contains(
                "restore:1=Order[id=o-1, cents=100]{tenant=acme}", "restore:2=Order[id=o-2, cents=200]{}"));
    }

    @Test
    void aRestoredIfAbsentSendOfALiveIdChangesNothing() {
        PreparedSend prepared = client.prepare(QUEUE, List.of(SendRequest.of(new Order("o-3", 1), Duration.ofHours(1),
                SendOptions.id("restore:3"))));
        client.send(prepared);
        client.send(client.restore(QUEUE, prepared.messages())); // a replay
        assertThat(client.stats(QUEUE).pending()).isEqualTo(1);
        assertThat(client.cancel(QUEUE, "restore:3")).isTrue();
    }

    /** A prepared send keeps its priority through the store: the restored message pends at that priority. */
    @Test
    void aRestoredMessageKeepsItsPriority() {
        List<PreparedSend.Message> messages = client.prepare(QUEUE, List.of(SendRequest.of(new Order("o-9", 9),
                Duration.ofHours(1), SendOptions.id("restore:p").priority(9)))).messages();
        client.send(client.restore(QUEUE, messages));
        assertThat(client.message(QUEUE, "restore:p")).hasValueSatisfying(m -> assertThat(m.priority()).isEqualTo(9));
        assertThat(client.cancel(QUEUE, "restore:p")).isTrue();
    }

    @Test
    void badMessagesAreRejectedAndNothingIsWritten() {
        String body = client.prepare(QUEUE, List.of(SendRequest.of(new Order("o", 1), Duration.ZERO))).messages().get(0).body();
        long pending = client.stats(QUEUE).pending();
        rejected(List.of(), "messages must not be empty");
        rejected(List.of(new PreparedSend.Message(" ", SendMode.IF_ABSENT, Duration.ZERO, null, body)), "id must not be null or blank");
        rejected(List.of(new PreparedSend.Message("a", SendMode.IF_ABSENT, Duration.ofSeconds(-1), null, body)),
                "delay must not be negative");
        rejected(List.of(new PreparedSend.Message("a", SendMode.IF_ABSENT, Duration.ZERO, null, body),
                new PreparedSend.Message("a", SendMode.IF_ABSENT, Duration.ZERO, null, body)), "duplicate id 'a'");
        rejected(List.of(new PreparedSend.Message("a", SendMode.IF_ABSENT, Duration.ZERO, null, "{\"no\":\"length\"}")),
                "body is not a message body this release writes");
        rejected(List.of(new PreparedSend.Message("a", SendMode.IF_ABSENT, Duration.ZERO, null, "5:[1,2]x")),
                "body is not a message body this release writes");
        rejected(List.of(new PreparedSend.Message("a", SendMode.IF_ABSENT, Duration.ZERO, null, "0:\"" + "x".repeat(2_000_000) + "\"")),
                "over the limit of");
        rejected(List.of(new PreparedSend.Message("a", SendMode.IF_ABSENT, Duration.ZERO, null,
                "20:{\"dq-priority\":\"12\"}\"x\"")), "priority header that is not one digit");
        rejected(List.of(new PreparedSend.Message("a", SendMode.IF_ABSENT, Duration.ZERO, null,
                "34:{\"dq-group\":\"G\",\"dq-priority\":\"9\"}\"x\"")), "both a group and a priority");
        assertThatIllegalArgumentException().isThrownBy(() -> client.restore("bad{name}", List.of(
                new PreparedSend.Message("a", SendMode.IF_ABSENT, Duration.ZERO, null, body))));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new PreparedSend.Message("a", SendMode.IF_ABSENT, Duration.ZERO, Instant.now(), body))
                .withMessage("exactly one of delay and dueAt must be set");
        assertThatIllegalArgumentException().isThrownBy(() -> new PreparedSend.Message("a", SendMode.IF_ABSENT, null, null, body));
        assertThat(client.stats(QUEUE).pending()).isEqualTo(pending);
    }

    private void rejected(List<PreparedSend.Message> messages, String message) {
        assertThatIllegalArgumentException().isThrownBy(() -> client.restore(QUEUE, messages)).withMessageContaining(message);
    }
}
