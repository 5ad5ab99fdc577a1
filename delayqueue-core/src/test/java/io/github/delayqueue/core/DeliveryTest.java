package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.core.protocol.Partitions;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.QueueRoute;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * Never early, due-time order, send order for equal due times, wake-ups.
 * <p>
 * "Never early" is asserted strictly, where it happens: every claim compares the due times it hands out with the
 * server clock it read. Lateness is asserted only with {@link #FAULT_BOUND}, a bound a loaded machine stays far
 * inside and a missed wake-up crosses (the consumers here poll every 30 s at the most, so only a wake-up or the
 * sleep to the next due time delivers in time); the lateness figures themselves are measured by the benchmarks.
 */
@ExtendWith(RedisExtension.class)
class DeliveryTest {

    /** Lateness that only a fault (a missed wake-up, a sleep past the due time) reaches: 30 s polls otherwise. */
    static final Duration FAULT_BOUND = Duration.ofSeconds(5);
    /** How long a delivery may take at all, consumer start included, on a loaded machine and a cluster. */
    static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final ConsumerOptions SLOW_POLL = ConsumerOptions.builder().maxPollInterval(Duration.ofSeconds(30)).build();

    record Received(String payload, long handledAtMs, MessageContext context) {
    }

    private final RedisContext redis;
    private DelayQueueClient client;
    private final List<DelayQueueConsumer> consumers = new ArrayList<>();

    DeliveryTest(RedisContext redis) {
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
        consumers.forEach(DelayQueueConsumer::stop);
    }

    private DelayQueueConsumer last() {
        return consumers.get(consumers.size() - 1);
    }

    private List<Received> consume(String queue, ConsumerOptions options) {
        List<Received> received = new CopyOnWriteArrayList<>();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class,
                (payload, context) -> received.add(new Received(payload, serverNowMs(), context)), options);
        consumers.add(consumer);
        consumer.start();
        return received;
    }

    private long serverNowMs() {
        return client.stats("clock").serverTime().toEpochMilli();
    }

    @Test
    void neverEarlyAndInDueOrder() {
        // One handler at a time, so the order handlers record is the order of the claims: with 16
        // handler threads two messages due 12 ms apart can be recorded in either order on a loaded machine.
        List<Received> received = consume("order", ConsumerOptions.builder().concurrency(1)
                .maxPollInterval(SLOW_POLL.maxPollInterval()).build());
        List<Integer> delays = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            delays.add(100 + i * 37 % 900);
        }
        Collections.shuffle(delays);
        for (int d : delays) {
            client.send("order", "m" + d, Duration.ofMillis(d));
        }

        await().atMost(DEADLINE).until(() -> received.size() == delays.size());

        for (Received r : received) {
            long due = r.context().dueAt().toEpochMilli();
            assertThat(r.handledAtMs()).as("handled at or after due for %s", r.payload()).isGreaterThanOrEqualTo(due);
            assertThat(r.handledAtMs() - due).as("lateness of %s", r.payload()).isLessThan(FAULT_BOUND.toMillis());
        }
        // in due order within a partition (all of the queue when it has one): partitions are claimed independently
        int partitions = client.queueRoute("order").count();
        for (int p = 0; p < partitions; p++) {
            int partition = p;
            List<Instant> dues = received.stream().filter(r -> Partitions.of(r.context().id(), partitions) == partition)
                    .map(r -> r.context().dueAt()).toList();
            assertThat(dues).isSorted();
        }
    }

    @Test
    void noClaimHandsOutAMessageBeforeItsDueTimeOnTheClockItRead() {
        String queue = "claims";
        // 300 messages falling due over 600 ms, two per millisecond step, claimed by a tight loop over every
        // partition: most claims run while messages are falling due, where an early claim would show
        int count = 300;
        List<SendRequest> batch = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            batch.add(SendRequest.of("c" + i, Duration.ofMillis(i * 2L), SendOptions.id("c" + i)));
        }
        client.sendAll(queue, batch);
        QueueRoute route = client.queueRoute(queue);
        java.util.Set<String> claimed = new java.util.HashSet<>();
        int claims = 0;
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (claimed.size() < count && System.nanoTime() < deadline) {
            for (QueueOps part : route.parts()) {
                QueueOps.ClaimResult result = part.claim(7, 60_000, 5, 100, Duration.ofDays(1).toMillis(), 1_000);
                claims++;
                for (QueueOps.Claimed message : result.messages()) {
                    assertThat(message.dueMs() * 1000).as("due time of %s against the claim's server clock (µs)",
                            message.id()).isLessThanOrEqualTo(result.serverNowMicros());
                    assertThat(claimed.add(message.id())).as("%s claimed twice", message.id()).isTrue();
                }
            }
        }
        assertThat(claimed).hasSize(count);
        assertThat(claims).as("claims made while the messages fell due").isGreaterThan(count / 7);
    }

    @Test
    void equalDueTimesAreDeliveredInSendOrder() {
        Instant due = Instant.ofEpochMilli(serverNowMs() + 300);
        List<SendRequest> batch = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            // ids whose byte order differs from send order, and both send modes mixed in one batch
            SendOptions options = SendOptions.id("z" + (1000 - i));
            batch.add(SendRequest.at("p" + i, due, i % 3 == 1 ? options.replaceExisting() : options));
        }
        client.sendAll("fifo", batch);
        List<Received> received = consume("fifo", ConsumerOptions.builder().concurrency(1).batchSize(1).build());

        await().atMost(DEADLINE).until(() -> received.size() == 200);
        // send order holds within a partition (all of the queue when it has one), not across partitions
        int partitions = client.queueRoute("fifo").count();
        for (int p = 0; p < partitions; p++) {
            int partition = p;
            assertThat(received.stream().filter(r -> Partitions.of(r.context().id(), partitions) == partition))
                    .extracting(Received::payload)
                    .containsExactlyElementsOf(batch.stream()
                            .filter(r -> Partitions.of(r.options().id(), partitions) == partition)
                            .map(r -> (String) r.payload()).toList());
        }
    }

    @Test
    void aDelayCountsFromTheSendsArrivalRoundedUpToTheMillisecond() {
        // the due time must not fall before arrival + delay to the microsecond: a claim compares due times
        // with the Redis clock rounded down, so counting from the arrival rounded down could claim early
        List<Received> received = consume("rounding", ConsumerOptions.DEFAULTS);
        for (int i = 0; i < 20; i++) {
            client.send("rounding", "r" + i, Duration.ofMillis(50));
        }
        await().atMost(DEADLINE).until(() -> received.size() == 20);
        List<Long> dueAfterArrivalMs = received.stream()
                .map(r -> r.context().dueAt().toEpochMilli() - r.context().enqueuedAt().toEpochMilli()).toList();
        // enqueuedAt is the arrival rounded down: the difference is 51 ms unless Redis read its clock on a
        // whole millisecond (one chance in a thousand per send)
        assertThat(dueAfterArrivalMs).allMatch(ms -> ms == 50 || ms == 51);
        assertThat(dueAfterArrivalMs.stream().filter(ms -> ms == 51).count()).isGreaterThanOrEqualTo(18);
    }

    @Test
    void sleepingConsumerIsWokenBySoonerMessage() {
        // "late" is sent first, so no wake-up is on its way when the consumer sleeps: its pollers sleep until
        // "late" is due (or 30 s, a partition without it), and only the wake-up of "soon" can deliver that in time
        client.send("wake", "late", Duration.ofSeconds(20));
        List<Received> received = consume("wake", SLOW_POLL);
        DelayQueueConsumer consumer = last();
        await().atMost(DEADLINE).until(() -> Asleep.past(consumer, serverNowMs() + 10_000));

        client.send("wake", "soon", Duration.ofMillis(200));

        await().atMost(DEADLINE).until(() -> received.size() == 1);
        Received soon = received.get(0);
        assertThat(soon.payload()).isEqualTo("soon");
        assertThat(soon.handledAtMs() - soon.context().dueAt().toEpochMilli()).isBetween(0L, FAULT_BOUND.toMillis());
    }

    @Test
    void pastDueInstantIsDeliveredAtOnce() {
        List<Received> received = consume("past", ConsumerOptions.DEFAULTS);
        client.sendAt("past", "old", Instant.now().minusSeconds(3600));
        await().atMost(DEADLINE).until(() -> received.size() == 1);
        assertThat(received.get(0).context().attempt()).isEqualTo(1);
    }

    @Test
    void contextCarriesIdHeadersAndTimes() {
        List<Received> received = consume("ctx", ConsumerOptions.DEFAULTS);
        long before = serverNowMs();
        client.send("ctx", "x", Duration.ofMillis(50), SendOptions.id("order:42").header("tenant", "acme"));
        long after = serverNowMs(); // not before + 1 s: a loaded machine can take that long between two commands
        await().atMost(DEADLINE).until(() -> received.size() == 1);
        MessageContext context = received.get(0).context();
        assertThat(context.id()).isEqualTo("order:42");
        assertThat(context.queue()).isEqualTo("ctx");
        assertThat(context.headers()).containsEntry("tenant", "acme");
        assertThat(context.enqueuedAt().toEpochMilli()).isBetween(before, after);
        // the delay counts from the arrival rounded up to the millisecond, enqueuedAt is it rounded down
        assertThat(context.dueAt()).isBetween(context.enqueuedAt().plusMillis(50), context.enqueuedAt().plusMillis(51));
    }
}
