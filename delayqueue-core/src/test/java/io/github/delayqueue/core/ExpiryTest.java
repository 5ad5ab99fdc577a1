package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * Messages that expire ({@link SendOptions#expiresAt}, {@link SendOptions#expiresAfter}): one not handed to a handler
 * by its expiry (Redis clock) is never delivered, but dead-lettered with {@link DeadLetterCause#EXPIRED} or dropped
 * ({@link ConsumerOptions#onExpiry}); a retry due after the expiry is not run; a send whose expiry is before its due
 * time writes nothing.
 */
@ExtendWith(RedisExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExpiryTest {

    private static final String DEAD = "expiry-dead";
    private static final String DROP = "expiry-drop";
    private static final Duration DAY = Duration.ofDays(1);

    private final RedisContext redis;
    private DelayQueueClient client;
    private DelayQueueConsumer deadConsumer;
    private DelayQueueConsumer dropConsumer;
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final List<String> events = new CopyOnWriteArrayList<>();

    ExpiryTest(RedisContext redis) {
        this.redis = redis;
    }

    /** The client under test; the partitioned variant gives one with several partitions per queue. */
    DelayQueueClient newClient(ClientOptions.Builder options) {
        return DelayQueueClient.create(redis.redisson(), options.keyPrefix(redis.prefix()).build());
    }

    @BeforeAll
    void consume() {
        client = newClient(ClientOptions.builder().listener(new DelayQueueListener() {
            @Override
            public void deadLettered(String queue, DeadLetterCause cause, int messages) {
                events.add(queue + ":" + cause + ":" + messages);
            }

            @Override
            public void expiredDropped(String queue, int messages) {
                events.add(queue + ":DROPPED:" + messages);
            }
        }));
        MessageHandler<String> handler = (payload, context) -> {
            received.add(context.id() + "=" + payload + " " + context.headers());
            if (payload.startsWith("fail")) {
                throw new IllegalStateException("fails, retried in an hour");
            }
        };
        ConsumerOptions hourly = ConsumerOptions.builder()
                .retry(new RetryPolicy(5, Duration.ofHours(1), 2.0, Duration.ofHours(1), 0.0)).build();
        deadConsumer = client.newConsumer(DEAD, String.class, handler, hourly);
        dropConsumer = client.newConsumer(DROP, String.class, handler, hourly.toBuilder().onExpiry(ExpiryAction.DROP).build());
        deadConsumer.start();
        dropConsumer.start();
    }

    @AfterAll
    void stop() {
        deadConsumer.stop();
        dropConsumer.stop();
    }

    @Test
    void anExpiryBeforeTheDueTimeIsRefusedAndWritesNothing() {
        Instant due = Instant.now().plus(DAY);
        SendOptions early = SendOptions.id("early:1").expiresAt(due.minusMillis(1));
        assertThatIllegalArgumentException().isThrownBy(() -> client.sendAt(DEAD, "x", due, early))
                .withMessageContaining("before the due time");
        assertThatIllegalArgumentException().isThrownBy(() -> client.send(DEAD, "x", DAY, early))
                .withMessageContaining("before the due time");
        assertThatIllegalArgumentException().isThrownBy(() -> client.prepare(DEAD,
                List.of(SendRequest.at("x", due, early)))).withMessageContaining("before the due time");
        assertThat(client.message(DEAD, "early:1")).isEmpty();

        assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.none().expiresAfter(Duration.ZERO));
        assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.none().expiresAfter(Duration.ofMillis(-1)));
        assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.none().expiresAfter(null));
        assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.none().expiresAt(null));
        assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.none().header(SendOptions.EXPIRES_HEADER, "1"))
                .withMessageContaining("reserved");
        assertThatIllegalArgumentException().isThrownBy(() -> client.sendAt(DEAD, "x", due,
                SendOptions.none().expiresAt(Instant.MAX))).withMessageContaining("expiry");
        // the expiry at the due time itself is accepted; one set replaces the other
        assertThat(SendOptions.none().expiresAfter(DAY).expiresAt(due).expiresAfter()).isNull();
    }

    @Test
    void anExpiredMessageIsDeadLetteredWithItsCauseAndNeverDelivered() {
        Instant now = Instant.now();
        // the dedup window is written before the expiry: the script finds the expiry after it
        client.sendAt(DEAD, "late", now.minusSeconds(10),
                SendOptions.id("late:1").withDedupWindow(DAY).expiresAt(now.minusSeconds(5)).header("k", "v"));
        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(DEAD).dead() >= 1);
        List<DeadLetter> dead = client.deadLetters(DEAD, 100).stream().filter(d -> d.id().equals("late:1")).toList();
        assertThat(dead).singleElement().satisfies(d -> {
            assertThat(d.reason()).startsWith("expired");
            assertThat(d.attempts()).isZero();
            assertThat(d.headers()).isEqualTo(Map.of("k", "v"));
        });
        assertThat(events).contains(DEAD + ":EXPIRED:1");
        assertThat(received).noneMatch(r -> r.startsWith("late:1="));
        assertThat(client.message(DEAD, "late:1")).isEmpty();
    }

    @Test
    void aRescheduleDoesNotMoveTheExpiryAndARequeuedExpiredDeadLetterExpiresAgain() {
        Instant now = Instant.now();
        client.pause(DEAD); // nothing is claimed before the reschedule, however slow this machine
        try {
            client.sendAt(DEAD, "moved", now.plusMillis(200), SendOptions.id("moved:1").expiresAt(now.plusMillis(1_000)));
            // past the expiry: were the expiry moved with the due time (or lost), the handler would run
            assertThat(client.rescheduleAt(DEAD, "moved:1", now.plusMillis(1_500))).isTrue();
        } finally {
            client.resume(DEAD);
        }
        await().atMost(Duration.ofSeconds(20))
                .until(() -> client.deadLetters(DEAD, 100).stream().anyMatch(d -> d.id().equals("moved:1")));
        DeadLetter first = client.deadLetters(DEAD, 100).stream().filter(d -> d.id().equals("moved:1")).findFirst()
                .orElseThrow();
        assertThat(first.reason()).startsWith("expired");

        // requeued, it keeps the expiry (it travels in the envelope) and expires again at its next claim
        assertThat(client.requeueDeadLetters(DEAD, List.of(first.key()))).isEqualTo(1);
        await().atMost(Duration.ofSeconds(20)).until(() -> client.deadLetters(DEAD, 100).stream()
                .anyMatch(d -> d.id().equals("moved:1") && !d.key().equals(first.key())));
        assertThat(client.deadLetters(DEAD, 100)).filteredOn(d -> d.id().equals("moved:1")).singleElement()
                .satisfies(d -> assertThat(d.reason()).startsWith("expired"));
        assertThat(received).noneMatch(r -> r.startsWith("moved:1="));
    }

    @Test
    void theExpiryTravelsInTheBodyThroughAPreparedSendRestoredAsAnOutboxDoes() {
        Instant now = Instant.now();
        PreparedSend prepared = client.prepare(DEAD, List.of(
                SendRequest.at("late", now.minusSeconds(10), SendOptions.id("outbox:1").expiresAt(now.minusSeconds(5))),
                SendRequest.of("on time", Duration.ZERO, SendOptions.id("outbox:2").expiresAfter(DAY))));
        // what an outbox stores and sends later: the bodies, restored
        client.send(client.restore(DEAD, prepared.messages()));
        await().atMost(Duration.ofSeconds(20)).until(() -> received.contains("outbox:2=on time {}")
                && client.deadLetters(DEAD, 100).stream().anyMatch(d -> d.id().equals("outbox:1")));
        assertThat(client.deadLetters(DEAD, 100)).filteredOn(d -> d.id().equals("outbox:1")).singleElement()
                .satisfies(d -> assertThat(d.reason()).startsWith("expired"));
        assertThat(received).noneMatch(r -> r.startsWith("outbox:1="));
    }

    @Test
    void withOnExpiryDropItIsDeletedAndNeverDelivered() {
        Instant now = Instant.now();
        client.sendAt(DROP, "late", now.minusSeconds(10), SendOptions.id("drop:1").expiresAt(now.minusSeconds(5)));
        await().atMost(Duration.ofSeconds(20)).until(() -> events.contains(DROP + ":DROPPED:1"));
        assertThat(client.message(DROP, "drop:1")).isEmpty();
        assertThat(client.stats(DROP).dead()).isZero();
        assertThat(received).noneMatch(r -> r.startsWith("drop:1="));
    }

    @Test
    void aMessageBeforeItsExpiryIsDeliveredWithoutTheReservedHeader() {
        client.send(DEAD, "on time", Duration.ZERO, SendOptions.id("ok:1").expiresAfter(DAY));
        client.sendAt(DEAD, "on time", Instant.now(), SendOptions.id("ok:2").expiresAt(Instant.now().plus(DAY))
                .withDedupWindow(DAY));
        await().atMost(Duration.ofSeconds(20)).until(() -> received.contains("ok:1=on time {}")
                && received.contains("ok:2=on time {}"));
    }

    @Test
    void aDurationAfterARelativeDueTimeCountsFromTheWriteOnTheRedisClock() throws Exception {
        String queue = "expiry-relative"; // no consumer: claimed by hand
        client.send(queue, "x", Duration.ZERO, SendOptions.id("rel:1").expiresAfter(Duration.ofMillis(1)));
        client.send(queue, "x", Duration.ZERO, SendOptions.id("rel:2").expiresAfter(DAY));
        Thread.sleep(20); // past rel:1's expiry (1 ms after its write), far from rel:2's
        List<String> claimed = new java.util.ArrayList<>();
        int expired = 0;
        for (String id : List.of("rel:1", "rel:2")) {
            QueueOps ops = client.queueRoute(queue).of(id);
            QueueOps.ClaimResult result = ops.claim(10, 60_000, 5, 100, DAY.toMillis(), 1000);
            expired += result.expiredDead();
            result.messages().forEach(m -> claimed.add(m.id()));
        }
        assertThat(claimed).containsExactly("rel:2");
        assertThat(expired).isEqualTo(1);
        assertThat(client.deadLetters(queue, 10)).extracting(DeadLetter::id).containsExactly("rel:1");
    }

    @Test
    void aRetryDueAfterTheExpiryIsNotRunAndTheMessageExpires() {
        // fails on its first attempt; the retry would run in an hour, after the expiry 1 s on
        client.send(DEAD, "fail", Duration.ZERO, SendOptions.id("retry:1").expiresAfter(Duration.ofSeconds(1)));
        await().atMost(Duration.ofSeconds(20)).until(() -> client.deadLetters(DEAD, 100).stream()
                .anyMatch(d -> d.id().equals("retry:1")));
        DeadLetter dead = client.deadLetters(DEAD, 100).stream().filter(d -> d.id().equals("retry:1")).findFirst().orElseThrow();
        assertThat(dead.reason()).startsWith("expired");
        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(received).filteredOn(r -> r.startsWith("retry:1=")).hasSize(1);
    }
}
