package io.github.delayqueue.spring.health;

import java.time.Duration;
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

import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.spring.DelayQueueAdmin;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the queues: UP with the statistics of every declared queue when Redis answers, DOWN
 * otherwise. Redisson retries a command for several seconds while Redis is unreachable, so the
 * statistics are read on one background thread: a check waits at most {@link #WAIT} for them, and
 * while Redis is known to be down it answers DOWN at once instead of queuing behind the running read.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class DelayQueueHealthIndicator implements HealthIndicator, DisposableBean {

    static final Duration WAIT = Duration.ofSeconds(2);

    private final DelayQueueAdmin admin;
    private final ExecutorService reader = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "delayqueue-health");
        thread.setDaemon(true);
        return thread;
    });
    private @Nullable CompletableFuture<Health> running;
    private @Nullable Health last;

    public DelayQueueHealthIndicator(DelayQueueAdmin admin) {
        this.admin = admin;
    }

    @Override
    public Health health() {
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
        List<QueueStats> stats = this.admin.stats();
        Map<String, Object> queues = new LinkedHashMap<>();
        for (QueueStats s : stats) {
            queues.put(s.queue(), Map.of("pending", s.pending(), "ready", s.ready(), "inFlight", s.inFlight(),
                    "dead", s.dead()));
        }
        return Health.up().withDetail("queues", queues).build();
    }

    @Override
    public void destroy() {
        this.reader.shutdownNow();
    }
}
