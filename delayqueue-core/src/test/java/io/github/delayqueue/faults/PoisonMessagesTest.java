package io.github.delayqueue.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * Issue #6, poison: values no producer of this release writes, put straight into Redis between 1,000
 * good messages: envelopes of an unknown format, corrupt envelopes, bytes that are not UTF-8, payloads that
 * are not JSON or do not bind to the handler's type, and sorted-set members without a message. Each
 * poison goes to the dead letters once, with a reason that names the problem, without ever reaching
 * the handler and without retries; every good message is delivered exactly once; the queue ends empty.
 * {@code sent}/{@code delivered} count the good messages; {@code recover_ms} is the time from writing the
 * poison until all of it is dead-lettered. Regression test: a payload that is JSON {@code null} used to
 * reach the handler as a null payload (it is now dead-lettered as undecodable).
 */
@ExtendWith(RedisExtension.class)
class PoisonMessagesTest {

    record Order(long orderId, String state) {
    }

    private static final int GOOD = 1_000;

    @Test
    void poisonIsDeadLetteredWithItsReasonAndTheQueueKeepsFlowing(RedisContext redis) throws Exception {
        String queue = "poison";
        String prefix = redis.prefix();
        DelayQueueClient client = DelayQueueClient.create(redis.redisson(), ClientOptions.builder().keyPrefix(prefix).build());
        String messages = prefix + ":{" + queue + "}:messages";
        String delayed = prefix + ":{" + queue + "}:delayed";

        Map<String, Integer> handled = new ConcurrentHashMap<>();
        Set<String> handledPoison = ConcurrentHashMap.newKeySet();
        AtomicInteger calls = new AtomicInteger();
        DelayQueueConsumer consumer = client.newConsumer(queue, Order.class, (order, context) -> {
            calls.incrementAndGet();
            if (context.id().startsWith("poison:")) {
                handledPoison.add(context.id());
            }
            handled.merge(context.id(), 1, Integer::sum);
        }, ConsumerOptions.builder().concurrency(8).batchSize(50).build());
        consumer.start();
        try {
            // first half of the good stream
            client.sendAll(queue, goodBatch(0, GOOD / 2));

            // poison, due now (score 0 is "long overdue"), written with plain Redis commands
            long now = client.stats(queue).serverTime().toEpochMilli();
            Map<String, String> poison = new LinkedHashMap<>(); // id -> expected reason fragment
            poison.put("poison:unknown-format", "unknown envelope format");
            write(redis.redisson(), messages, delayed, "poison:unknown-format", "7:from a future release");
            poison.put("poison:plain-garbage", "unknown envelope format");
            write(redis.redisson(), messages, delayed, "poison:plain-garbage", "garbage that is no envelope");
            poison.put("poison:empty", "unknown envelope format");
            write(redis.redisson(), messages, delayed, "poison:empty", "");
            poison.put("poison:truncated", "corrupt envelope");
            write(redis.redisson(), messages, delayed, "poison:truncated", "1:00000000000");
            poison.put("poison:bad-enqueued-at", "corrupt envelope");
            write(redis.redisson(), messages, delayed, "poison:bad-enqueued-at", "1:" + seq() + ":yesterday:0:{}");
            poison.put("poison:bad-headers", "corrupt envelope");
            write(redis.redisson(), messages, delayed, "poison:bad-headers", "1:" + seq() + ":" + now + ":9:{not json}{}");
            poison.put("poison:headers-too-long", "corrupt envelope");
            write(redis.redisson(), messages, delayed, "poison:headers-too-long", "1:" + seq() + ":" + now + ":999:{}");
            poison.put("poison:not-json", "undecodable payload for " + Order.class.getName());
            write(redis.redisson(), messages, delayed, "poison:not-json", "1:" + seq() + ":" + now + ":0:{orderId: 1,");
            poison.put("poison:wrong-type", "undecodable payload for " + Order.class.getName());
            write(redis.redisson(), messages, delayed, "poison:wrong-type",
                    "1:" + seq() + ":" + now + ":0:{\"orderId\":\"forty-two\",\"state\":\"NEW\"}");
            poison.put("poison:array", "undecodable payload for " + Order.class.getName());
            write(redis.redisson(), messages, delayed, "poison:array", "1:" + seq() + ":" + now + ":0:[1,2,3]");
            poison.put("poison:json-null", "undecodable payload for " + Order.class.getName());
            write(redis.redisson(), messages, delayed, "poison:json-null", "1:" + seq() + ":" + now + ":0:null");
            // bytes that are not UTF-8, written with a byte codec
            String binarySeq = seq();
            byte[] binary = ("1:" + binarySeq + ":" + now + ":0:").getBytes(StandardCharsets.UTF_8);
            byte[] value = new byte[binary.length + 4];
            System.arraycopy(binary, 0, value, 0, binary.length);
            value[binary.length] = (byte) 0xff;
            value[binary.length + 1] = (byte) 0xfe;
            value[binary.length + 2] = (byte) 0xc3;
            value[binary.length + 3] = (byte) 0x28;
            redis.redisson().getMap(messages, ByteArrayCodec.INSTANCE).put(
                    "poison:not-utf8".getBytes(StandardCharsets.UTF_8), value);
            redis.redisson().getScoredSortedSet(delayed, StringCodec.INSTANCE).add(0, binarySeq + "poison:not-utf8");
            poison.put("poison:not-utf8", "undecodable payload for " + Order.class.getName());
            // members without a message: an orphan and a member shorter than the sequence prefix
            redis.redisson().getScoredSortedSet(delayed, StringCodec.INSTANCE).add(0, seq() + "poison:orphan");
            redis.redisson().getScoredSortedSet(delayed, StringCodec.INSTANCE).add(0, "short");
            long poisonedAt = System.nanoTime();
            await("every poison dead-lettered").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
                    .until(() -> client.stats(queue).dead() >= poison.size());
            long deadAfterMs = FaultSupport.millisSince(poisonedAt);

            // second half of the good stream, after the poison: the queue keeps flowing
            client.sendAll(queue, goodBatch(GOOD / 2, GOOD));
            await("every good message delivered").atMost(Duration.ofSeconds(30)).until(() -> goodHandled(handled) == GOOD);
            await("queue drained").atMost(Duration.ofSeconds(10)).until(() -> {
                QueueStats s = client.stats(queue);
                return s.pending() == 0 && s.inFlight() == 0;
            });

            List<DeadLetter> dead = client.deadLetters(queue, 100);
            Map<String, String> reasons = new LinkedHashMap<>();
            for (DeadLetter letter : dead) {
                reasons.put(letter.id(), letter.attempts() + ":" + letter.reason());
            }
            long duplicates = handled.values().stream().mapToLong(n -> n - 1).sum();
            List<String> reasonSummary = new ArrayList<>();
            poison.forEach((id, fragment) -> reasonSummary.add(id.substring(7) + "->" + fragment.split(" ")[0]));
            FaultSupport.report("poison", GOOD, goodHandled(handled), GOOD - goodHandled(handled),
                    duplicates, deadAfterMs,
                    "poison_written=" + poison.size() + " dead_lettered=" + dead.size() + " poison_reached_handler="
                            + handledPoison.size() + " orphan_members_dropped=2 handler_calls=" + calls.get()
                            + " reasons=" + String.join(",", reasonSummary));

            assertThat(handledPoison).as("poison never reaches the handler").isEmpty();
            assertThat(duplicates).as("good messages are delivered once").isZero();
            assertThat(reasons.keySet()).as("every poison, and only poison, is dead-lettered")
                    .containsExactlyInAnyOrderElementsOf(poison.keySet());
            poison.forEach((id, fragment) -> assertThat(reasons.get(id)).as("reason of %s", id)
                    .startsWith("1:").contains(fragment));
            assertThat(redis.redisson().getScoredSortedSet(delayed, StringCodec.INSTANCE).size())
                    .as("orphan members are dropped, not claimed forever").isZero();
            assertThat(redis.redisson().getMap(messages, StringCodec.INSTANCE).size()).isZero();
        } finally {
            consumer.stop();
        }
    }

    private static int seqCounter = 0x7000_0000;

    /** A 12-hex-digit sequence prefix no real send uses in this test. */
    private static String seq() {
        return String.format("%012x", seqCounter++);
    }

    private static void write(RedissonClient redisson, String messages, String delayed, String id, String envelope) {
        String member = envelope.startsWith("1:") && envelope.length() >= 14 ? envelope.substring(2, 14) + id : seq() + id;
        redisson.getMap(messages, StringCodec.INSTANCE).put(id, envelope);
        redisson.getScoredSortedSet(delayed, StringCodec.INSTANCE).add(0, member);
    }

    private static List<SendRequest> goodBatch(int from, int to) {
        List<SendRequest> batch = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            batch.add(SendRequest.of(new Order(i, "NEW"), Duration.ofMillis(i % 300), SendOptions.id("good:" + i)));
        }
        return batch;
    }

    private static int goodHandled(Map<String, Integer> handled) {
        int n = 0;
        for (String id : handled.keySet()) {
            if (id.startsWith("good:")) {
                n++;
            }
        }
        return n;
    }
}
