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

import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/** Never early, due-time order, send order for equal due times, low lateness, wake-ups. */
@ExtendWith(RedisExtension.class)
class DeliveryTest {

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
        List<Received> received = consume("order", ConsumerOptions.builder().concurrency(1).build());
        List<Integer> delays = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            delays.add(100 + i * 37 % 900);
        }
        Collections.shuffle(delays);
        for (int d : delays) {
            client.send("order", "m" + d, Duration.ofMillis(d));
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == delays.size());

        for (Received r : received) {
            long due = r.context().dueAt().toEpochMilli();
            assertThat(r.handledAtMs()).as("handled at or after due for %s", r.payload()).isGreaterThanOrEqualTo(due);
            assertThat(r.handledAtMs() - due).as("lateness of %s", r.payload()).isLessThan(250);
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

        await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 200);
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
        await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 20);
        List<Long> dueAfterArrivalMs = received.stream()
                .map(r -> r.context().dueAt().toEpochMilli() - r.context().enqueuedAt().toEpochMilli()).toList();
        // enqueuedAt is the arrival rounded down: the difference is 51 ms unless Redis read its clock on a
        // whole millisecond (one chance in a thousand per send)
        assertThat(dueAfterArrivalMs).allMatch(ms -> ms == 50 || ms == 51);
        assertThat(dueAfterArrivalMs.stream().filter(ms -> ms == 51).count()).isGreaterThanOrEqualTo(18);
    }

    @Test
    void sleepingConsumerIsWokenBySoonerMessage() {
        ConsumerOptions slowPoll = ConsumerOptions.builder().maxPollInterval(Duration.ofSeconds(30)).build();
        List<Received> received = consume("wake", slowPoll);
        client.send("wake", "late", Duration.ofSeconds(20));
        await().pollDelay(Duration.ofMillis(300)).until(() -> true); // the consumer is now asleep until the late one

        client.send("wake", "soon", Duration.ofMillis(200));

        await().atMost(Duration.ofSeconds(3)).until(() -> received.size() == 1);
        Received soon = received.get(0);
        assertThat(soon.payload()).isEqualTo("soon");
        assertThat(soon.handledAtMs() - soon.context().dueAt().toEpochMilli()).isBetween(0L, 250L);
    }

    @Test
    void pastDueInstantIsDeliveredAtOnce() {
        List<Received> received = consume("past", ConsumerOptions.DEFAULTS);
        client.sendAt("past", "old", Instant.now().minusSeconds(3600));
        await().atMost(Duration.ofSeconds(3)).until(() -> received.size() == 1);
        assertThat(received.get(0).context().attempt()).isEqualTo(1);
    }

    @Test
    void contextCarriesIdHeadersAndTimes() {
        List<Received> received = consume("ctx", ConsumerOptions.DEFAULTS);
        long before = serverNowMs();
        client.send("ctx", "x", Duration.ofMillis(50), SendOptions.id("order:42").header("tenant", "acme"));
        await().atMost(Duration.ofSeconds(3)).until(() -> received.size() == 1);
        MessageContext context = received.get(0).context();
        assertThat(context.id()).isEqualTo("order:42");
        assertThat(context.queue()).isEqualTo("ctx");
        assertThat(context.headers()).containsEntry("tenant", "acme");
        assertThat(context.enqueuedAt().toEpochMilli()).isBetween(before, before + 1_000);
        // the delay counts from the arrival rounded up to the millisecond, enqueuedAt is it rounded down
        assertThat(context.dueAt()).isBetween(context.enqueuedAt().plusMillis(50), context.enqueuedAt().plusMillis(51));
    }
}
