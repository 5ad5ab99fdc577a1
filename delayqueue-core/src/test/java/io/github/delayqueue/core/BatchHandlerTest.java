package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/** Batch handlers: batch size bounds, per-message outcome and attempts, leases of a slow batch, bad input. */
@ExtendWith(RedisExtension.class)
class BatchHandlerTest {

    record Row(int n) {
    }

    private static final RetryPolicy FAST = new RetryPolicy(3, Duration.ofMillis(100), 1.0, Duration.ofMillis(100), 0.0);
    private static final ConsumerOptions OPTIONS = ConsumerOptions.builder().concurrency(1).retry(FAST).build();

    private final RedisContext redis;
    private DelayQueueClient client;
    private DelayQueueConsumer consumer;
    /** Each call's items as "id@attempt". */
    private final List<List<String>> calls = new CopyOnWriteArrayList<>();

    BatchHandlerTest(RedisContext redis) {
        this.redis = redis;
    }

    /** The client under test; {@link BatchHandlerPartitionedOnClusterTest} gives one with several partitions per queue. */
    DelayQueueClient newClient() {
        return redis.client();
    }

    /** Whether one claim sees every due message (one partition): then the batches' make-up is known exactly. */
    boolean onePartition() {
        return true;
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

    private void sendDue(String queue, String... ids) {
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 0; i < ids.length; i++) {
            requests.add(SendRequest.of(new Row(i), Duration.ZERO).withOptions(SendOptions.id(ids[i])));
        }
        client.sendAll(queue, requests);
    }

    private List<String> record(List<BatchItem<Row>> items) {
        List<String> seen = new ArrayList<>();
        for (BatchItem<Row> item : items) {
            assertThat(item.context().queue()).isNotEmpty();
            seen.add(item.id() + "@" + item.context().attempt());
        }
        calls.add(seen);
        return seen;
    }

    private List<String> handled() {
        return calls.stream().flatMap(List::stream).toList();
    }

