package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/** Reading live messages: pages of pending and in-flight messages, and one message by id. */
@ExtendWith(RedisExtension.class)
class PeekTest {

    private final RedisContext redis;
    private DelayQueueClient client;

    PeekTest(RedisContext redis) {
        this.redis = redis;
    }

    @BeforeEach
    void setUp() {
        client = DelayQueueClient.create(redis.redisson(), ClientOptions.builder().keyPrefix(redis.prefix()).build());
    }

    @AfterEach
    void tearDown() {
        redis.redisson().getKeys().deleteByPattern(redis.prefix() + ":*");
    }

    @Test
    void pendingPagesAreInDueOrderWithEqualDueTimesInSendOrder() {
        Instant base = client.stats("q").serverTime().plus(Duration.ofHours(1));
        List<SendRequest> batch = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            // reverse due order, and pairs with equal due times
            batch.add(SendRequest.at("p" + i, base.plusSeconds(100 - i / 2), SendOptions.id("m" + i)));
        }
        client.sendAll("q", batch);

        MessagePage first = client.pending("q", 0, 10);
        MessagePage rest = client.pending("q", 10, 100);
        MessagePage past = client.pending("q", 25, 10);

        assertThat(first.total()).isEqualTo(25);
        assertThat(first.offset()).isZero();
        assertThat(first.messages()).hasSize(10);
        assertThat(rest.messages()).hasSize(15);
        assertThat(past.messages()).isEmpty();
        assertThat(past.total()).isEqualTo(25);
        List<String> ids = new ArrayList<>();
        first.messages().forEach(m -> ids.add(m.id()));
        rest.messages().forEach(m -> ids.add(m.id()));
        // m24 alone at +88 s, then (m22, m23) at +89 s in send order, ... (m0, m1) at +100 s
        assertThat(ids.subList(0, 5)).containsExactly("m24", "m22", "m23", "m20", "m21");
        assertThat(ids.subList(23, 25)).containsExactly("m0", "m1");
        QueuedMessage m24 = first.messages().get(0);
        assertThat(m24.state()).isEqualTo(QueuedMessage.State.PENDING);
        assertThat(m24.dueAt()).isEqualTo(base.plusSeconds(88));
        assertThat(m24.leaseDeadline()).isNull();
        assertThat(m24.attempts()).isZero();
        assertThat(m24.payload()).isEqualTo("\"p24\"");
        assertThat(m24.enqueuedAt()).isBetween(first.serverTime().minusSeconds(60), first.serverTime());
    }

    @Test
    void oneMessageByIdWithHeadersAndItsLastError() throws Exception {
        client.send("q", Map.of("order", 42), Duration.ofHours(1), SendOptions.id("order-42").header("trace", "abc"));

        QueuedMessage pending = client.message("q", "order-42").orElseThrow();
        assertThat(pending.state()).isEqualTo(QueuedMessage.State.PENDING);
        assertThat(pending.headers()).containsEntry("trace", "abc");
        assertThat(pending.payload()).isEqualTo("{\"order\":42}");
        assertThat(client.message("q", "no-such-id")).isEmpty();

        // a failing handler: the message is retried later, with its error and attempt count
        client.sendAt("q", "boom", client.stats("q").serverTime(), SendOptions.id("fails"));
        CountDownLatch failed = new CountDownLatch(1);
        DelayQueueConsumer consumer = client.newConsumer("q", String.class, (payload, context) -> {
            failed.countDown();
            throw new IllegalStateException("payment service down");
        }, ConsumerOptions.builder().retry(new RetryPolicy(10, Duration.ofHours(1), 2.0, Duration.ofHours(1), 0.0))
                .build());
        consumer.start();
        try {
            assertThat(failed.await(30, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> client.message("q", "fails")
                    .filter(m -> m.state() == QueuedMessage.State.PENDING).isPresent());
        } finally {
            consumer.stop();
        }
        QueuedMessage retried = client.message("q", "fails").orElseThrow();
        assertThat(retried.attempts()).isEqualTo(1);
        assertThat(retried.lastError()).contains("IllegalStateException").contains("payment service down");
        assertThat(client.pending("q", 0, 10).messages()).extracting(QueuedMessage::id).containsExactly("order-42", "fails"); // retried an hour after order-42 was sent
    }

    @Test
    void inFlightMessagesShowTheirLeaseDeadline() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        client.sendAt("q", "slow", client.stats("q").serverTime(), SendOptions.id("slow-1"));
        DelayQueueConsumer consumer = client.newConsumer("q", String.class, (payload, context) -> {
            running.countDown();
            release.await();
        }, ConsumerOptions.builder().visibilityTimeout(Duration.ofMinutes(5)).build());
        consumer.start();
        try {
            assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
            MessagePage page = client.inFlight("q", 0, 10);
            assertThat(page.total()).isEqualTo(1);
            QueuedMessage slow = page.messages().get(0);
            assertThat(slow.id()).isEqualTo("slow-1");
            assertThat(slow.state()).isEqualTo(QueuedMessage.State.IN_FLIGHT);
            assertThat(slow.dueAt()).isNull();
            assertThat(slow.leaseDeadline()).isAfter(page.serverTime());
            assertThat(slow.attempts()).isEqualTo(1);
            assertThat(client.message("q", "slow-1").orElseThrow().state()).isEqualTo(QueuedMessage.State.IN_FLIGHT);
            assertThat(client.pending("q", 0, 10).messages()).isEmpty();
        } finally {
            release.countDown();
            consumer.stop();
        }
    }
}
