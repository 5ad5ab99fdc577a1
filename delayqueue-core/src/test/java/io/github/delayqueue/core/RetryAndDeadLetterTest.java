package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.redisson.api.RScript;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/** Retries with back-off, then dead letters; undecodable payloads die at once; requeue and purge. */
@ExtendWith(RedisExtension.class)
class RetryAndDeadLetterTest {

    record Order(long orderId, String state) {
    }

    private static final RetryPolicy FAST = new RetryPolicy(3, Duration.ofMillis(200), 2.0, Duration.ofSeconds(1), 0.0);

    private final RedisContext redis;
    private DelayQueueClient client;
    private DelayQueueConsumer consumer;

    RetryAndDeadLetterTest(RedisContext redis) {
        this.redis = redis;
    }

    /** The client under test; the partitioned variants of this class give one with several partitions per queue. */
    DelayQueueClient newClient() {
        return redis.client();
    }

    RedisContext redis() {
        return redis;
    }

    @BeforeEach
    void setUp() {
        client = newClient();
    }

    @AfterEach
    void tearDown() {
        if (consumer != null) {
            consumer.stop();
        }
    }

    @Test
    void failingHandlerIsRetriedWithBackoffThenDeadLettered() {
        String queue = "retry";
        List<Long> attemptsAt = new CopyOnWriteArrayList<>();
        consumer = client.newConsumer(queue, Order.class, (order, context) -> {
            attemptsAt.add(System.nanoTime());
            throw new IllegalStateException("payment service down for order " + order.orderId());
        }, ConsumerOptions.builder().retry(FAST).build());
        consumer.start();
        client.send(queue, new Order(7, "NEW"), Duration.ZERO, SendOptions.id("order:7"));

        await().atMost(Duration.ofSeconds(10)).until(() -> client.stats(queue).dead() == 1);
        assertThat(attemptsAt).hasSize(3);
        assertThat(Duration.ofNanos(attemptsAt.get(1) - attemptsAt.get(0))).isGreaterThanOrEqualTo(Duration.ofMillis(190));
        assertThat(Duration.ofNanos(attemptsAt.get(2) - attemptsAt.get(1))).isGreaterThanOrEqualTo(Duration.ofMillis(390));

        List<DeadLetter> dead = client.deadLetters(queue, 10);
        assertThat(dead).hasSize(1);
        DeadLetter letter = dead.get(0);
        assertThat(letter.id()).isEqualTo("order:7");
        assertThat(letter.attempts()).isEqualTo(3);
        assertThat(letter.reason()).isEqualTo("java.lang.IllegalStateException: payment service down for order 7");
        assertThat(letter.payload()).contains("\"orderId\":7");
        QueueStats stats = client.stats(queue);
        assertThat(stats.pending()).isZero();
        assertThat(stats.inFlight()).isZero();
    }

