package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.redisson.api.RScoredSortedSet;
import org.redisson.api.RScript;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * A score in the delayed set that delayqueue never writes (set by hand or by another tool) sends that one
 * message to the dead letters; the rest of its batch is delivered at once, on its first attempt.
 */
@ExtendWith(RedisExtension.class)
class ForeignScoreTest {

    private final RedisContext redis;
    private DelayQueueClient client;
    private DelayQueueConsumer consumer;

    ForeignScoreTest(RedisContext redis) {
        this.redis = redis;
    }

    @BeforeEach
    void setUp() {
        client = redis.client();
    }

    @AfterEach
    void tearDown() {
        if (consumer != null) {
            consumer.stop();
        }
    }

    /** ZADD of the member of {@code id} in {@code set} with the score as text: the way redis-cli or another tool writes it. */
    private void rescore(String set, String id, String score) {
        String member = redis.redisson().getScoredSortedSet(set, StringCodec.INSTANCE).valueRange(0, -1)
                .stream().map(Object::toString).filter(m -> m.endsWith(id)).findFirst().orElseThrow();
        redis.redisson().getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_WRITE,
                "return redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])", RScript.ReturnType.LONG,
                List.of(set), score, member);
    }

    /** Starts a consumer of {@code queue} that records each payload, every one on its first attempt. */
    private Set<String> consume(String queue) {
        Set<String> delivered = ConcurrentHashMap.newKeySet();
        consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            assertThat(context.attempt()).isEqualTo(1);
            delivered.add(payload);
        }, ConsumerOptions.builder().batchSize(10).build());
        consumer.start();
        return delivered;
    }

    @ParameterizedTest
    @ValueSource(strings = { "1.5", "-inf", "inf", "1e300" })
    void aMessageWithAForeignScoreIsDeadLetteredAndTheRestOfItsBatchIsDelivered(String score) {
        String queue = "foreign-score" + score; // a queue of its own per case
        for (String id : List.of("a", "b", "c")) {
            client.send(queue, id, Duration.ZERO, SendOptions.id(id));
        }
        QueueKeys keys = QueueKeys.of(redis.prefix(), queue);
        String delayed = keys.keys().get(1).toString();
        rescore(delayed, "b", score);
        Set<String> delivered = consume(queue);

        // the default lease is 30 s: well within it, so the batch did not wait out a lease
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(delivered).containsExactlyInAnyOrder("a", "c");
            assertThat(client.deadLetters(queue, 10)).singleElement().satisfies(dead -> {
                assertThat(dead.id()).isEqualTo("b");
                assertThat(dead.payload()).isEqualTo("\"b\"");
                assertThat(dead.reason()).contains("not a whole number of milliseconds");
            });
        });
        RScoredSortedSet<Object> delayedSet = redis.redisson().getScoredSortedSet(delayed, StringCodec.INSTANCE);
        assertThat(delayedSet.size()).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> client.stats(queue).inFlight() == 0);
        assertThat(delivered).containsExactlyInAnyOrder("a", "c");
    }

    /** The same in a group's pending set (grouped messages never wait in delayed): dead-lettered, not claimed. */
    @ParameterizedTest
    @ValueSource(strings = { "1.5", "-inf" })
    void aGroupedMessageWithAForeignScoreIsDeadLetteredAndTheRestOfItsGroupIsDelivered(String score) {
        String queue = "foreign-group-score" + score;
        for (String id : List.of("a", "b", "c")) {
            client.send(queue, id, Duration.ZERO, SendOptions.id(id).group("g"));
        }
        String messages = QueueKeys.of(redis.prefix(), queue).keys().get(0).toString();
        String pending = messages.substring(0, messages.length() - "messages".length()) + "g:g:p";
        rescore(pending, "b", score);
        Set<String> delivered = consume(queue);

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(delivered).containsExactlyInAnyOrder("a", "c");
            assertThat(client.deadLetters(queue, 10)).singleElement().satisfies(dead -> {
                assertThat(dead.id()).isEqualTo("b");
                assertThat(dead.reason()).contains("not a whole number of milliseconds");
            });
        });
        assertThat(redis.redisson().getScoredSortedSet(pending, StringCodec.INSTANCE).size()).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> client.stats(queue).pending() == 0);
    }

    /**
     * A grouped message scored +inf (never due) at its group's head used to leave the group scored -2^63 in the index,
     * due at once for ever; now the group is scored +inf there and the pollers' periodic pass dead-letters that head.
     */
    @org.junit.jupiter.api.Test
    void aGroupedMessageScoredInfinityIsDeadLetteredAndItsGroupGoesOn() {
        String queue = "foreign-group-infinity";
        client.send(queue, "a", Duration.ZERO, SendOptions.id("a").group("g"));
        String messages = QueueKeys.of(redis.prefix(), queue).keys().get(0).toString();
        String base = messages.substring(0, messages.length() - "messages".length());
        rescore(base + "g:g:p", "a", "+inf");
        client.send(queue, "b", Duration.ofMillis(200), SendOptions.id("b").group("g"));

        Set<String> delivered = ConcurrentHashMap.newKeySet();
        consumer = client.newConsumer(queue, String.class, (payload, context) -> delivered.add(payload),
                ConsumerOptions.builder().maxPollInterval(Duration.ofMillis(50)).build());
        consumer.start();

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(delivered).containsExactly("b");
            assertThat(client.deadLetters(queue, 10)).singleElement().satisfies(dead -> {
                assertThat(dead.id()).isEqualTo("a");
                assertThat(dead.reason()).contains("not a whole number of milliseconds");
            });
            assertThat(client.stats(queue).pending()).isZero();
        });
        assertThat(redis.redisson().getScoredSortedSet(base + "groups", StringCodec.INSTANCE).size()).isZero();
    }
}
