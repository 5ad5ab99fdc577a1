package io.github.delayqueue.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.testing.TestRedis;

/**
 * Issue #6, redis-restart: a Redis of our own (AOF, {@code appendfsync always}) is SIGKILLed and started
 * again on the same port and data directory while two producers send and a consumer consumes. Every
 * send that returned normally is delivered; sends during the outage throw {@link DelayQueueException};
 * the same consumer and clients carry on after the restart (reconnect, reload scripts on NOSCRIPT,
 * resubscribe to wake-ups), without being recreated.
 *
 * <p>redis-stall: the same stream while Redis is frozen with SIGSTOP for 3 s, longer than the clients'
 * timeout (1 s) and the consumer's visibility timeout (2 s), then SIGCONT. Redis then runs the commands
 * that queued up, so replies are lost for work that was done: sends that threw may be written, claims
 * whose reply was lost leave messages in flight until their lease expires, acks may come after the
 * lease expired. Still nothing acknowledged is lost.
 */
class RedisRestartTest {

    private static final int PRODUCERS = 2;
    private static final int SENDS_AFTER_RESTART = 1_000;

    /** What happens to Redis mid-stream: {@code begin} takes it away, {@code end} gives it back. */
    private record Outage(Consumer<FaultSupport.OwnRedis> begin, Consumer<FaultSupport.OwnRedis> end) {
    }

    @Test
    void crashAndRestartLosesNoAcknowledgedSend() throws Exception {
        // kill -9, then the same port and dir: Redis loads the AOF
        outageMidStream("redis-restart", "redis=own-embedded-6.2(aof,appendfsync=always,SIGKILL)", 1_000, 3_000,
                new Outage(FaultSupport.OwnRedis::crash, FaultSupport.OwnRedis::start));
    }

    @Test
    void stalledRedisLosesNoAcknowledgedSend() throws Exception {
        outageMidStream("redis-stall", "redis=own-embedded-6.2(aof,appendfsync=always,SIGSTOP_3s)", 3_000, 2_000,
                new Outage(FaultSupport.OwnRedis::pause, FaultSupport.OwnRedis::resume));
    }

