package io.github.delayqueue.spring.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.faults.FaultSupport;
import io.github.delayqueue.testing.TestRedis;

/**
 * Issue #6, graceful-shutdown: a Spring Boot application ({@link ShutdownApp}, a JVM of its own on this test
 * class path) consumes a stream of 2,000 messages with 8 handlers of 200-600 ms each; it gets SIGTERM
 * ({@link Process#destroy()}) while its handlers run. Spring's shutdown hook closes the context: the
 * starter stops claiming, lets the running handlers finish within the shutdown timeout (10 s) and
 * acknowledges them. Then a consumer in this JVM drains what is left. Nothing is lost, nothing the
 * application finished is delivered again, no handler is interrupted, nothing is left in flight, and no
 * handler starts after the shutdown began (beyond the dispatch of a claim already under way).
 */
class GracefulShutdownUnderLoadTest {

    private static final int COUNT = 2_000;
    private static final int CONCURRENCY = 8;
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

    @Test
    void sigtermLetsRunningHandlersFinishAndLosesNothing() throws Exception {
        String queue = ShutdownQueues.SHUTDOWN_WORK.code();
        String prefix = TestRedis.uniquePrefix();
        RedissonClient redisson = TestRedis.newClient();
        DelayQueueConsumer drainer = null;
        Process app = null;
        try {
            DelayQueueClient client = DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix(prefix).build());
            List<SendRequest> requests = new ArrayList<>(COUNT);
            for (int i = 0; i < COUNT; i++) {
                requests.add(SendRequest.of("work " + i, Duration.ofMillis(i % 2_000), SendOptions.id("s-" + i)));
            }
            client.sendAll(queue, requests);

            app = startApp(prefix);
            Process running = app;
            await("the application handles messages (log: target/faults/graceful-shutdown-app.log)")
                    .atMost(Duration.ofSeconds(180)) // a Boot JVM's start on a loaded 2-core box took over 60 s
                    .until(() -> !running.isAlive() || finished(redisson, prefix).size() >= 40);
            assertThat(app.isAlive()).as("application JVM running (see target/faults/graceful-shutdown-app.log)").isTrue();
            await("handlers running").atMost(Duration.ofSeconds(30))
                    .until(() -> started(redisson, prefix).size() - finished(redisson, prefix).size() >= CONCURRENCY / 2);

            long sigtermAtMs = System.currentTimeMillis();
            long sigtermNanos = System.nanoTime();
            Set<String> startedAtTerm = started(redisson, prefix).keySet();
            Set<String> runningAtTerm = new HashSet<>(startedAtTerm);
            runningAtTerm.removeAll(finished(redisson, prefix).keySet());
            app.destroy(); // SIGTERM
            assertThat(app.waitFor(SHUTDOWN_TIMEOUT.toSeconds() + 20, TimeUnit.SECONDS)).as("application exited").isTrue();
            long shutdownMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sigtermNanos);
            int exitCode = app.exitValue();

            Map<String, Long> started = started(redisson, prefix);
            Map<String, Long> finished = finished(redisson, prefix);
            Set<String> interrupted = redisson.<String>getSet(ShutdownApp.key(prefix, "interrupted"), StringCodec.INSTANCE)
                    .readAll();
            String began = redisson.<String>getBucket(ShutdownApp.key(prefix, "close-began"), StringCodec.INSTANCE).get();
            long closeBeganMs = began == null ? -1 : Long.parseLong(began);
            QueueStats afterExit = client.stats(queue);
            Set<String> unfinished = new HashSet<>(started.keySet());
            unfinished.removeAll(finished.keySet());
            // handlers that started after the close began: only the dispatch of a claim that was already under way
            List<Long> startedAfterClose = new ArrayList<>();
            for (Map.Entry<String, Long> e : started.entrySet()) {
                if (closeBeganMs > 0 && e.getValue() > closeBeganMs) {
                    startedAfterClose.add(e.getValue() - closeBeganMs);
                }
            }
            long runningFinishedAfterTerm = runningAtTerm.stream().filter(finished::containsKey).count();

