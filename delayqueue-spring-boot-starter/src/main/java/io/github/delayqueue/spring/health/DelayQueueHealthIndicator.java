package io.github.delayqueue.spring.health;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueConsumerRegistry;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the queues: UP with the statistics of every declared queue (and which are paused) when Redis
 * answers, DOWN otherwise, and DOWN too, whatever Redis says, when one of this application's consumers has
 * stopped claiming for good ({@link DelayQueueConsumer#failure()}). A paused queue is not DOWN: pausing is an
 * operator's decision, shown under {@code paused}. Redisson retries a command for several seconds while Redis is unreachable, so the
 * statistics are read on one background thread: a check waits at most {@link #WAIT} for them, and
 * while Redis is known to be down it answers DOWN at once instead of queuing behind the running read.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class DelayQueueHealthIndicator implements HealthIndicator, DisposableBean {

    static final Duration WAIT = Duration.ofSeconds(2);

    private final DelayQueueAdmin admin;
    private final @Nullable DelayQueueConsumerRegistry registry;
    private final ExecutorService reader = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "delayqueue-health");
        thread.setDaemon(true);
        return thread;
    });
    private @Nullable CompletableFuture<Health> running;
    private @Nullable Health last;

    /**
     * @param registry this application's consumers, whose failures make the health DOWN; {@code null} when
     *                 there is none to watch
     */
    public DelayQueueHealthIndicator(DelayQueueAdmin admin, @Nullable DelayQueueConsumerRegistry registry) {
        this.admin = admin;
        this.registry = registry;
    }

    @Override
    public Health health() {
        Health redis = redisHealth();
        Map<String, String> failed = failedConsumers();
        if (failed.isEmpty()) {
            return redis;
        }
        Map<String, Object> details = new LinkedHashMap<>(redis.getDetails());
        details.putIfAbsent("error", "the consumer of " + (failed.size() == 1 ? "queue " : "queues ") + failed.keySet()
                + " stopped claiming messages; restart the application"); // a Redis error, if any, stays first
        details.put("failedConsumers", failed);
        return Health.down().withDetails(details).build();
    }

    /** Read in the caller's thread: no Redis involved, so a consumer's failure shows even while Redis is down. */
    private Map<String, String> failedConsumers() {
        Map<String, String> failed = new LinkedHashMap<>();
        if (this.registry != null) {
            for (DelayQueueConsumer consumer : this.registry.consumers()) {
                Throwable failure = consumer.failure();
                if (failure != null) {
                    failed.put(consumer.queue(), failure.toString());
                }
            }
        }
        return failed;
    }

    private Health redisHealth() {
        CompletableFuture<Health> read;
        Health previous;
        synchronized (this) {
            if (this.running == null || this.running.isDone()) {
                this.running = CompletableFuture.supplyAsync(this::read, this.reader)
                        .exceptionally(DelayQueueHealthIndicator::down);
                this.running.thenAccept(this::remember);
            }
            read = this.running;
            previous = this.last;
        }
        if (previous != null && Status.DOWN.equals(previous.getStatus()) && !read.isDone()) {
            return previous; // Redis was down at the last read and this one is still waiting for it
        }
        try {
            return read.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            Health down = Health.down().withDetail("error", "Redis did not answer within " + WAIT).build();
            if (!read.isDone()) {
                remember(down);
            }
            return down;
        } catch (ExecutionException e) {
            return down(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Health.unknown().withDetail("error", "interrupted while reading the queues").build();
        }
    }

    private synchronized void remember(Health health) {
        this.last = health;
    }

    private static Health down(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return Health.down().withDetail("error", cause.toString()).build();
    }

    private Health read() {
        Map<String, Object> queues = new LinkedHashMap<>();
        List<String> paused = new ArrayList<>();
        for (DelayQueueCode code : this.admin.codes()) {
            QueueStats s = this.admin.stats(code);
            boolean isPaused = this.admin.isPaused(code);
            if (isPaused) {
                paused.add(code.code());
            }
            queues.put(s.queue(), Map.of("pending", s.pending(), "ready", s.ready(), "inFlight", s.inFlight(),
                    "dead", s.dead(), "paused", isPaused));
        }
        return Health.up().withDetail("queues", queues).withDetail("paused", paused).build();
    }

    @Override
    public void destroy() {
        this.reader.shutdownNow();
    }
}
