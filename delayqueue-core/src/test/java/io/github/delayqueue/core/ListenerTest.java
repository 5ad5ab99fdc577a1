package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.Redisson;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.Scripts;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/** What a {@link DelayQueueListener} hears: every event of a message, counted as Redis applied it. */
@ExtendWith(RedisExtension.class)
class ListenerTest {

    private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    private static final RetryPolicy FAST = new RetryPolicy(2, Duration.ofMillis(50), 1.0, Duration.ofMillis(50), 0.0);

    private final RedisContext redis;
    private final Recording events = new Recording();
    private final List<DelayQueueConsumer> consumers = new CopyOnWriteArrayList<>();

    ListenerTest(RedisContext redis) {
        this.redis = redis;
    }

    @AfterEach
    void tearDown() {
        consumers.forEach(DelayQueueConsumer::stop);
    }

    private DelayQueueClient client(DelayQueueListener listener) {
        return DelayQueueClient.create(redis.redisson(),
                ClientOptions.builder().keyPrefix(redis.prefix()).listener(listener).build());
    }

    private <T> void start(DelayQueueClient client, String queue, Class<T> type, MessageHandler<T> handler,
            ConsumerOptions options) {
        DelayQueueConsumer consumer = client.newConsumer(queue, type, handler, options);
        consumers.add(consumer);
        consumer.start();
    }

    /** Counts per "event:queue[:detail]", and the handler events in order. */
    static final class Recording implements DelayQueueListener {
        final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
        final List<String> handled = new CopyOnWriteArrayList<>();
        final List<Duration> lateness = new CopyOnWriteArrayList<>();

        int count(String key) {
            AtomicInteger n = counts.get(key);
            return n == null ? 0 : n.get();
        }

        private void add(String key, int n) {
            counts.computeIfAbsent(key, k -> new AtomicInteger()).addAndGet(n);
        }

        @Override
        public void sent(String queue, SendMode mode, boolean batch, int messages, Duration duration) {
            assertThat(duration.isNegative()).isFalse();
            add("sent:" + queue + ":" + mode + ":" + (batch ? "batch" : "single"), messages);
        }

        @Override
        public void sendFailed(String queue, SendMode mode, boolean batch, int messages, Duration duration, Throwable error) {
            add("sendFailed:" + queue + ":" + error.getClass().getSimpleName(), messages);
        }

        @Override
        public void claimed(String queue, int messages) {
            add("claimed:" + queue, messages);
        }

        @Override
        public void handlerStarted(MessageContext context, Duration lateness) {
            this.lateness.add(lateness);
            handled.add("start:" + context.id() + "#" + context.attempt());
        }

        @Override
        public void handlerFinished(MessageContext context, DeliveryOutcome outcome, Duration duration,
                @Nullable Throwable error) {
            assertThat(duration.isNegative()).isFalse();
            handled.add(outcome + ":" + context.id() + "#" + context.attempt() + (error == null ? "" : ":error"));
        }

        @Override
        public void acknowledged(String queue, int messages) {
            add("acknowledged:" + queue, messages);
        }

        @Override
        public void retried(String queue, int messages) {
            add("retried:" + queue, messages);
        }

        @Override
        public void deadLettered(String queue, DeadLetterCause cause, int messages) {
            add("dead:" + queue + ":" + cause, messages);
        }

        @Override
        public void redelivered(String queue, int messages) {
            add("redelivered:" + queue, messages);
        }

        @Override
        public void staleSettles(String queue, int messages) {
            add("stale:" + queue, messages);
        }
    }

    record Order(int number) {
    }