    private void outageMidStream(String scenario, String redisMode, long minDownMs, long visibilityMs, Outage outage)
            throws Exception {
        String queue = scenario;
        String prefix = TestRedis.uniquePrefix();
        try (FaultSupport.OwnRedis server = new FaultSupport.OwnRedis().start()) {
            RedissonClient producerRedis = FaultSupport.client(server.url(), 1_000, 1, 100, false);
            RedissonClient consumerRedis = FaultSupport.client(server.url(), 1_000, 1, 100, false);
            DelayQueueConsumer consumer = null;
            try {
                ClientOptions options = ClientOptions.builder().keyPrefix(prefix).build();
                DelayQueueClient producer = DelayQueueClient.create(producerRedis, options);
                DelayQueueClient consuming = DelayQueueClient.create(consumerRedis, options);

                Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
                Map<String, Long> deliveredAtNanos = new ConcurrentHashMap<>();
                Set<String> firstSeenOnLaterAttempt = ConcurrentHashMap.newKeySet();
                consumer = consuming.newConsumer(queue, String.class, (payload, context) -> {
                    if (deliveries.computeIfAbsent(context.id(), k -> new AtomicInteger()).incrementAndGet() == 1
                            && context.attempt() > 1) {
                        firstSeenOnLaterAttempt.add(context.id()); // an earlier claim's reply was lost
                    }
                    deliveredAtNanos.putIfAbsent(context.id(), System.nanoTime());
                }, ConsumerOptions.builder().concurrency(16).batchSize(100).visibilityTimeout(Duration.ofMillis(visibilityMs))
                        .maxPollInterval(Duration.ofSeconds(1)).build());
                consumer.start();

                Set<String> acknowledged = ConcurrentHashMap.newKeySet();
                Set<String> failed = ConcurrentHashMap.newKeySet();
                Map<String, String> failures = new ConcurrentHashMap<>();
                AtomicLong restartedAt = new AtomicLong();
                AtomicLong firstSendAfterRestart = new AtomicLong();
                AtomicInteger sendsAfterRestart = new AtomicInteger();
                AtomicBoolean stop = new AtomicBoolean();
                List<Thread> producers = new ArrayList<>();
                for (int p = 0; p < PRODUCERS; p++) {
                    int producerNo = p;
                    Thread t = new Thread(() -> {
                        for (int n = 0; !stop.get(); n++) {
                            String id = "r-" + producerNo + "-" + n;
                            try {
                                producer.send(queue, "payload " + id,
                                        Duration.ofMillis(ThreadLocalRandom.current().nextLong(1_500)), SendOptions.id(id));
                                acknowledged.add(id);
                                if (restartedAt.get() != 0) {
                                    firstSendAfterRestart.compareAndSet(0, System.nanoTime());
                                    sendsAfterRestart.incrementAndGet();
                                }
                            } catch (DelayQueueException e) {
                                failed.add(id); // outcome unknown: may or may not have been written
                                failures.merge(e.getCause().getClass().getSimpleName(), id, (a, b) -> a);
                            }
                            LockSupport.parkNanos(2_000_000); // ~500 sends/s per producer
                        }
                    }, "faults-producer-" + p);
                    producers.add(t);
                    t.start();
                }

                await("stream running").atMost(Duration.ofSeconds(10))
                        .until(() -> acknowledged.size() >= 500 && deliveries.size() >= 100);
                long crashedAt = System.nanoTime();
                outage.begin().accept(server);
                int acknowledgedBeforeCrash = acknowledged.size();
                // an outage long enough for messages to fall due while Redis is away
                await("producers notice the outage").atMost(Duration.ofSeconds(15))
                        .until(() -> failed.size() >= PRODUCERS && FaultSupport.millisSince(crashedAt) >= minDownMs);
                outage.end().accept(server);
                restartedAt.set(System.nanoTime());
                long downMs = (restartedAt.get() - crashedAt) / 1_000_000;

                await("producers resume").atMost(Duration.ofSeconds(20))
                        .until(() -> sendsAfterRestart.get() >= SENDS_AFTER_RESTART);
                stop.set(true);
                for (Thread t : producers) {
                    t.join(10_000);
                }
                await("every acknowledged send delivered").atMost(Duration.ofSeconds(30))
                        .until(() -> deliveries.keySet().containsAll(acknowledged));
                await("queue drained").atMost(Duration.ofSeconds(15)).until(() -> {
                    QueueStats s = producer.stats(queue);
                    return s.pending() == 0 && s.inFlight() == 0;
                });

                long consumerResumeMs = deliveredAtNanos.values().stream().filter(t -> t > restartedAt.get())
                        .mapToLong(t -> (t - restartedAt.get()) / 1_000_000).min().orElse(-1);
                long producerResumeMs = (firstSendAfterRestart.get() - restartedAt.get()) / 1_000_000;

                // wake-ups still work: an idle consumer (1 s safety poll) gets a message due now in milliseconds
                List<Long> wakeLatencies = new ArrayList<>();
                for (int i = 0; i < FaultSupport.WAKE_SAMPLES; i++) {
                    String id = "wake-" + i;
                    long sentAt = System.nanoTime();
                    producer.send(queue, "wake", Duration.ZERO, SendOptions.id(id));
                    await().atMost(Duration.ofSeconds(5)).until(() -> deliveries.containsKey(id));
                    wakeLatencies.add((deliveredAtNanos.get(id) - sentAt) / 1_000_000);
                }

                Set<String> lost = new HashSet<>(acknowledged);
                lost.removeAll(deliveries.keySet());
                long failedButDelivered = failed.stream().filter(deliveries::containsKey).count();
                long duplicates = deliveries.values().stream().mapToLong(n -> n.get() - 1).sum();
                long deliveredAcknowledged = acknowledged.stream().filter(deliveries::containsKey).count();
                FaultSupport.report(scenario, acknowledged.size(), deliveredAcknowledged, lost.size(), duplicates,
                        Math.max(consumerResumeMs, producerResumeMs),
                        redisMode + " visibility_ms=" + visibilityMs + " claim_replies_lost="
                                + firstSeenOnLaterAttempt.size() + " acknowledged_before_crash="
                                + acknowledgedBeforeCrash + " failed_sends=" + failed.size() + " failed_but_written="
                                + failedButDelivered + " down_ms=" + downMs + " producer_resume_ms=" + producerResumeMs
                                + " consumer_resume_ms=" + consumerResumeMs + " wake_latency_ms_after=" + wakeLatencies
                                + " failure_causes=" + failures.keySet());

                assertThat(lost).as("acknowledged sends that were never delivered").isEmpty();
                assertThat(failed).as("sends during the outage fail loudly").isNotEmpty();
                assertThat(consumerResumeMs).as("the same consumer delivers again after the restart").isBetween(0L, 15_000L);
                FaultSupport.assertWokenNotPolled(wakeLatencies);
                assertThat(producer.stats(queue).dead()).isZero();
            } finally {
                if (consumer != null) {
                    consumer.stop();
                }
                FaultSupport.shutdown(producerRedis);
                FaultSupport.shutdown(consumerRedis);
            }
        }
    }
}
