package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * Ids remembered after delivery ({@link SendOptions#withDedupWindow}): for the window after a message is acknowledged
 * or dead-lettered, an if-absent send with a window under its id writes nothing; the memory is one key with a time to
 * live, in the id's partition, and nothing is left for messages without a window.
 */
@ExtendWith(RedisExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DedupWindowTest {

    private static final String QUEUE = "dedup";
    private static final Duration DAY = Duration.ofDays(1);

    private final RedisContext redis;
    private DelayQueueClient client;
    private DelayQueueConsumer consumer;
    private final List<String> received = new CopyOnWriteArrayList<>();

    DedupWindowTest(RedisContext redis) {
        this.redis = redis;
    }

    /** The client under test; the partitioned variant gives one with several partitions per queue. */
    DelayQueueClient newClient() {
        return redis.client();
    }

    RedisContext redis() {
        return redis;
    }

    @BeforeAll
    void consume() {
        client = newClient();
        consumer = client.newConsumer(QUEUE, String.class, (payload, context) -> {
            received.add(context.id() + "=" + payload);
            if (payload.startsWith("fail")) {
                throw new IllegalStateException("fails for good");
            }
        }, ConsumerOptions.builder().noRetryFor(Set.of(IllegalStateException.class)).build());
        consumer.start();
    }

    @AfterAll
    void stop() {
        consumer.stop();
    }

    @Test
    void anAcknowledgedIdIsRefusedWithinTheWindow() {
        SendOptions once = SendOptions.id("welcome:1").withDedupWindow(DAY);
        assertThat(client.send(QUEUE, "first", Duration.ZERO, once)).isEqualTo("welcome:1");
        awaitRemembered("welcome:1");
        assertThat(received).containsOnlyOnce("welcome:1=first");
        assertThat(bucket("welcome:1").remainTimeToLive()).as("the window is the key's time to live")
                .isPositive().isLessThanOrEqualTo(DAY.toMillis());
        assertThat(windows("welcome:1")).as("the live message's window is gone").isEmpty();

        assertThat(client.send(QUEUE, "second", Duration.ZERO, once)).isEqualTo("welcome:1");
        assertThat(client.message(QUEUE, "welcome:1")).as("nothing written").isEmpty();
        await().during(Duration.ofMillis(300)).until(() -> true);
        assertThat(received).filteredOn(r -> r.startsWith("welcome:1=")).containsExactly("welcome:1=first");
    }

    @Test
    void anIdIsAcceptedAgainOnceItsWindowHasPassed() {
        SendOptions once = SendOptions.id("welcome:2").withDedupWindow(Duration.ofMillis(300));
        client.send(QUEUE, "first", Duration.ZERO, once);
        await().atMost(Duration.ofSeconds(20)).until(() -> received.contains("welcome:2=first"));
        // Redis expires the memory by itself: nothing in delayqueue runs for it
        await().atMost(Duration.ofSeconds(20)).until(() -> !bucket("welcome:2").isExists()
                && client.message(QUEUE, "welcome:2").isEmpty());
        client.send(QUEUE, "again", Duration.ZERO, once);
        await().atMost(Duration.ofSeconds(20)).until(() -> received.contains("welcome:2=again"));
        assertThat(received).filteredOn(r -> r.startsWith("welcome:2=")).containsExactly("welcome:2=first", "welcome:2=again");
    }

    @Test
    void aDeadLetteredIdIsRememberedToo() {
        SendOptions once = SendOptions.id("dead:1").withDedupWindow(DAY);
        client.send(QUEUE, "fail", Duration.ZERO, once);
        awaitRemembered("dead:1");
        assertThat(client.message(QUEUE, "dead:1")).isEmpty();

        client.send(QUEUE, "again", Duration.ZERO, once);
        assertThat(client.message(QUEUE, "dead:1")).as("nothing written").isEmpty();
        assertThat(bucket("dead:1").remainTimeToLive()).isPositive().isLessThanOrEqualTo(DAY.toMillis());
    }

    @Test
    void aLeaseExpiredOnTheLastAttemptIsADeadLetterAndRemembered() {
        String queue = "dedup-lease";
        SendOptions once = SendOptions.id("lease:1").withDedupWindow(DAY);
        client.send(queue, "hangs", Duration.ZERO, once);
        io.github.delayqueue.core.protocol.QueueOps ops = client.queueRoute(queue).of("lease:1");
        await().atMost(Duration.ofSeconds(20)).until(() -> ops.claim(1, 100, 1, 100, DAY.toMillis(), 1000).messages().size() == 1);
        // claimed with a lease of 100 ms on its only attempt and never settled: a later claim buries it
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            ops.claim(1, 100, 1, 100, DAY.toMillis(), 1000);
            return client.stats(queue).dead() == 1;
        });
        assertThat(remembered(queue, "lease:1")).isTrue();
        client.send(queue, "again", Duration.ZERO, once);
        assertThat(client.message(queue, "lease:1")).as("nothing written").isEmpty();
    }

    @Test
    void aBatchWritesOnlyTheIdsNotRemembered() {
        client.send(QUEUE, "first", Duration.ZERO, SendOptions.id("batch:1").withDedupWindow(DAY));
        awaitRemembered("batch:1");

        client.sendAll(QUEUE, List.of(
                SendRequest.of("second", Duration.ofHours(1), SendOptions.id("batch:1").withDedupWindow(DAY)),
                SendRequest.of("other", Duration.ofHours(1), SendOptions.id("batch:2").withDedupWindow(DAY))));

        assertThat(client.message(QUEUE, "batch:1")).isEmpty();
        assertThat(client.message(QUEUE, "batch:2")).isPresent();
        assertThat(client.cancel(QUEUE, "batch:2")).isTrue();
    }

    @Test
    void aCancelledIdIsNotRemembered() {
        SendOptions once = SendOptions.id("cancel:1").withDedupWindow(DAY);
        client.send(QUEUE, "first", Duration.ofHours(1), once);
        assertThat(client.cancel(QUEUE, "cancel:1")).isTrue();
        assertThat(bucket("cancel:1").isExists()).isFalse();

        client.send(QUEUE, "second", Duration.ofHours(1), once);
        assertThat(client.message(QUEUE, "cancel:1")).map(QueuedMessage::payload).contains("\"second\"");
        assertThat(client.cancel(QUEUE, "cancel:1")).isTrue();
        assertThat(windows("cancel:1")).as("no window left for a message that is gone").isEmpty();
    }

    @Test
    void aReplaceWritesWhileRememberedAndLeavesTheMemoryToRunOut() {
        SendOptions once = SendOptions.id("replace:1").withDedupWindow(DAY);
        client.send(QUEUE, "first", Duration.ZERO, once);
        awaitRemembered("replace:1");

        client.send(QUEUE, "replaced", Duration.ofHours(1), SendOptions.id("replace:1").replaceExisting());
        assertThat(client.message(QUEUE, "replace:1")).map(QueuedMessage::payload).contains("\"replaced\"");
        assertThat(bucket("replace:1").isExists()).as("the memory is not cleared").isTrue();
        assertThat(client.cancel(QUEUE, "replace:1")).isTrue();
        assertThat(bucket("replace:1").isExists()).as("a cancel does not clear it either").isTrue();
    }

    @Test
    void aSendWithoutAWindowNeitherChecksNorLeavesMemory() {
        client.send(QUEUE, "first", Duration.ZERO, SendOptions.id("plain:1"));
        await().atMost(Duration.ofSeconds(20)).until(() -> received.contains("plain:1=first")
                && client.message(QUEUE, "plain:1").isEmpty());
        assertThat(bucket("plain:1").isExists()).isFalse();

        client.send(QUEUE, "remembered", Duration.ZERO, SendOptions.id("plain:2").withDedupWindow(DAY));
        awaitRemembered("plain:2");
        client.send(QUEUE, "no window", Duration.ofHours(1), SendOptions.id("plain:2"));
        assertThat(client.message(QUEUE, "plain:2")).as("a send without a window does not look").isPresent();
        assertThat(client.cancel(QUEUE, "plain:2")).isTrue();
    }

    @Test
    void handlersDoNotSeeTheWindowAndSeeTheirOwnHeaders() {
        client.send(QUEUE, "hidden", Duration.ofHours(1), SendOptions.id("headers:1").withDedupWindow(DAY).header("a", "b"));
        assertThat(client.message(QUEUE, "headers:1")).map(QueuedMessage::headers).contains(Map.of("a", "b"));
        assertThat(windows("headers:1")).contains(Long.toString(DAY.toMillis()));
        assertThat(client.cancel(QUEUE, "headers:1")).isTrue();
    }

    @Test
    void theWindowTravelsThroughPreparedSendsAndVersionedIntents() {
        SendOptions once = SendOptions.id("outbox:1").withDedupWindow(DAY);
        PreparedSend.Message stored = client.prepare(QUEUE, List.of(SendRequest.of("first", Duration.ZERO, once)))
                .messages().get(0);
        PreparedSend.Message restored = client.restore(QUEUE, List.of(stored)).messages().get(0);
        assertThat(client.applyVersioned(QUEUE, List.of(VersionedIntent.send(restored, 1)), DAY))
                .containsExactly(VersionedIntent.Outcome.APPLIED);
        awaitRemembered("outbox:1");

        PreparedSend.Message again = client.prepare(QUEUE, List.of(SendRequest.of("second", Duration.ZERO, once)))
                .messages().get(0);
        assertThat(client.applyVersioned(QUEUE, List.of(VersionedIntent.send(again, 2)), DAY))
                .containsExactly(VersionedIntent.Outcome.NOTHING_TO_DO);
        assertThat(client.message(QUEUE, "outbox:1")).isEmpty();
        client.send(client.restore(QUEUE, List.of(again)));
        assertThat(client.message(QUEUE, "outbox:1")).as("a restored send is refused as well").isEmpty();
    }

    @Test
    void aRestoredBodyWithABadWindowIsRefused() {
        String body = "23:{\"" + SendOptions.DEDUP_WINDOW_HEADER + "\":\"0\"}\"x\"";
        PreparedSend.Message bad = new PreparedSend.Message("bad:2", SendMode.IF_ABSENT, Duration.ZERO, null, body);
        assertThatIllegalArgumentException().isThrownBy(() -> client.restore(QUEUE, List.of(bad)))
                .withMessageContaining("dedup window");
        assertThat(client.message(QUEUE, "bad:2")).isEmpty();
    }

    @Test
    void badWindowsAreRefused() {
        SendOptions id = SendOptions.id("bad:1");
        assertThatIllegalArgumentException().isThrownBy(() -> id.withDedupWindow(Duration.ZERO));
        assertThatIllegalArgumentException().isThrownBy(() -> id.withDedupWindow(Duration.ofMillis(-1)));
        assertThatIllegalArgumentException().isThrownBy(() -> id.withDedupWindow(Duration.ofNanos(999_999)));
        assertThatIllegalArgumentException().isThrownBy(() -> id.withDedupWindow(null));
        assertThatIllegalArgumentException().isThrownBy(() -> id.withDedupWindow(SendOptions.MAX_DEDUP_WINDOW.plusMillis(1)));
        assertThatIllegalArgumentException().isThrownBy(() -> id.withDedupWindow(Duration.ofSeconds(Long.MAX_VALUE)));
        assertThat(id.withDedupWindow(SendOptions.MAX_DEDUP_WINDOW).dedupWindow()).isEqualTo(SendOptions.MAX_DEDUP_WINDOW);
        assertThatIllegalArgumentException().isThrownBy(() -> id.header(SendOptions.DEDUP_WINDOW_HEADER, "1000"));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> id.withHeaders(Map.of(SendOptions.DEDUP_WINDOW_HEADER, "1000")));
        assertThatIllegalArgumentException().as("a window needs an id to remember")
                .isThrownBy(() -> client.send(QUEUE, "x", Duration.ZERO, SendOptions.none().withDedupWindow(DAY)));
        assertThat(client.message(QUEUE, "bad:1")).isEmpty();
    }

    private boolean remembered(String queue, String id) {
        String messages = (String) client.queueRoute(queue).of(id).keys().keys().get(0);
        return redis.redisson().getBucket(messages.substring(0, messages.length() - "messages".length()) + "remembered:" + id,
                StringCodec.INSTANCE).isExists();
    }

    private void awaitRemembered(String id) {
        await().atMost(Duration.ofSeconds(20)).until(() -> bucket(id).isExists());
    }

    private String base(String id) {
        String messages = (String) client.queueRoute(QUEUE).of(id).keys().keys().get(0);
        return messages.substring(0, messages.length() - "messages".length());
    }

    private org.redisson.api.RBucket<String> bucket(String id) {
        return redis.redisson().getBucket(base(id) + "remembered:" + id, StringCodec.INSTANCE);
    }

    private java.util.Optional<String> windows(String id) {
        return java.util.Optional.ofNullable(
                redis.redisson().<String, String>getMap(base(id) + "windows", StringCodec.INSTANCE).get(id));
    }
}