            // a fresh consumer drains the rest
            Map<String, AtomicInteger> drained = new ConcurrentHashMap<>();
            drainer = client.newConsumer(queue, String.class,
                    (payload, context) -> drained.computeIfAbsent(context.id(), k -> new AtomicInteger()).incrementAndGet(),
                    ConsumerOptions.builder().concurrency(32).batchSize(200).build());
            drainer.start();
            Set<String> appIds = new HashSet<>();
            finished.keySet().forEach(entry -> appIds.add(entry.substring(0, entry.indexOf('#'))));
            await("the rest drained").atMost(Duration.ofSeconds(90)).until(() -> {
                QueueStats s = client.stats(queue);
                return s.pending() == 0 && s.inFlight() == 0;
            });
            Set<String> delivered = new HashSet<>(appIds);
            delivered.addAll(drained.keySet());
            long duplicates = drained.keySet().stream().filter(appIds::contains).count()
                    + drained.values().stream().mapToLong(n -> n.get() - 1).sum();

            FaultSupport.report("graceful-shutdown", COUNT, delivered.size(), COUNT - delivered.size(), duplicates, shutdownMs,
                    "running_at_sigterm=" + runningAtTerm.size() + " finished_after_sigterm=" + runningFinishedAfterTerm
                            + " interrupted=" + interrupted.size() + " unfinished_at_exit=" + unfinished.size()
                            + " in_flight_after_exit=" + afterExit.inFlight() + " pending_after_exit="
                            + afterExit.pending() + " started_after_close_began=" + startedAfterClose.size()
                            + " started_after_close_ms=" + startedAfterClose + " handled_by_app=" + appIds.size()
                            + " drained_after=" + drained.size() + " shutdown_timeout_ms=" + SHUTDOWN_TIMEOUT.toMillis()
                            + " close_began_after_sigterm_ms=" + (closeBeganMs - sigtermAtMs) + " exit_code=" + exitCode
                            + " concurrency=" + CONCURRENCY + " handler_ms=200-600");

            assertThat(runningAtTerm).as("handlers were running at SIGTERM").isNotEmpty();
            assertThat(interrupted).as("no handler was interrupted").isEmpty();
            assertThat(unfinished).as("every handler that started finished before the JVM exited").isEmpty();
            assertThat(afterExit.inFlight()).as("nothing left in flight: everything claimed was acknowledged").isZero();
            assertThat(afterExit.pending()).as("what the application did not handle stayed in Redis")
                    .isEqualTo(COUNT - appIds.size());
            assertThat(closeBeganMs).as("the context close began").isPositive();
            assertThat(startedAfterClose).as("no new claims after shutdown began (only a claim already under way)")
                    .allMatch(ms -> ms < 250).hasSizeLessThanOrEqualTo(CONCURRENCY);
            assertThat(shutdownMs).as("shutdown within the shutdown timeout").isLessThan(SHUTDOWN_TIMEOUT.toMillis());
            assertThat(delivered).as("nothing lost").hasSize(COUNT);
            assertThat(duplicates).as("nothing the application finished is delivered again").isZero();
        } finally {
            if (app != null && app.isAlive()) {
                app.destroyForcibly();
            }
            if (drainer != null) {
                drainer.stop();
            }
            redisson.getKeys().unlinkByPattern(prefix + ":*");
            redisson.shutdown();
        }
    }

    private static Map<String, Long> started(RedissonClient redisson, String prefix) {
        return times(redisson, ShutdownApp.key(prefix, "started"));
    }

    private static Map<String, Long> finished(RedissonClient redisson, String prefix) {
        return times(redisson, ShutdownApp.key(prefix, "finished"));
    }

    private static Map<String, Long> times(RedissonClient redisson, String key) {
        Map<String, Long> out = new HashMap<>();
        redisson.<String, String>getMap(key, StringCodec.INSTANCE).readAllMap()
                .forEach((k, v) -> out.put(k, Long.parseLong(v)));
        return out;
    }

    private static Process startApp(String prefix) throws IOException {
        // a port of its own (0: any free one): 8080 may be taken on the machine, or by another build's run of this test
        return FaultSupport.startJava(ShutdownApp.class, "graceful-shutdown-app.log", "--spring.main.banner-mode=off",
                "--server.port=0",
                "--spring.data.redis.url=" + TestRedis.url(), "--delayqueue.key-prefix=" + prefix,
                "--delayqueue.consumer.concurrency=" + CONCURRENCY,
                "--delayqueue.consumer.shutdown-timeout=" + SHUTDOWN_TIMEOUT.toSeconds() + "s",
                "--delayqueue.consumer.max-poll-interval=200ms");
    }
}
