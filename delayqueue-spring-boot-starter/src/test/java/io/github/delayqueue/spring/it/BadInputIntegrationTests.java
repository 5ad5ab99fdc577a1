package io.github.delayqueue.spring.it;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import io.github.delayqueue.testing.TestRedis;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.redisson.api.RedissonClient;
import org.redisson.codec.Kryo5Codec;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Bad input to every public entry point of {@link DelayQueueTemplate} and {@link DelayQueueAdmin}:
 * each call throws an {@link IllegalArgumentException} naming the problem, and Redis is unchanged,
 * key for key and byte for byte. Sends are also tried inside a transaction that then commits
 * anyway (the application caught the exception), which takes the after-commit path.
 */
@SpringBootTest(classes = TestApplication.class)
class BadInputIntegrationTests {

    private static final String PREFIX = TestRedis.uniquePrefix();

    /** A queue the application does not declare (its enum is outside the scanned packages). */
    private static final DelayQueueCode UNDECLARED = OrderQueues.ORDER_TIMEOUT;

    /** Not the declared constant, though it claims its code. */
    private static final DelayQueueCode IMPOSTOR = () -> "SEND_ONLY";

    private static final DelayQueueCode Q = ItQueues.SEND_ONLY;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", TestRedis::url);
        registry.add("delayqueue.key-prefix", () -> PREFIX);
        registry.add("delayqueue.consumer.enabled", () -> "false"); // nothing but the calls under test touches Redis
        registry.add("delayqueue.queues.SEND_ONLY.max-payload-size", () -> "1KB");
        registry.add("delayqueue.producer.max-batch-size", () -> "10");
    }

    @AfterAll
    static void deleteKeys() {
        TestRedis.deleteKeys(PREFIX);
    }

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    DelayQueueAdmin admin;

    @Autowired
    TransactionTemplate transactions;

    @Autowired
    RedissonClient redisson;

    @BeforeEach
    void seed() {
        this.template.send(Q, Map.of("order", 42), Duration.ofHours(1), SendOptions.id("seed"));
    }

    /** Jackson cannot serialize it: its getter throws. */
    public static final class Unserializable {

        public String getValue() {
            throw new IllegalStateException("no JSON for me");
        }
    }

    private record Case(String name, String message, ThrowingCallable call) {
    }

    /** A field and no getter: Jackson writes {}. */
    static final class NoGetters {
        private final String orderId;

        NoGetters(String orderId) {
            this.orderId = orderId;
        }

        @Override
        public String toString() {
            return this.orderId;
        }
    }

    private List<Case> sends() {
        String big = "x".repeat(2_000);
        List<SendRequest> eleven = IntStream.range(0, 11).mapToObj(i -> SendRequest.of("m" + i, Duration.ZERO)).toList();
        return List.of(
                new Case("send: null code", "queue code must not be null", () -> this.template.send(null, "p", Duration.ZERO)),
                new Case("send: undeclared code", "Unknown queue code 'ORDER_TIMEOUT'",
                        () -> this.template.send(UNDECLARED, "p", Duration.ZERO)),
                new Case("send: impostor code", "Unknown queue code 'SEND_ONLY'",
                        () -> this.template.send(IMPOSTOR, "p", Duration.ZERO)),
                new Case("send: null payload", "payload must not be null", () -> this.template.send(Q, null, Duration.ZERO)),
                new Case("send: payload Jackson cannot serialize", "cannot be serialized to JSON",
                        () -> this.template.send(Q, new Unserializable(), Duration.ZERO)),
                new Case("send: oversized payload", "over the limit of 1024", () -> this.template.send(Q, big, Duration.ZERO)),
                new Case("send: null delay", "delay must not be null", () -> this.template.send(Q, "p", null)),
                new Case("send: negative delay", "delay must not be negative",
                        () -> this.template.send(Q, "p", Duration.ofMillis(-1))),
                new Case("send: absurd delay", "delay must be at most",
                        () -> this.template.send(Q, "p", Duration.ofDays(365 * 20))),
                new Case("send: largest Duration", "delay must be at most",
                        () -> this.template.send(Q, "p", Duration.ofSeconds(Long.MAX_VALUE))),
                new Case("send: null options", "options must not be null",
                        () -> this.template.send(Q, "p", Duration.ZERO, null)),
                new Case("send: blank id", "id must not be null or blank",
                        () -> this.template.send(Q, "p", Duration.ZERO, SendOptions.id(" "))),
                new Case("send: id too long", "id must be at most 256 characters",
                        () -> this.template.send(Q, "p", Duration.ZERO, SendOptions.id("i".repeat(257)))),
                new Case("send: id with control character", "control characters",
                        () -> this.template.send(Q, "p", Duration.ZERO, SendOptions.id("a\nb"))),
                new Case("send: id with a lone surrogate", "lone surrogate",
                        () -> this.template.send(Q, "p", Duration.ZERO, SendOptions.id("order-\uD83D"))),
                new Case("send: headers push the message over the limit", "over the limit of 1024", () -> this.template
                        .send(Q, "x".repeat(900), Duration.ZERO, SendOptions.none().header("trace", "t".repeat(200)))),
                new Case("send: payload whose fields the codec cannot see", "but the codec wrote {}",
                        () -> this.template.send(Q, new NoGetters("o-1"), Duration.ZERO)),
                new Case("sendAt: null instant", "dueAt must not be null", () -> this.template.sendAt(Q, "p", null)),
                new Case("sendAt: absurd instant", "dueAt must be within",
                        () -> this.template.sendAt(Q, "p", Instant.now().plus(Duration.ofDays(365 * 20)))),
                new Case("sendAt: Instant.MAX", "dueAt must be within", () -> this.template.sendAt(Q, "p", Instant.MAX)),
                new Case("sendAt: before 1970", "dueAt must not be before 1970",
                        () -> this.template.sendAt(Q, "p", Instant.parse("1969-12-31T23:59:59Z"))),
                new Case("sendAt: undeclared code", "Unknown queue code",
                        () -> this.template.sendAt(UNDECLARED, "p", Instant.now(), SendOptions.none())),
                new Case("sendAll: null list", "requests must not be null", () -> this.template.sendAll(Q, null)),
                new Case("sendAll: empty list", "requests must not be empty", () -> this.template.sendAll(Q, List.of())),
                new Case("sendAll: too many items", "too many messages in one batch: 11 > maxBatchSize 10",
                        () -> this.template.sendAll(Q, eleven)),
                new Case("sendAll: null item", "request must not be null (message 1)",
                        () -> this.template.sendAll(Q, Arrays.asList(SendRequest.of("ok", Duration.ZERO), null))),
                new Case("sendAll: duplicate ids", "duplicate id 'd'", () -> this.template.sendAll(Q, List.of(
                        SendRequest.of("a", Duration.ZERO, SendOptions.id("d")),
                        SendRequest.of("b", Duration.ZERO, SendOptions.id("d"))))),
                new Case("sendAll: one bad item among good ones", "delay must not be negative, was PT-1S (message 2)",
                        () -> this.template.sendAll(Q, List.of(SendRequest.of("a", Duration.ZERO),
                                SendRequest.of("b", Duration.ofMinutes(1)), SendRequest.of("c", Duration.ofSeconds(-1))))),
                new Case("sendAll: undeclared code", "Unknown queue code",
                        () -> this.template.sendAll(UNDECLARED, List.of(SendRequest.of("a", Duration.ZERO)))));
    }

    private List<Case> others() {
        List<String> tooManyIds = IntStream.range(0, 1_001).mapToObj(i -> "id" + i).toList();
        return List.of(
                new Case("cancel: null code", "queue code must not be null", () -> this.template.cancel(null, "seed")),
                new Case("cancel: impostor code", "Unknown queue code", () -> this.template.cancel(IMPOSTOR, "seed")),
                new Case("cancel: null id", "id must not be null or blank", () -> this.template.cancel(Q, null)),
                new Case("cancel: blank id", "id must not be null or blank", () -> this.template.cancel(Q, "")),
                new Case("cancel: id too long", "id must be at most 256", () -> this.template.cancel(Q, "i".repeat(300))),
                new Case("reschedule: undeclared code", "Unknown queue code",
                        () -> this.template.reschedule(UNDECLARED, "seed", Duration.ZERO)),
                new Case("reschedule: null id", "id must not be null or blank",
                        () -> this.template.reschedule(Q, null, Duration.ZERO)),
                new Case("reschedule: null delay", "delay must not be null", () -> this.template.reschedule(Q, "seed", null)),
                new Case("reschedule: negative delay", "delay must not be negative",
                        () -> this.template.reschedule(Q, "seed", Duration.ofSeconds(-5))),
                new Case("reschedule: absurd delay", "delay must be at most",
                        () -> this.template.reschedule(Q, "seed", Duration.ofDays(365 * 20))),
                new Case("rescheduleAt: null instant", "dueAt must not be null",
                        () -> this.template.rescheduleAt(Q, "seed", null)),
                new Case("rescheduleAt: absurd instant", "dueAt must be within",
                        () -> this.template.rescheduleAt(Q, "seed", Instant.MAX)),
                new Case("rescheduleAt: null code", "queue code must not be null",
                        () -> this.template.rescheduleAt(null, "seed", Instant.now())),
                new Case("stats: null code", "queue code must not be null", () -> this.admin.stats(null)),
                new Case("stats: undeclared code", "Unknown queue code", () -> this.admin.stats(UNDECLARED)),
                new Case("deadLetters: null code", "queue code must not be null", () -> this.admin.deadLetters(null, 10)),
                new Case("deadLetters: limit 0", "limit must be between 1 and 1000", () -> this.admin.deadLetters(Q, 0)),
                new Case("deadLetters: limit 1001", "limit must be between 1 and 1000",
                        () -> this.admin.deadLetters(Q, 1_001)),
                new Case("admin.pending: undeclared code", "Unknown queue code", () -> this.admin.pending(UNDECLARED, 0, 10)),
                new Case("admin.pending: negative offset", "offset must not be negative", () -> this.admin.pending(Q, -1, 10)),
                new Case("admin.pending: limit 1001", "limit must be between 1 and 1000", () -> this.admin.pending(Q, 0, 1_001)),
                new Case("admin.inFlight: null code", "queue code must not be null", () -> this.admin.inFlight(null, 0, 10)),
                new Case("admin.inFlight: limit 0", "limit must be between 1 and 1000", () -> this.admin.inFlight(Q, 0, 0)),
                new Case("admin.message: blank id", "id must not be null or blank", () -> this.admin.message(Q, " ")),
                new Case("admin.message: impostor code", "Unknown queue code", () -> this.admin.message(IMPOSTOR, "a")),
                new Case("admin.reschedule: null instant", "dueAt must not be null", () -> this.admin.reschedule(Q, "a", null)),
                new Case("admin.reschedule: absurd instant", "dueAt must be within", () -> this.admin.reschedule(Q, "a", java.time.Instant.MAX)),
                new Case("admin.reschedule: null id", "id must not be null or blank", () -> this.admin.reschedule(Q, null, java.time.Instant.now())),
                new Case("requeue: undeclared code", "Unknown queue code", () -> this.admin.requeue(UNDECLARED, List.of("seed"))),
                new Case("requeue: null keys", "keys must not be null", () -> this.admin.requeue(Q, null)),
                new Case("requeue: a bare id", "not a dead-letter key", () -> this.admin.requeue(Q, List.of(":a", "a"))),
                new Case("requeue: blank id", "id must not be null or blank", () -> this.admin.requeue(Q, List.of(":a", ": "))),
                new Case("requeue: too many keys", "at most 1000 keys per call", () -> this.admin.requeue(Q, tooManyIds)),
                new Case("requeueAll: null code", "queue code must not be null", () -> this.admin.requeueAll(null)),
                new Case("requeueAll: impostor code", "Unknown queue code", () -> this.admin.requeueAll(IMPOSTOR)),
                new Case("purge: null code", "queue code must not be null", () -> this.admin.purge(null, List.of("seed"))),
                new Case("purge: null keys", "keys must not be null", () -> this.admin.purge(Q, null)),
                new Case("purge: null key", "dead-letter key must not be null",
                        () -> this.admin.purge(Q, Collections.singletonList(null))),
                new Case("purge: too many keys", "at most 1000 keys per call", () -> this.admin.purge(Q, tooManyIds)),
                new Case("purgeAll: null code", "queue code must not be null", () -> this.admin.purgeAll(null)),
                new Case("purgeAll: undeclared code", "Unknown queue code", () -> this.admin.purgeAll(UNDECLARED)),
                new Case("pause: null code", "queue code must not be null", () -> this.admin.pause(null)),
                new Case("pause: undeclared code", "Unknown queue code", () -> this.admin.pause(UNDECLARED)),
                new Case("resume: impostor code", "Unknown queue code", () -> this.admin.resume(IMPOSTOR)),
                new Case("isPaused: null code", "queue code must not be null", () -> this.admin.isPaused(null)),
                new Case("admin cancel: undeclared code", "Unknown queue code", () -> this.admin.cancel(UNDECLARED, "seed")),
                new Case("admin cancel: null id", "id must not be null or blank", () -> this.admin.cancel(Q, null)),
                new Case("runNow: undeclared code", "Unknown queue code", () -> this.admin.runNow(UNDECLARED, "seed")),
                new Case("runNow: blank id", "id must not be null or blank", () -> this.admin.runNow(Q, " ")),
                new Case("runNow: id too long", "id must be at most 256", () -> this.admin.runNow(Q, "i".repeat(257))),
                new Case("runNow: id with control character", "control characters", () -> this.admin.runNow(Q, "se\0ed")),
                new Case("importFromRDelayedQueue: null code", "queue code must not be null",
                        () -> this.admin.importFromRDelayedQueue(null, "legacy", new Kryo5Codec(), false)),
                new Case("importFromRDelayedQueue: undeclared code", "Unknown queue code",
                        () -> this.admin.importFromRDelayedQueue(UNDECLARED, "legacy", new Kryo5Codec(), false)),
                new Case("importFromRDelayedQueue: blank name", "the Redisson queue name must not be null or blank",
                        () -> this.admin.importFromRDelayedQueue(Q, " ", new Kryo5Codec(), false)),
                new Case("importFromRDelayedQueue: null codec", "the Redisson codec must not be null",
                        () -> this.admin.importFromRDelayedQueue(Q, "legacy", null, true)),
                new Case("importFromRDelayedQueue: null mapping", "mapping must not be null",
                        () -> this.admin.importFromRDelayedQueue(Q, "legacy", new Kryo5Codec(), false, null)));
    }

    @TestFactory
    Stream<DynamicTest> eachBadCallThrowsAndLeavesRedisUnchanged() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Case c : sends()) {
            tests.add(DynamicTest.dynamicTest(c.name(), () -> assertRejected(c, c.call())));
            tests.add(DynamicTest.dynamicTest(c.name() + ", in a transaction that commits", () -> assertRejected(c,
                    () -> {
                        Throwable[] thrown = new Throwable[1];
                        this.transactions.executeWithoutResult(status -> thrown[0] = catchThrowable(c.call()));
                        if (thrown[0] != null) {
                            throw thrown[0];
                        }
                    })));
        }
        for (Case c : others()) {
            tests.add(DynamicTest.dynamicTest(c.name(), () -> assertRejected(c, c.call())));
        }
        return tests.stream();
    }

    private void assertRejected(Case c, ThrowingCallable call) {
        Map<String, String> before = snapshot();
        assertThat(before).as("the seeded message").isNotEmpty();
        assertThatIllegalArgumentException().isThrownBy(call).withMessageContaining(c.message());
        assertThat(snapshot()).as("Redis after: " + c.name()).isEqualTo(before);
    }

    /** Every key of the test's prefix with its DUMP, which covers type, members, scores and values. */
    private Map<String, String> snapshot() {
        Map<String, String> keys = new TreeMap<>();
        this.redisson.getKeys().getKeysStreamByPattern(PREFIX + ":*").forEach(key -> keys.put(key,
                Base64.getEncoder().encodeToString(this.redisson.getBucket(key).dump())));
        return keys;
    }
}