    /**
     * A handler past its timeout that ignores the interrupt and then returns: the lease keeper decided the outcome
     * (retried), and the return adds nothing. The engine reported a second outcome, ACKNOWLEDGED, for the same
     * delivery (its acknowledgement itself was already a no-op), so metrics counted one handler run twice.
     */
    @Test
    void aHandlerThatReturnsAfterItsTimeoutHasOneOutcome() {
        String queue = "late-return";
        DelayQueueClient client = client(events);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean returned = new java.util.concurrent.atomic.AtomicBoolean();
        start(client, queue, String.class, (payload, context) -> {
            if (context.attempt() == 1) {
                boolean released = false;
                while (!released) { // deaf to the interrupt: waits on
                    try {
                        released = release.await(10, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (InterruptedException ignored) {
                        // a handler that ignores its interrupt, as a blocking library call may
                    }
                }
                returned.set(true);
            }
        }, ConsumerOptions.builder().retry(FAST).handlerTimeout(Duration.ofMillis(300)).build());
        client.send(queue, "x", Duration.ZERO, SendOptions.id("late"));
        await().atMost(Duration.ofSeconds(20)).until(() -> events.handled.contains("RETRIED:late#1:error"));
        release.countDown();
        await().atMost(Duration.ofSeconds(20)).until(() -> events.handled.contains("ACKNOWLEDGED:late#2") && returned.get());
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> events.handled.stream()
                .filter(e -> e.contains("late#1") && !e.startsWith("start:")).toList().equals(List.of("RETRIED:late#1:error")));
    }

    @Test
    void hearsSendsClaimsHandlerRunsAcksRetriesAndDeadLettersWithTheirCause() {
        String queue = "heard";
        DelayQueueClient client = client(events);
        client.send(queue, new Order(1), Duration.ZERO, SendOptions.id("ok"));
        client.sendAll(queue, List.of(SendRequest.of(new Order(2), Duration.ZERO, SendOptions.id("fails")),
                SendRequest.of(new Order(3), Duration.ZERO, SendOptions.id("ok2").replaceExisting())));
        client.send(queue, "not an order", Duration.ZERO, SendOptions.id("garbage"));

        start(client, queue, Order.class, (order, context) -> {
            if (order.number() == 2) {
                throw new IllegalStateException("always fails");
            }
        }, ConsumerOptions.builder().retry(FAST).build());

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(events.count("acknowledged:" + queue)).isEqualTo(2);
            assertThat(events.count("retried:" + queue)).isEqualTo(1);
            assertThat(events.count("dead:" + queue + ":HANDLER_FAILED")).isEqualTo(1);
            assertThat(events.count("dead:" + queue + ":UNDECODABLE")).isEqualTo(1);
        });
        assertThat(events.count("sent:" + queue + ":IF_ABSENT:single")).isEqualTo(2);
        assertThat(events.count("sent:" + queue + ":IF_ABSENT:batch")).isEqualTo(1);
        assertThat(events.count("sent:" + queue + ":REPLACE:batch")).isEqualTo(1);
        assertThat(events.count("claimed:" + queue)).isEqualTo(5); // 4 messages, one of them twice
        assertThat(events.handled).contains("start:ok#1", "ACKNOWLEDGED:ok#1", "start:ok2#1", "ACKNOWLEDGED:ok2#1",
                "RETRIED:fails#1:error", "DEAD_LETTERED:fails#2:error")
                .doesNotContain("start:garbage#1"); // no handler ran for it
        assertThat(events.handled.indexOf("start:fails#1")).isLessThan(events.handled.indexOf("RETRIED:fails#1:error"));
        assertThat(events.lateness).hasSize(4).allSatisfy(late -> assertThat(late.isNegative()).isFalse());
        assertThat(events.count("stale:" + queue)).isZero();
        assertThat(client.stats(queue).dead()).isEqualTo(2);
    }

    @Test
    void hearsExpiredLeasesRedeliveredOrDeadLetteredOnTheLastAttempt() {
        String queue = "expired";
        DelayQueueClient client = client(events);
        QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
        client.send(queue, new Order(1), Duration.ZERO, SendOptions.id("twice"));
        // a trace context travels as a header: a redelivery after an expired lease carries it as the first delivery did
        client.send(queue, new Order(2), Duration.ZERO, SendOptions.id("once").header("traceparent", TRACEPARENT));
        // due at the sends' clock rounded up to the next millisecond: a claim in the same millisecond finds neither
        await().atMost(Duration.ofSeconds(10)).until(() -> ops.stats().ready() == 2);
        // consumers that die after claiming: "twice" on attempts 1 and 2, "once" on attempt 1, with short leases
        assertThat(ops.claim(1, 50, 5, 100, 60_000, 1_000).messages()).extracting(QueueOps.Claimed::id).containsExactly("twice");
        // a claim of none only returns expired leases: "twice" is back once its lease ran out
        await().atMost(Duration.ofSeconds(10)).until(() -> ops.claim(0, 50, 5, 100, 60_000, 1_000) != null
                && ops.stats().inFlight() == 0);
        assertThat(ops.claim(2, 50, 5, 100, 60_000, 1_000).messages()).extracting(m -> m.id() + "#" + m.attempt())
                .containsExactlyInAnyOrder("twice#2", "once#1");

        List<String> handled = new CopyOnWriteArrayList<>();
        start(client, queue, Order.class, (order, context) -> handled.add(context.id() + "#" + context.attempt() + ":"
                        + context.headers().get("traceparent")),
                ConsumerOptions.builder().retry(FAST).build()); // 2 attempts: "twice" has none left

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(events.count("redelivered:" + queue)).isEqualTo(1);
            assertThat(events.count("dead:" + queue + ":LEASE_EXPIRED")).isEqualTo(1);
            assertThat(events.count("acknowledged:" + queue)).isEqualTo(1);
        });
        assertThat(handled).containsExactly("once#2:" + TRACEPARENT);
        assertThat(client.deadLetters(queue, 10)).extracting(DeadLetter::id).containsExactly("twice");
    }

    @Test
    void hearsASettleTheFenceRejects() throws Exception {
        String queue = "stale";
        DelayQueueClient client = client(events);
        QueueOps ops = new QueueOps(new Scripts(redis.redisson()), QueueKeys.of(redis.prefix(), queue));
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        start(client, queue, String.class, (payload, context) -> {
            started.countDown();
            release.await(30, TimeUnit.SECONDS);
        }, ConsumerOptions.builder().maxPollInterval(Duration.ofSeconds(30))
                // one slot, held by the blocked handler, so this consumer's poller cannot take the expired lease back
                // itself before the claim below (with free slots, a wake-up that arrives during a claim makes it
                // claim again at once: CI's failure of 2026-11-27); a long lease, so the lease keeper (every third
                // of it) does not extend the lease between its expiry and the claim
                .concurrency(1).visibilityTimeout(Duration.ofMinutes(5)).build());
        client.send(queue, "slow", Duration.ZERO, SendOptions.id("slow"));
        assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();

        // the running delivery loses its lease (as after a long GC pause) and another consumer takes the message
        String inflight = QueueKeys.of(redis.prefix(), queue).keys().get(2).toString();
        redis.redisson().getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_WRITE,
                "for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do redis.call('ZADD', KEYS[1], 1, m) end return 1",
                RScript.ReturnType.LONG, List.of(inflight));
        // a wake-up now (as the send's own can arrive late, during a claim) must not let this consumer claim it
        redis.redisson().getTopic(QueueKeys.of(redis.prefix(), queue).wakeChannel(), StringCodec.INSTANCE).publish("0");
        Thread.sleep(200);
        assertThat(ops.claim(1, 60_000, 5, 100, 60_000, 1_000).messages()).extracting(QueueOps.Claimed::attempt)
                .containsExactly(2);
        release.countDown(); // the first handler returns: its ack is stale

        await().atMost(Duration.ofSeconds(20)).until(() -> events.count("stale:" + queue) == 1);
        assertThat(events.count("acknowledged:" + queue)).isZero();
        assertThat(events.handled).contains("ACKNOWLEDGED:slow#1"); // decided by the handler, rejected by Redis
        assertThat(ops.stats().inFlight()).isEqualTo(1);
    }

    @Test
    void hearsASendThatFailsInRedis() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        Config config = new Config().setLazyInitialization(true);
        config.useSingleServer().setAddress("redis://127.0.0.1:" + closedPort).setConnectTimeout(200).setTimeout(200)
                .setRetryAttempts(0);
        RedissonClient down = Redisson.create(config);
        try {
            DelayQueueClient client = DelayQueueClient.create(down, ClientOptions.builder().listener(events).build());
            assertThatThrownBy(() -> client.sendAll("down", List.of(SendRequest.of("a", Duration.ZERO),
                    SendRequest.of("b", Duration.ZERO)))).isInstanceOf(DelayQueueException.class);
            assertThatThrownBy(() -> client.send("down", "x", Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class); // bad input is not a send failure
            assertThat(events.count("sendFailed:down:DelayQueueException")).isEqualTo(2);
            assertThat(events.counts.keySet()).containsExactly("sendFailed:down:DelayQueueException");
        } finally {
            down.shutdown();
        }
    }

    @Test
    void aListenerThatThrowsChangesNothing() {
        String queue = "throwing";
        AtomicInteger calls = new AtomicInteger();
        DelayQueueListener broken = new DelayQueueListener() {
            @Override
            public void sent(String queue, SendMode mode, boolean batch, int messages, Duration duration) {
                calls.incrementAndGet();
                throw new IllegalStateException("broken listener");
            }

            @Override
            public void handlerStarted(MessageContext context, Duration lateness) {
                calls.incrementAndGet();
                throw new IllegalStateException("broken listener");
            }

            @Override
            public void acknowledged(String queue, int messages) {
                calls.incrementAndGet();
                throw new IllegalStateException("broken listener");
            }
        };
        DelayQueueClient client = client(broken);
        List<String> handled = new CopyOnWriteArrayList<>();
        start(client, queue, String.class, (payload, context) -> handled.add(payload), ConsumerOptions.builder().build());
        client.send(queue, "a", Duration.ZERO);
        client.send(queue, "b", Duration.ZERO);

        await().atMost(Duration.ofSeconds(20)).until(() -> client.stats(queue).pending() == 0
                && client.stats(queue).inFlight() == 0 && handled.size() == 2);
        assertThat(calls.get()).isGreaterThanOrEqualTo(5); // 2 sends, 2 starts, at least one ack batch
        assertThat(client.stats(queue).dead()).isZero();
    }

    @Test
    void theDefaultListenerIsNone() {
        assertThat(ClientOptions.builder().build().listener()).isSameAs(DelayQueueListener.NONE);
        assertThatThrownBy(() -> ClientOptions.builder().listener(null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listener");
    }
}