    private void awaitSettled(String queue) {
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            QueueStats stats = client.stats(queue);
            return stats.pending() == 0 && stats.inFlight() == 0;
        });
    }

    @Test
    void dueMessagesComeInBatchesOfAtMostTheBatchSizeEachAcknowledged() {
        String queue = "batch-size";
        String[] ids = new String[25];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = "m" + i;
        }
        sendDue(queue, ids);
        consumer = client.newBatchConsumer(queue, Row.class, this::record, BatchOptions.of(10), OPTIONS);
        consumer.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> handled().size() >= 25);
        awaitSettled(queue);
        assertThat(calls).allSatisfy(call -> assertThat(call).hasSizeBetween(1, 10));
        if (onePartition()) {
            assertThat(calls.get(0)).hasSize(10); // all 25 were due: the first claim fills a batch
        }
        assertThat(handled()).hasSize(25).doesNotHaveDuplicates().allSatisfy(s -> assertThat(s).endsWith("@1"));
        assertThat(client.stats(queue).dead()).isZero();
    }

    @Test
    void fewerDueThanTheBatchSizeGoAsOnePartialBatchAtOnce() {
        String queue = "batch-partial";
        sendDue(queue, "a", "b", "c");
        consumer = client.newBatchConsumer(queue, Row.class, this::record, BatchOptions.of(100), OPTIONS);
        consumer.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> handled().size() >= 3);
        awaitSettled(queue);
        if (onePartition()) {
            assertThat(calls).containsExactly(List.of("a@1", "b@1", "c@1"));
        } else {
            assertThat(handled()).containsExactlyInAnyOrder("a@1", "b@1", "c@1");
        }
    }

    @Test
    void batchWaitFillsABatchWithMessagesDueShortlyAfter() {
        String queue = "batch-wait";
        consumer = client.newBatchConsumer(queue, Row.class, this::record,
                BatchOptions.of(3).withMaxWait(Duration.ofSeconds(3)), OPTIONS);
        consumer.start();
        client.sendAll(queue, List.of(
                SendRequest.of(new Row(1), Duration.ZERO).withOptions(SendOptions.id("now")),
                SendRequest.of(new Row(2), Duration.ofMillis(300)).withOptions(SendOptions.id("soon1")),
                SendRequest.of(new Row(3), Duration.ofMillis(300)).withOptions(SendOptions.id("soon2"))));

        await().atMost(Duration.ofSeconds(20)).until(() -> handled().size() >= 3);
        awaitSettled(queue);
        if (onePartition()) {
            assertThat(calls).containsExactly(List.of("now@1", "soon1@1", "soon2@1"));
        } else {
            assertThat(handled()).containsExactlyInAnyOrder("now@1", "soon1@1", "soon2@1");
        }
    }

    @Test
    void batchFailedExceptionRetriesOnlyTheNamedMessages() {
        String queue = "batch-named";
        sendDue(queue, "a", "b", "c", "d");
        consumer = client.newBatchConsumer(queue, Row.class, items -> {
            List<String> seen = record(items);
            List<String> failed = new ArrayList<>(List.of("not-in-batch"));
            for (String id : List.of("b", "d")) {
                if (seen.contains(id + "@1")) {
                    failed.add(id);
                }
            }
            if (failed.size() > 1) { // on several partitions, b and d may come in different batches
                throw new BatchFailedException(failed, new IllegalStateException("rows b and d"));
            }
        }, BatchOptions.of(10), OPTIONS);
        consumer.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> handled().size() >= 6);
        awaitSettled(queue);
        assertThat(handled()).containsExactlyInAnyOrder("a@1", "b@1", "c@1", "d@1", "b@2", "d@2");
        assertThat(client.stats(queue).dead()).isZero();
    }

    @Test
    void namedMessagesOnTheirLastAttemptAreDeadLetteredAlone() {
        String queue = "batch-named-dead";
        sendDue(queue, "a", "b");
        consumer = client.newBatchConsumer(queue, Row.class, items -> {
            record(items);
            throw new BatchFailedException(List.of("b"), new IllegalStateException("row b is bad"));
        }, BatchOptions.of(10), OPTIONS);
        consumer.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).dead() == 1);
        awaitSettled(queue);
        assertThat(handled()).containsExactlyInAnyOrder("a@1", "b@1", "b@2", "b@3");
        DeadLetter letter = client.deadLetters(queue, 10).get(0);
        assertThat(letter.id()).isEqualTo("b");
        assertThat(letter.reason()).isEqualTo("java.lang.IllegalStateException: row b is bad");
    }

    @Test
    void anyOtherExceptionRetriesTheWholeBatch() {
        String queue = "batch-all";
        sendDue(queue, "a", "b", "c");
        consumer = client.newBatchConsumer(queue, Row.class, items -> {
            if (record(items).stream().anyMatch(s -> s.endsWith("@1"))) { // every first batch (one per partition)
                throw new IllegalStateException("database down");
            }
        }, BatchOptions.of(10), OPTIONS);
        consumer.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> handled().size() >= 6);
        awaitSettled(queue);
        assertThat(handled()).containsExactlyInAnyOrder("a@1", "b@1", "c@1", "a@2", "b@2", "c@2");
    }

    @Test
    void leasesOfASlowBatchAreExtendedWhileItRuns() {
        String queue = "batch-slow";
        sendDue(queue, "a", "b", "c");
        // the keeper extends every third of the lease, and the batch holds 3 of the consumer's 10 message slots: its
        // poller, asleep until the lease deadline, takes the messages again if an extension runs over a lease's two
        // thirds late. 300 ms leases (200 ms late) did not hold on a loaded machine; 2 s ones (1.3 s late) do
        ConsumerOptions shortLease = OPTIONS.toBuilder().visibilityTimeout(Duration.ofSeconds(2)).build();
        consumer = client.newBatchConsumer(queue, Row.class, items -> {
            record(items);
            Thread.sleep(5_000); // two and a half leases long
        }, BatchOptions.of(10), shortLease);
        consumer.start();

        await().atMost(Duration.ofSeconds(30)).until(() -> handled().size() >= 3);
        awaitSettled(queue);
        assertThat(handled()).containsExactlyInAnyOrder("a@1", "b@1", "c@1"); // no redelivery while it ran
    }

    @Test
    void aBatchPastTheHandlerTimeoutIsInterruptedAndItsMessagesRetried() {
        String queue = "batch-timeout";
        sendDue(queue, "a", "b");
        ConsumerOptions timeout = OPTIONS.toBuilder().handlerTimeout(Duration.ofMillis(300))
                .visibilityTimeout(Duration.ofMillis(300)).build();
        consumer = client.newBatchConsumer(queue, Row.class, items -> {
            if (record(items).stream().anyMatch(s -> s.endsWith("@1"))) {
                Thread.sleep(10_000); // hung: interrupted by the timeout
            }
        }, BatchOptions.of(10), timeout);
        consumer.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> handled().size() >= 4);
        awaitSettled(queue);
        assertThat(handled()).containsExactlyInAnyOrder("a@1", "b@1", "a@2", "b@2");
        assertThat(client.stats(queue).dead()).isZero();
    }

    @Test
    void anUndecodableMessageIsDeadLetteredWithoutFailingTheRest() {
        String queue = "batch-decode";
        client.sendAll(queue, List.of(
                SendRequest.of(new Row(1), Duration.ZERO).withOptions(SendOptions.id("good1")),
                SendRequest.of(List.of("not", "a", "row"), Duration.ZERO).withOptions(SendOptions.id("bad")),
                SendRequest.of(new Row(2), Duration.ZERO).withOptions(SendOptions.id("good2"))));
        consumer = client.newBatchConsumer(queue, Row.class, this::record, BatchOptions.of(10), OPTIONS);
        consumer.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).dead() == 1 && handled().size() >= 2);
        awaitSettled(queue);
        assertThat(handled()).containsExactlyInAnyOrder("good1@1", "good2@1");
        if (onePartition()) {
            assertThat(calls).containsExactly(List.of("good1@1", "good2@1"));
        }
        assertThat(client.deadLetters(queue, 10).get(0).id()).isEqualTo("bad");
    }

    @Test
    void interceptorsRunPerMessageAndLeaveOutOrFailOnlyTheirOwn() {
        String queue = "batch-intercepted";
        sendDue(queue, "a", "skip", "boom", "b");
        List<String> outcomes = new CopyOnWriteArrayList<>();
        DeliveryInterceptor interceptor = new DeliveryInterceptor() {
            @Override
            public void aroundHandle(MessageContext context, Object payload, Invocation invocation) throws Exception {
                if (context.id().equals("skip")) {
                    return; // left out: acknowledged without the handler
                }
                if (context.id().equals("boom") && context.attempt() == 1) {
                    throw new IllegalStateException("interceptor refused boom");
                }
                invocation.proceed();
            }

            @Override
            public void afterDelivery(MessageContext context, DeliveryOutcome outcome, Throwable error,
                    Duration handlerTime) {
                outcomes.add(context.id() + ":" + outcome);
            }
        };
        consumer = client.newBatchConsumer(queue, Row.class, this::record, BatchOptions.of(10),
                OPTIONS.toBuilder().interceptors(List.of(interceptor)).build());
        consumer.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> handled().size() >= 3);
        awaitSettled(queue);
        assertThat(handled()).containsExactlyInAnyOrder("a@1", "b@1", "boom@2");
        assertThat(outcomes).containsExactlyInAnyOrder("a:ACKNOWLEDGED", "b:ACKNOWLEDGED", "skip:ACKNOWLEDGED",
                "boom:RETRIED", "boom:ACKNOWLEDGED");
    }

    /**
     * A slow-down thrown by an interceptor for one message of a batch holds the queue's claims, as the same exception
     * does for a single message and for a whole batch (the interceptor ran before the batch call, so no hold was set).
     */
    @Test
    void aSlowDownFromAnInterceptorHoldsTheQueue() {
        String queue = "batch-intercepted-slow";
        sendDue(queue, "slow");
        AtomicInteger thrown = new AtomicInteger();
        DeliveryInterceptor interceptor = new DeliveryInterceptor() {
            @Override
            public void aroundHandle(MessageContext context, Object payload, Invocation invocation) throws Exception {
                if (thrown.getAndIncrement() == 0) {
                    throw new SlowDownException(Duration.ofMinutes(10));
                }
                invocation.proceed();
            }
        };
        consumer = client.newBatchConsumer(queue, Row.class, this::record, BatchOptions.of(10),
                OPTIONS.toBuilder().interceptors(List.of(interceptor)).build());
        consumer.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> thrown.get() >= 1 && client.stats(queue).inFlight() == 0);
        assertThat(client.stats(queue).flow().holdUntil()).as("the queue is held").isNotNull();
        assertThat(handled()).isEmpty();
    }

    @Test
    void gracefulStopWaitsForTheRunningBatch() {
        String queue = "batch-stop";
        sendDue(queue, "a", "b");
        AtomicInteger started = new AtomicInteger(); // messages whose batch started (two batches when partitioned)
        consumer = client.newBatchConsumer(queue, Row.class, items -> {
            started.addAndGet(items.size());
            Thread.sleep(500);
            record(items);
        }, BatchOptions.of(10), OPTIONS);
        consumer.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> started.get() == 2);
        consumer.stop();

        assertThat(handled()).containsExactlyInAnyOrder("a@1", "b@1");
        QueueStats stats = client.stats(queue);
        assertThat(stats.inFlight()).isZero();
        assertThat(stats.pending()).isZero();
    }

    @Test
    void aListPayloadWithAMessageHandlerIsStillOneMessage() {
        String queue = "list-payload";
        Map<String, Object> seen = new ConcurrentHashMap<>();
        consumer = client.newConsumer(queue, List.class, (list, context) -> seen.put(context.id(), list), OPTIONS);
        consumer.start();
        client.send(queue, List.of("x", "y"), Duration.ZERO, SendOptions.id("one"));

        await().atMost(Duration.ofSeconds(20)).until(() -> seen.size() == 1);
        awaitSettled(queue);
        assertThat(seen).containsExactly(Map.entry("one", List.of("x", "y")));
    }

    @Test
    void badBatchSettingsAreRefused() {
        assertThatThrownBy(() -> BatchOptions.of(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("batch size");
        assertThatThrownBy(() -> BatchOptions.of(1_001)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BatchOptions.of(10).withMaxWait(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("batch wait");
        assertThatThrownBy(() -> BatchOptions.of(10).withMaxWait(Duration.ofSeconds(11)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BatchFailedException(null, new IllegalStateException()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BatchFailedException(java.util.Arrays.asList("a", null), null))
                .isInstanceOf(IllegalArgumentException.class);
        ConsumerOptions shortLease = ConsumerOptions.builder().visibilityTimeout(Duration.ofSeconds(1)).build();
        assertThatThrownBy(() -> client.newBatchConsumer("q", Row.class, items -> { },
                BatchOptions.of(10).withMaxWait(Duration.ofMillis(500)), shortLease))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("half the visibility timeout");
        assertThatThrownBy(() -> client.newBatchConsumer("q", Row.class, null, BatchOptions.of(10), OPTIONS))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(client.stats("q").pending()).isZero();
    }
}