    @Test
    void undecodablePayloadGoesStraightToDeadLetters() {
        String queue = "decode";
        AtomicInteger calls = new AtomicInteger();
        consumer = client.newConsumer(queue, Order.class, (order, context) -> calls.incrementAndGet(),
                ConsumerOptions.builder().retry(FAST).build());
        consumer.start();
        client.send(queue, List.of("not", "an", "order"), Duration.ZERO, SendOptions.id("bad:1"));
        client.send(queue, new Order(1, "NEW"), Duration.ofMillis(100), SendOptions.id("good:1"));

        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).dead() == 1 && calls.get() == 1);
        DeadLetter letter = client.deadLetters(queue, 10).get(0);
        assertThat(letter.id()).isEqualTo("bad:1");
        assertThat(letter.attempts()).isEqualTo(1);
        assertThat(letter.reason()).startsWith("undecodable payload for " + Order.class.getName());
    }

    /** A handler of {@code Void} reads no payload: any payload runs it (null given), none is dead-lettered. */
    @Test
    void aVoidHandlerReadsNoPayload() {
        String queue = "no-payload";
        List<String> seen = new CopyOnWriteArrayList<>();
        consumer = client.newConsumer(queue, Void.class, (Void payload, MessageContext context) ->
                seen.add(context.id() + "=" + payload), ConsumerOptions.builder().retry(FAST).build());
        consumer.start();
        client.send(queue, List.of("not", "an", "order"), Duration.ZERO, SendOptions.id("list"));
        client.send(queue, new Order(1, "NEW"), Duration.ZERO, SendOptions.id("order"));

        await().atMost(Duration.ofSeconds(20)).until(() -> seen.size() == 2);
        assertThat(seen).containsExactlyInAnyOrder("list=null", "order=null");
        assertThat(client.stats(queue).dead()).isZero();
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> client.newBatchConsumer(
                queue, Void.class, items -> { }, BatchOptions.of(10), ConsumerOptions.DEFAULTS))
                .withMessageContaining("Void");
    }

    @Test
    void corruptEnvelopeWrittenStraightIntoRedisIsDeadLetteredAndTheQueueKeepsFlowing() {
        String queue = "poison";
        QueueKeys keys = client.queueRoute(queue).of("poison:1").keys(); // the partition of the id it writes
        redis.redisson().getMap(keys.keys().get(0).toString(), org.redisson.client.codec.StringCodec.INSTANCE)
                .put("poison:1", "garbage that is no envelope");
        redis.redisson().getScoredSortedSet(keys.keys().get(1).toString(), org.redisson.client.codec.StringCodec.INSTANCE)
                .add(0, "000000000000poison:1");
        AtomicInteger calls = new AtomicInteger();
        consumer = client.newConsumer(queue, String.class, (p, c) -> calls.incrementAndGet(), ConsumerOptions.DEFAULTS);
        consumer.start();
        client.send(queue, "fine", Duration.ofMillis(50));

        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).dead() == 1 && calls.get() == 1);
        DeadLetter letter = client.deadLetters(queue, 10).get(0);
        assertThat(letter.reason()).contains("unknown envelope format");
        assertThat(letter.payload()).isEqualTo("garbage that is no envelope");
    }

    @Test
    void requeuedDeadLetterIsDeliveredAgainAndPurgeDeletes() {
        String queue = "requeue";
        AtomicBoolean healthy = new AtomicBoolean(false);
        List<String> handled = new CopyOnWriteArrayList<>();
        consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            if (!healthy.get()) {
                throw new IllegalStateException("not yet");
            }
            handled.add(payload + "@" + context.attempt());
        }, ConsumerOptions.builder().retry(new RetryPolicy(1, Duration.ofMillis(10), 1, Duration.ofMillis(10), 0)).build());
        consumer.start();
        for (int i = 0; i < 5; i++) {
            client.send(queue, "m" + i, Duration.ZERO, SendOptions.id("m" + i));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).dead() == 5);

        healthy.set(true);
        assertThat(client.requeueDeadLetters(queue, List.of(keyOf(queue, "m0"), "--------:unknown"))).isEqualTo(1);
        await().atMost(Duration.ofSeconds(20)).until(() -> handled.contains("m0@1"));
        assertThat(client.purgeDeadLetters(queue, List.of(keyOf(queue, "m1")))).isEqualTo(1);
        assertThat(client.stats(queue).dead()).isEqualTo(3);

        assertThat(client.requeueAllDeadLetters(queue)).isEqualTo(3);
        await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() == 4);
        assertThat(handled).containsExactlyInAnyOrder("m0@1", "m2@1", "m3@1", "m4@1");
        assertThat(client.stats(queue).dead()).isZero();

        healthy.set(false);
        client.send(queue, "m9", Duration.ZERO, SendOptions.id("m9"));
        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).dead() == 1);
        assertThat(client.purgeAllDeadLetters(queue)).isEqualTo(1);
        assertThat(client.deadLetters(queue, 10)).isEmpty();
    }

    @Test
    void anIdThatDiesTwiceLeavesTwoDeadLettersEachWithItsOwnReason() {
        String queue = "dies-twice";
        List<String> handled = new CopyOnWriteArrayList<>();
        AtomicBoolean healthy = new AtomicBoolean(false);
        consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            if (!healthy.get()) {
                throw new IllegalStateException("failed " + payload);
            }
            handled.add(payload);
        }, ConsumerOptions.builder().retry(new RetryPolicy(1, Duration.ofMillis(10), 1, Duration.ofMillis(10), 0)).build());
        consumer.start();
        client.send(queue, "first", Duration.ZERO, SendOptions.id("job-1"));
        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).dead() == 1);
        client.send(queue, "second", Duration.ZERO, SendOptions.id("job-1"));
        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).dead() == 2);

        List<DeadLetter> letters = client.deadLetters(queue, 10);
        assertThat(letters).extracting(DeadLetter::id).containsExactly("job-1", "job-1");
        assertThat(letters).extracting(DeadLetter::payload).containsExactly("\"first\"", "\"second\"");
        assertThat(letters).extracting(DeadLetter::reason).containsExactly(
                "java.lang.IllegalStateException: failed first", "java.lang.IllegalStateException: failed second");
        assertThat(letters.get(0).key()).isNotEqualTo(letters.get(1).key());

        // each op names the dead letter it acts on: the second is purged, the first requeued
        assertThat(client.purgeDeadLetters(queue, List.of(letters.get(1).key()))).isEqualTo(1);
        assertThat(client.deadLetters(queue, 10)).extracting(DeadLetter::payload).containsExactly("\"first\"");
        healthy.set(true);
        assertThat(client.requeueDeadLetters(queue, List.of(letters.get(0).key()))).isEqualTo(1);
        await().atMost(Duration.ofSeconds(20)).until(() -> handled.contains("first"));
        assertThat(client.stats(queue).dead()).isZero();
    }

    @Test
    void aDeadLetterKeyThatIsNoKeyIsRejected() {
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> client.requeueDeadLetters("keys", List.of("job-1")))
                .withMessageContaining("not a dead-letter key: 'job-1'");
    }

    @Test
    void deadLettersPastTheirRetentionOrBeyondTheCountAreDeletedByTheConsumer() {
        deadLettersAreTrimmed("retention", false);
    }

    @Test
    void deadLettersAreTrimmedWhileTheQueueIsPaused() {
        deadLettersAreTrimmed("retention-paused", true);
    }

    /**
     * The consumer trims dead letters in its claim's housekeeping stage, about once a second and at most 100 per claim;
     * a claim that deleted 100 makes the next one trim again, so 6,000 dead letters past their retention go within
     * seconds, not a minute (at one trim of 100 a second they would take 60 s).
     */
    @Test
    void aFloodOfDeadLettersIsTrimmedClaimAfterClaimNotOncePerSecond() {
        String queue = "dead-flood";
        int partitions = client.queueRoute(queue).count();
        long now = client.stats(queue).serverTime().toEpochMilli();
        for (int p = 0; p < partitions; p++) {
            QueueKeys keys = client.queueRoute(queue).part(p).keys();
            redis.redisson().getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_WRITE, """
                    for i = 1, 6000 do
                      local key = ARGV[2] .. 'old-' .. i
                      redis.call('ZADD', KEYS[6], tonumber(ARGV[1]) - 20 * 86400000 + i, key)
                      redis.call('HSET', KEYS[7], key, '20:0:"x"')
                      redis.call('HSET', KEYS[8], key, '5:test')
                    end
                    """, RScript.ReturnType.VALUE, keys.keys(), Long.toString(now), "p" + p + "-");
        }
        consumer = client.newConsumer(queue, String.class, (p, c) -> { }, ConsumerOptions.builder()
                .maxPollInterval(Duration.ofMillis(20)).deadLetterRetention(Duration.ofDays(14)).build());
        consumer.start();
        // 60 claims' trims per partition; 20 s is far below the 60 s a trim a second would need, and far above what
        // claims back to back take even on a loaded machine
        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).dead() == 0);
    }

    /**
     * 250 dead letters in each partition, written as a consumer would: 150 died 20 days ago, 100 an hour ago. The
     * consumer keeps 14 days and 60 in all, each partition its share (60 / partitions, rounded up).
     */
    private void deadLettersAreTrimmed(String queue, boolean paused) {
        int partitions = client.queueRoute(queue).count();
        int share = (60 + partitions - 1) / partitions;
        long now = client.stats(queue).serverTime().toEpochMilli();
        List<String> kept = new java.util.ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            QueueKeys keys = client.queueRoute(queue).part(p).keys();
            redis.redisson().getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_WRITE, """
                    for i = 1, 250 do
                      local key = ARGV[2] .. 'old-' .. i
                      local at = tonumber(ARGV[1]) - 3600000
                      if i <= 150 then at = tonumber(ARGV[1]) - 20 * 86400000 end
                      redis.call('ZADD', KEYS[6], at + i, key)
                      redis.call('HSET', KEYS[7], key, '20:0:"x"')
                      redis.call('HSET', KEYS[8], key, '5:test')
                    end
                    """, RScript.ReturnType.VALUE, keys.keys(), Long.toString(now), "p" + p + "-");
            for (int i = 251 - share; i <= 250; i++) {
                kept.add("p" + p + "-old-" + i);
            }
        }
        if (paused) {
            client.pause(queue); // a paused claim hands nothing out, but still trims dead letters
        }
        consumer = client.newConsumer(queue, String.class, (p, c) -> { }, ConsumerOptions.builder()
                .maxPollInterval(Duration.ofMillis(20)).deadLetterRetention(Duration.ofDays(14)).deadLetterMaxCount(60)
                .build());
        consumer.start();

        // over a few polls (at most 100 deletions per claim): the 150 past retention go, then the oldest of the
        // other 100, leaving each partition's newest, each with its hash fields gone too
        await().atMost(Duration.ofSeconds(30)).until(() -> client.stats(queue).dead() == (long) share * partitions);
        assertThat(client.deadLetters(queue, 100)).extracting(DeadLetter::id).containsExactlyInAnyOrderElementsOf(kept);
        for (int p = 0; p < partitions; p++) {
            QueueKeys keys = client.queueRoute(queue).part(p).keys();
            // a map's size is read from a replica on a cluster: it may lag the master by a moment
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(redis.redisson().getMap(keys.keys().get(6).toString(), StringCodec.INSTANCE).size()).isEqualTo(share);
                assertThat(redis.redisson().getMap(keys.keys().get(7).toString(), StringCodec.INSTANCE).size()).isEqualTo(share);
            });
        }
        assertThat(client.isPaused(queue)).isEqualTo(paused);
    }

    @Test
    void deadLettersArePagedOldestFirstAndAPagePastTheEndIsEmpty() {
        String queue = "dead-pages";
        QueueKeys keys = client.queueRoute(queue).part(0).keys(); // one partition: a page merges them all
        long now = client.stats(queue).serverTime().toEpochMilli();
        redis.redisson().getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_WRITE, """
                for i = 1, 25 do
                  local key = 'd-' .. i
                  redis.call('ZADD', KEYS[6], tonumber(ARGV[1]) - 1000 + i, key)
                  redis.call('HSET', KEYS[7], key, '20:0:"x"')
                  redis.call('HSET', KEYS[8], key, '5:test')
                end
                """, RScript.ReturnType.VALUE, keys.keys(), Long.toString(now));

        assertThat(client.deadLetters(queue, 10, 10)).extracting(DeadLetter::id)
                .containsExactlyElementsOf(java.util.stream.IntStream.rangeClosed(11, 20).mapToObj(i -> "d-" + i).toList());
        assertThat(client.deadLetters(queue, 20, 10)).extracting(DeadLetter::id).containsExactly("d-21", "d-22", "d-23",
                "d-24", "d-25");
        assertThat(client.deadLetters(queue, 25, 10)).isEmpty();
        assertThat(client.deadLetters(queue, 0, 3)).extracting(DeadLetter::id).containsExactly("d-1", "d-2", "d-3");
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> client.deadLetters(queue, -1, 10)).withMessageContaining("offset must not be negative");
    }

    @Test
    void requeueSkipsAnIdThatIsLiveAgain() {
        String queue = "requeue-live";
        consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            throw new IllegalStateException("always");
        }, ConsumerOptions.builder().retry(new RetryPolicy(1, Duration.ofMillis(10), 1, Duration.ofMillis(10), 0)).build());
        consumer.start();
        client.send(queue, "first", Duration.ZERO, SendOptions.id("x"));
        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).dead() == 1);
        consumer.stop();
        consumer = null;
        client.send(queue, "second", Duration.ofHours(1), SendOptions.id("x"));

        assertThat(client.requeueDeadLetters(queue, List.of(keyOf(queue, "x")))).isZero();
        assertThat(client.stats(queue).dead()).isEqualTo(1);
        assertThat(client.stats(queue).pending()).isEqualTo(1);
    }

    private String keyOf(String queue, String id) {
        return client.deadLetters(queue, 1000).stream().filter(d -> d.id().equals(id)).findFirst().orElseThrow().key();
    }

    @Test
    void requeueAllGoesPastMoreThanABatchOfDeadLettersWhoseIdsAreLiveAgain() {
        String queue = "live-again";
        int liveAgain = DelayQueueClient.DEAD_BATCH + 50;
        int requeueable = 30;
        client.send(queue, "prototype", Duration.ofDays(1), SendOptions.id("prototype"));
        QueueKeys keys = client.queueRoute(queue).of("prototype").keys(); // where the prototype lives
        // the oldest dead letters have ids that were sent again since: requeue skips them, and must not stop there
        redis.redisson().getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_WRITE, """
                local envelope = redis.call('HGET', KEYS[1], 'prototype')
                for i = 1, tonumber(ARGV[1]) + tonumber(ARGV[2]) do
                  local id = 'd' .. i
                  redis.call('ZADD', KEYS[6], i, id)
                  redis.call('HSET', KEYS[7], id, envelope)
                  redis.call('HSET', KEYS[8], id, '5:test')
                  if i <= tonumber(ARGV[1]) then redis.call('HSET', KEYS[1], id, envelope) end
                end
                """, RScript.ReturnType.VALUE, keys.keys(), Integer.toString(liveAgain), Integer.toString(requeueable));

        assertThat(client.requeueAllDeadLetters(queue)).isEqualTo(requeueable);
        assertThat(client.stats(queue).dead()).isEqualTo(liveAgain);
        assertThat(client.purgeAllDeadLetters(queue)).isEqualTo(liveAgain);
        assertThat(client.stats(queue).dead()).isZero();
    }
}
