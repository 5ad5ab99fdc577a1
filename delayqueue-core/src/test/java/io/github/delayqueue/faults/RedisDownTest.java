package io.github.delayqueue.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.testing.TestRedis;

/**
 * Issue #6, redis-down: a consumer started while Redis is down backs off without a busy loop and resumes
 * by itself when Redis comes up; sends while Redis is down fail fast with {@link DelayQueueException}.
 * Uses a Redis of its own (or a port where nothing listens yet), whatever {@code DELAYQUEUE_REDIS_URL} says.
 */
class RedisDownTest {

    /** The poller backs off up to max(1 s, min(5 × maxPollInterval, 10 s)): 1 s here. */
    private static final Duration MAX_POLL = Duration.ofMillis(200);
    private static final long BACKOFF_CAP_MS = 1_000;
    private static final long CPU_WINDOW_MS = 3_000;

    @Test
    void consumerStartedWhileRedisIsDownWaitsQuietlyAndResumesByItself() throws Exception {
        String queue = "down";
        String prefix = TestRedis.uniquePrefix();
        ClientOptions options = ClientOptions.builder().keyPrefix(prefix).build();
        try (FaultSupport.OwnRedis server = new FaultSupport.OwnRedis()) { // not started: nothing listens on its port
            // Redisson.create with eager initialisation (the default) fails when nothing listens
            long t0 = System.nanoTime();
            String eager;
            try {
                FaultSupport.shutdown(FaultSupport.client(server.url(), 1_000, 1, 100, false));
                eager = "succeeded";
            } catch (RuntimeException e) {
                eager = "failed:" + e.getClass().getSimpleName() + "_after_" + FaultSupport.millisSince(t0) + "ms";
            }

            // Redisson's own defaults (timeout 3 s, 4 retries 1-2 s apart), measured on a port that never listens
            CompletableFuture<String> defaultsSend = CompletableFuture.supplyAsync(() -> failingSendWithDefaults(prefix));

            RedissonClient lazy = FaultSupport.client(server.url(), 1_000, 1, 100, true);
            RedissonClient producerRedis = null;
            DelayQueueConsumer consumer = null;
            try {
                DelayQueueClient client = DelayQueueClient.create(lazy, options);
                Map<String, Long> delivered = new ConcurrentHashMap<>();
                AtomicInteger deliveries = new AtomicInteger();
                consumer = client.newConsumer(queue, String.class, (payload, context) -> {
                    delivered.putIfAbsent(context.id(), System.nanoTime());
                    deliveries.incrementAndGet();
                }, ConsumerOptions.builder().concurrency(4).maxPollInterval(MAX_POLL).build());
                consumer.start(); // must not throw while Redis is down
                assertThat(consumer.isRunning()).isTrue();

                // (b) sends fail fast and loudly
                List<Long> failMs = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    long start = System.nanoTime();
                    int n = i;
                    assertThatThrownBy(() -> client.send(queue, "while down", Duration.ZERO, SendOptions.id("down-" + n)))
                            .isInstanceOf(DelayQueueException.class).hasMessageContaining("could not send");
                    failMs.add(FaultSupport.millisSince(start));
                }

                // (c) no busy loop: CPU of the engine threads over a 3 s outage
                await().atMost(Duration.ofSeconds(5)).until(() -> !FaultSupport.engineThreads(queue, "poller").isEmpty());
                List<Thread> poller = FaultSupport.engineThreads(queue, "poller");
                List<Thread> engine = new ArrayList<>(poller);
                engine.addAll(FaultSupport.sharedEngineThreads("settler"));
                engine.addAll(FaultSupport.sharedEngineThreads("lease"));
                long pollerCpu0 = FaultSupport.threadCpuNanos(poller);
                long engineCpu0 = FaultSupport.threadCpuNanos(engine);
                long processCpu0 = FaultSupport.processCpuNanos();
                long window0 = System.nanoTime();
                Thread.sleep(CPU_WINDOW_MS); // a measuring window, not a wait for a condition
                long windowMs = FaultSupport.millisSince(window0);
                long pollerCpuMs = (FaultSupport.threadCpuNanos(poller) - pollerCpu0) / 1_000_000;
                long engineCpuMs = (FaultSupport.threadCpuNanos(engine) - engineCpu0) / 1_000_000;
                long processCpuMs = (FaultSupport.processCpuNanos() - processCpu0) / 1_000_000;
                assertThat(consumer.isRunning()).isTrue();

                // (a) Redis comes up; the same consumer finds it by itself
                server.start();
                long upAt = System.nanoTime();
                producerRedis = FaultSupport.client(server.url(), 1_000, 1, 100, false);
                DelayQueueClient producer = DelayQueueClient.create(producerRedis, options);
                int count = 20;
                for (int i = 0; i < count; i++) {
                    producer.send(queue, "after", Duration.ZERO, SendOptions.id("up-" + i));
                }
                await("delivered after Redis came up").atMost(Duration.ofSeconds(15)).until(() -> delivered.size() == count);
                long recoverMs = delivered.values().stream().mapToLong(t -> (t - upAt) / 1_000_000).min().orElse(-1);
                await().atMost(Duration.ofSeconds(5)).until(() -> producer.stats(queue).inFlight() == 0);
                String defaults = defaultsSend.get(30, TimeUnit.SECONDS);

                FaultSupport.report("redis-down", count, delivered.size(), count - delivered.size(),
                        deliveries.get() - delivered.size(), recoverMs,
                        "redis=own-embedded-6.2 eager_redisson_create=" + eager
                                + " lazy_redisson_create=ok consumer_start_while_down=ok failing_send_ms=" + failMs
                                + " (timeout=1000ms,retryAttempts=1,retryDelay=100ms) failing_send_redisson_defaults="
                                + defaults + " cpu_window_ms=" + windowMs + " poller_cpu_ms=" + pollerCpuMs
                                + " engine_threads_cpu_ms=" + engineCpuMs + " process_cpu_ms=" + processCpuMs
                                + " backoff_cap_ms=" + BACKOFF_CAP_MS);

                assertThat(failMs).as("a send while Redis is down fails within timeout + retries").allMatch(ms -> ms < 2_500);
                assertThat(pollerCpuMs).as("poller CPU over %d ms of outage", windowMs).isLessThan(200);
                assertThat(engineCpuMs).as("poller + settler + lease keeper CPU over %d ms of outage", windowMs)
                        .isLessThan(300);
                assertThat(recoverMs).as("resumes within the back-off cap (+ slack)").isLessThan(BACKOFF_CAP_MS + 3_000);
                assertThat(deliveries.get()).isEqualTo(count);
            } finally {
                if (consumer != null) {
                    consumer.stop();
                }
                FaultSupport.shutdown(lazy);
                FaultSupport.shutdown(producerRedis);
            }
        }
    }

    /**
     * A consumer started on a connected client while Redis is down: its wake-up subscription fails
     * (asynchronously); after Redis is back it must still be woken by new messages rather than fall
     * back to its safety poll. Regression test: the engine used to keep its "subscribed" flag set after
     * a failed subscription, so such a consumer never subscribed again and every message waited for the
     * safety poll (measured 805-901 ms instead of ~20 ms).
     */
    @Test
    void consumerStartedDuringAnOutageOnAConnectedClientStillGetsWakeUps() throws Exception {
        String queue = "wake";
        String prefix = TestRedis.uniquePrefix();
        ClientOptions options = ClientOptions.builder().keyPrefix(prefix).build();
        try (FaultSupport.OwnRedis server = new FaultSupport.OwnRedis().start();
                FaultSupport.EngineLog log = new FaultSupport.EngineLog()) {
            RedissonClient redisson = FaultSupport.client(server.url(), 1_000, 1, 100, false);
            DelayQueueConsumer consumer = null;
            try {
                DelayQueueClient client = DelayQueueClient.create(redisson, options);
                client.stats(queue); // connected, scripts loaded
                server.crash();

                Map<String, Long> delivered = new ConcurrentHashMap<>();
                consumer = client.newConsumer(queue, String.class,
                        (payload, context) -> delivered.putIfAbsent(context.id(), System.nanoTime()),
                        ConsumerOptions.builder().concurrency(4).maxPollInterval(Duration.ofSeconds(1)).build());
                long startedAt = System.nanoTime();
                consumer.start();
                DelayQueueConsumer started = consumer;
                await("the consumer notices the outage").atMost(Duration.ofSeconds(15))
                        .until(() -> log.contains("polling Redis failed")
                                && (log.contains("subscription failed") || FaultSupport.millisSince(startedAt) > 3_000));
                boolean subscriptionFailed = log.contains("subscription failed");

                server.start();
                long upAt = System.nanoTime();
                await("resumed").atMost(Duration.ofSeconds(15)).until(() -> log.contains("Redis answers again"));
                long recoverMs = FaultSupport.millisSince(upAt);
                // the poller subscribes again after its first successful claim (asynchronously): give it a moment
                Thread.sleep(300);

                // idle consumer, safety poll 1 s: a message due now must arrive through the wake-up, in ms
                List<Long> latencies = new ArrayList<>();
                for (int i = 0; i < FaultSupport.WAKE_SAMPLES; i++) {
                    String id = "w-" + i;
                    await().atMost(Duration.ofSeconds(5)).until(() -> started.activeHandlers() == 0);
                    long sentAt = System.nanoTime();
                    client.send(queue, "wake", Duration.ZERO, SendOptions.id(id));
                    await().atMost(Duration.ofSeconds(5)).until(() -> delivered.containsKey(id));
                    latencies.add((delivered.get(id) - sentAt) / 1_000_000);
                }
                FaultSupport.report("redis-down-wakeup", FaultSupport.WAKE_SAMPLES, delivered.size(),
                        FaultSupport.WAKE_SAMPLES - delivered.size(), 0, recoverMs,
                        "redis=own-embedded-6.2 subscription_failed_while_down=" + subscriptionFailed
                                + " wake_latency_ms=" + latencies + " safety_poll_ms=1000");
                assertThat(delivered).hasSize(FaultSupport.WAKE_SAMPLES);
                FaultSupport.assertWokenNotPolled(latencies);
            } finally {
                if (consumer != null) {
                    consumer.stop();
                }
                FaultSupport.shutdown(redisson);
            }
        }
    }

    /** One send on a lazily initialised client with Redisson's default timeouts and retries; nothing listens. */
    private static String failingSendWithDefaults(String prefix) {
        Config config = new Config();
        config.setLazyInitialization(true);
        config.useSingleServer().setAddress("redis://127.0.0.1:" + FaultSupport.freePort());
        RedissonClient redisson = Redisson.create(config);
        long start = System.nanoTime();
        try {
            DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix(prefix).build()).send("down", "x",
                    Duration.ZERO);
            return "succeeded?!";
        } catch (DelayQueueException e) {
            return FaultSupport.millisSince(start) + "ms";
        } finally {
            FaultSupport.shutdown(redisson);
        }
    }
}
