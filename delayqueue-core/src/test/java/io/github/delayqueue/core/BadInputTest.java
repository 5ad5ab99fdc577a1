package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/** Every public entry point rejects bad input with a clear message and writes nothing. */
@ExtendWith(RedisExtension.class)
class BadInputTest {

    interface Call {
        void on(DelayQueueClient client);
    }

    /** Jackson cannot serialize an object that refers to itself. */
    static final class SelfReferencing {
        public SelfReferencing getSelf() {
            return this;
        }
    }

    /** Fields and no getters: Jackson sees no property and writes {} (seen when porting an RDelayedQueue app). */
    static final class NoGetters implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
        private final String orderId;
        private final long cents;

        NoGetters(String orderId, long cents) {
            this.orderId = orderId;
            this.cents = cents;
        }

        @Override
        public String toString() {
            return orderId + cents;
        }
    }

    private final RedisContext redis;
    private DelayQueueClient client;

    BadInputTest(RedisContext redis) {
        this.redis = redis;
    }

    @BeforeEach
    void setUp() {
        client = DelayQueueClient.create(redis.redisson(),
                ClientOptions.builder().keyPrefix(redis.prefix()).maxPayloadBytes(1_000).maxBatchSize(100).build());
    }

    static Stream<Arguments> badCalls() {
        Duration d = Duration.ofSeconds(1);
        String big = "x".repeat(1_001);
        List<SendRequest> tooMany = Collections.nCopies(101, SendRequest.of("p", d));
        List<SendRequest> oneBadInBatch = new ArrayList<>(List.of(SendRequest.of("ok", d), SendRequest.of("bad", Duration.ofMillis(-1))));
        return Stream.of(
                bad("null queue", c -> c.send(null, "p", d), "queue name must not be null or blank"),
                bad("blank queue", c -> c.send("  ", "p", d), "queue name must not be null or blank"),
                bad("queue with braces", c -> c.send("a{b}", "p", d), "queue name must be 1 to 100 characters"),
                bad("null payload", c -> c.send("q", null, d), "payload must not be null"),
                bad("null delay", c -> c.send("q", "p", null), "delay must not be null"),
                bad("negative delay", c -> c.send("q", "p", Duration.ofMillis(-1)), "delay must not be negative"),
                bad("absurd delay", c -> c.send("q", "p", Duration.ofDays(100_000)), "delay must be at most"),
                bad("null due instant", c -> c.sendAt("q", "p", null), "dueAt must not be null"),
                bad("reschedule to a null instant", c -> c.rescheduleAt("q", "x", null), "dueAt must not be null"),
                bad("absurd due instant", c -> c.sendAt("q", "p", Instant.MAX), "dueAt must be within"),
                bad("null options", c -> c.send("q", "p", d, null), "options must not be null"),
                bad("blank id", c -> c.send("q", "p", d, SendOptions.id(" ")), "id must not be null or blank"),
                bad("id too long", c -> c.send("q", "p", d, SendOptions.id("i".repeat(257))), "id must be at most 256"),
                bad("id with control character", c -> c.send("q", "p", d, SendOptions.id("a\nb")), "control characters"),
                bad("payload over the limit", c -> c.send("q", big, d), "over the limit of 1000"),
                bad("headers push the message over the limit", c -> c.send("q", "x".repeat(900), d,
                        SendOptions.none().header("trace", "t".repeat(200))), "over the limit of 1000"),
                bad("id with a lone high surrogate", c -> c.send("q", "p", d, SendOptions.id("order-\uD83D")), "lone surrogate"),
                bad("id with a lone low surrogate", c -> c.send("q", "p", d, SendOptions.id("\uDE00-order")), "lone surrogate"),
                bad("header with a lone surrogate", c -> c.send("q", "p", d, SendOptions.none().header("h", "a\uD800")),
                        "lone surrogate"),
                bad("payload with a lone surrogate", c -> c.send("q", "caf\uD800", d), "lone surrogate"),
                bad("payload whose fields the codec cannot see", c -> c.send("q", new NoGetters("o-1", 5), d),
                        "has state (orderId, cents) but the codec wrote {}"),
                bad("payload Jackson cannot serialize", c -> c.send("q", new SelfReferencing(), d), "cannot be serialized"),
                bad("null batch", c -> c.sendAll("q", null), "requests must not be null"),
                bad("empty batch", c -> c.sendAll("q", List.of()), "requests must not be empty"),
                bad("batch too large", c -> c.sendAll("q", tooMany), "too many messages in one batch: 101"),
                bad("one bad message in a batch", c -> c.sendAll("q", oneBadInBatch), "delay must not be negative, was PT-0.001S (message 1)"),
                bad("duplicate id in a batch", c -> c.sendAll("q", List.of(SendRequest.of("a", d, SendOptions.id("x")),
                        SendRequest.of("b", d, SendOptions.id("x")))), "duplicate id 'x'"),
                bad("cancel null id", c -> c.cancel("q", null), "id must not be null or blank"),
                bad("cancel bad queue", c -> c.cancel("", "x"), "queue name"),
                bad("reschedule negative", c -> c.reschedule("q", "x", Duration.ofSeconds(-5)), "delay must not be negative"),
                bad("reschedule null id", c -> c.reschedule("q", null, d), "id must not be null"),
                bad("stats bad queue", c -> c.stats("no spaces allowed"), "queue name"),
                bad("dead letters limit 0", c -> c.deadLetters("q", 0), "limit must be between 1 and 1000"),
                bad("pending page limit 0", c -> c.pending("q", 0, 0), "limit must be between 1 and 1000"),
                bad("pending page limit 1001", c -> c.pending("q", 0, 1_001), "limit must be between 1 and 1000"),
                bad("pending page negative offset", c -> c.pending("q", -1, 10), "offset must not be negative"),
                bad("in-flight page bad queue", c -> c.inFlight("a b", 0, 10), "queue name"),
                bad("message null id", c -> c.message("q", null), "id must not be null or blank"),
                bad("message bad queue", c -> c.message(null, "x"), "queue name must not be null"),
                bad("requeue null keys", c -> c.requeueDeadLetters("q", null), "keys must not be null"),
                bad("purge blank key", c -> c.purgeDeadLetters("q", List.of("")), "not a dead-letter key"),
                bad("purge a key with a blank id", c -> c.purgeDeadLetters("q", List.of(": ")), "id must not be null or blank"),
                bad("consumer null handler", c -> c.newConsumer("q", String.class, null, ConsumerOptions.DEFAULTS),
                        "handler must not be null"),
                bad("consumer null options", c -> c.newConsumer("q", String.class, (p, x) -> { }, null),
                        "consumerOptions must not be null"),
                bad("consumer of a type the codec cannot build", c -> c.newConsumer("q", Runnable.class, (p, x) -> { },
                        ConsumerOptions.DEFAULTS), "cannot be built"));
    }

    private static Arguments bad(String name, Call call, String message) {
        return Arguments.of(name, call, message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badCalls")
    void rejectedWithAClearMessageAndNothingWritten(String name, Call call, String message) {
        assertThatIllegalArgumentException().isThrownBy(() -> call.on(client)).withMessageContaining(message);
        assertThat(redis.redisson().getKeys().getKeysByPattern(redis.prefix() + ":*")).as("keys written").isEmpty();
    }

    @org.junit.jupiter.api.Test
    void validSurrogatePairsAndEmptyMapsAreFine() {
        assertThat(client.send("q", "\uD83D\uDE00", Duration.ofHours(1), SendOptions.id("order-\uD83D\uDE00")))
                .isEqualTo("order-\uD83D\uDE00");
        assertThat(client.send("q", java.util.Map.of(), Duration.ofHours(1), SendOptions.id("empty"))).isEqualTo("empty");
        assertThat(client.stats("q").pending()).isEqualTo(2);
        redis.redisson().getKeys().deleteByPattern(redis.prefix() + ":*");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badOptions")
    void badOptionsAreRejected(String name, Runnable build, String message) {
        assertThatIllegalArgumentException().isThrownBy(build::run).withMessageContaining(message);
    }

    static Stream<Arguments> badOptions() {
        return Stream.of(
                Arguments.of("concurrency 0", (Runnable) () -> ConsumerOptions.builder().concurrency(0).build(),
                        "concurrency must be between 1"),
                Arguments.of("batch 0", (Runnable) () -> ConsumerOptions.builder().batchSize(0).build(), "batchSize"),
                Arguments.of("visibility 10ms", (Runnable) () -> ConsumerOptions.builder()
                        .visibilityTimeout(Duration.ofMillis(10)).build(), "at least 100ms"),
                Arguments.of("null handler timeout", (Runnable) () -> ConsumerOptions.builder().handlerTimeout(null).build(),
                        "handlerTimeout must not be null"),
                Arguments.of("handler timeout forever", (Runnable) () -> ConsumerOptions.builder()
                        .handlerTimeout(ChronoUnit.FOREVER.getDuration()).build(), "handlerTimeout must be at most"),
                Arguments.of("poll interval 11 years", (Runnable) () -> ConsumerOptions.builder()
                        .maxPollInterval(Duration.ofDays(11 * 365)).build(), "maxPollInterval must be at most"),
                Arguments.of("visibility forever", (Runnable) () -> ConsumerOptions.builder()
                        .visibilityTimeout(ChronoUnit.FOREVER.getDuration()).build(), "visibilityTimeout must be at most"),
                Arguments.of("shutdown timeout forever", (Runnable) () -> ConsumerOptions.builder()
                        .shutdownTimeout(ChronoUnit.FOREVER.getDuration()).build(), "shutdownTimeout must be at most"),
                Arguments.of("back-off forever", (Runnable) () -> new RetryPolicy(3, Duration.ofSeconds(1), 2,
                        ChronoUnit.FOREVER.getDuration(), 0), "maxBackoff must be at most"),
                Arguments.of("max attempts 0", (Runnable) () -> new RetryPolicy(0, Duration.ofSeconds(1), 2,
                        Duration.ofSeconds(1), 0), "maxAttempts"),
                Arguments.of("jitter 2", (Runnable) () -> new RetryPolicy(1, Duration.ofSeconds(1), 2,
                        Duration.ofSeconds(1), 2), "jitter"),
                Arguments.of("prefix with brace", (Runnable) () -> ClientOptions.builder().keyPrefix("a{").build(), "hash tag"),
                Arguments.of("blank prefix", (Runnable) () -> ClientOptions.builder().keyPrefix("").build(), "keyPrefix"));
    }
}
