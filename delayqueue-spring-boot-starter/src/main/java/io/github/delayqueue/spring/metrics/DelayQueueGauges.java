package io.github.delayqueue.spring.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToDoubleFunction;

import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.core.QueueCatalog;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

/**
 * The queue gauges ({@code delayqueue.queue.pending}, {@code .ready}, {@code .ready.age}, {@code .in.flight},
 * {@code .dead}, {@code .throttled}, {@code .history}, tagged by {@code queue}) of every declared queue. They read Redis, so a scrape never does: one named daemon thread
 * ({@code delayqueue-metrics}) reads the statistics of each queue once per refresh interval (one
 * {@code DelayQueueClient.stats} call, O(log N)) and the gauges show the last values read, or {@code NaN} until
 * the first read and after a failed one (an old figure would look current). Started with the context, stopped
 * with it.
 *
 * <p>{@code delayqueue.queue.ready.priority}, tagged by {@code queue} and {@code priority} (0 to 9), counts the ready
 * messages of one priority. It is registered by the refresh that first reads ready messages of that priority, so a
 * queue shows only the priorities it has used since the start (most queues: {@code 4}, the default, alone), and then
 * stays: it reads 0 once that priority has no ready message, and {@code NaN} as the others do after a failed read.
 *
 * <p>Internal to the starter: public only so that the auto-configuration can create it.
 */
public final class DelayQueueGauges implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(DelayQueueGauges.class);

    private final QueueCatalog catalog;
    private final MeterRegistry registry;
    private final Duration interval;
    private final List<Snapshot> snapshots = new ArrayList<>();
    private @Nullable ScheduledExecutorService executor; // guarded by this
    private int failures; // touched by the refresh thread only

    /**
     * @throws DelayQueueConfigurationException if {@code interval} is not positive
     */
    public DelayQueueGauges(QueueCatalog catalog, MeterRegistry registry, Duration interval) {
        if (interval == null || interval.isZero() || interval.isNegative()) {
            throw new DelayQueueConfigurationException("delayqueue.metrics.refresh-interval must be positive, was "
                    + interval + ".", "Set delayqueue.metrics.refresh-interval to a positive duration, such as 10s "
                    + "(the default).");
        }
        this.catalog = catalog;
        this.registry = registry;
        this.interval = interval;
    }

    /** The last statistics read of one queue; null until the first read and after a failed one. */
    private static final class Snapshot {
        final QueueCatalog.Queue queue;
        volatile @Nullable QueueStats stats;
        /** The priorities whose {@code queue.ready.priority} gauge is registered. */
        final Set<Integer> priorities = ConcurrentHashMap.newKeySet();

        Snapshot(QueueCatalog.Queue queue) {
            this.queue = queue;
        }

        double value(ToDoubleFunction<QueueStats> field) {
            QueueStats current = stats;
            return current == null ? Double.NaN : field.applyAsDouble(current);
        }
    }

    @Override
    public synchronized void start() {
        if (executor != null) {
            return;
        }
        if (snapshots.isEmpty()) {
            for (DelayQueueCode code : catalog.codes()) {
                Snapshot snapshot = new Snapshot(catalog.require(code));
                snapshots.add(snapshot);
                gauge("queue.pending", "Messages waiting for their due time or a consumer (ready ones included)",
                        snapshot, QueueStats::pending);
                gauge("queue.ready", "Pending messages already due: a backlog when it stays above zero", snapshot,
                        QueueStats::ready);
                gauge("queue.in.flight", "Messages claimed by a consumer and not yet settled", snapshot,
                        QueueStats::inFlight);
                gauge("queue.dead", "Dead letters", snapshot, QueueStats::dead);
                gauge("queue.history", "Records of settled messages the queue's history keeps (0 when it keeps none)",
                        snapshot, QueueStats::history);
                gauge("queue.throttled", "Due messages the flow limits (queue-wide or per group) or a slow-down "
                        + "hold keep in Redis now (part of ready)", snapshot, stats -> stats.flow().throttled());
                TimeGauge.builder(DelayQueueMetrics.PREFIX + "queue.ready.age", snapshot, TimeUnit.MILLISECONDS,
                        s -> s.value(DelayQueueGauges::readyAgeMillis))
                        .description("How long the oldest ready message has been due (0 when none is): with ready, "
                                + "the signal to scale consumers on").tag("queue", snapshot.queue.name()).register(registry);
            }
        }
        AtomicInteger threads = new AtomicInteger();
        ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "delayqueue-metrics" + (threads.incrementAndGet() == 1 ? "" : "-" + threads.get()));
            thread.setDaemon(true);
            return thread;
        });
        started.scheduleWithFixedDelay(this::refresh, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        executor = started;
    }

    private void gauge(String name, String description, Snapshot snapshot, ToDoubleFunction<QueueStats> field) {
        Gauge.builder(DelayQueueMetrics.PREFIX + name, snapshot, s -> s.value(field)).description(description)
                .tag("queue", snapshot.queue.name()).register(registry);
    }

    /**
     * Registers the {@code queue.ready.priority} gauge of each priority {@code stats} has ready messages of and the
     * queue has none for yet. A gauge reads its priority's count in the latest statistics, 0 when they have none.
     */
    private void priorityGauges(Snapshot snapshot, QueueStats stats) {
        for (Integer priority : stats.readyByPriority().keySet()) {
            if (!snapshot.priorities.add(priority)) {
                continue;
            }
            try {
                Gauge.builder(DelayQueueMetrics.PREFIX + "queue.ready.priority", snapshot,
                        s -> s.value(current -> current.readyByPriority().getOrDefault(priority, 0L)))
                        .description("Pending messages already due, of one priority (SendOptions.priority, 0 to 9): "
                                + "registered when the priority first has ready messages, 0 once it has none")
                        .tags("queue", snapshot.queue.name(), "priority", Integer.toString(priority)).register(registry);
            } catch (RuntimeException e) { // a registry that refuses it: the other gauges and the refresh go on
                log.warn("Could not register the gauge delayqueue.queue.ready.priority of queue '{}', priority {}: {}",
                        snapshot.queue.name(), priority, e.toString());
            }
        }
    }

    /**
     * How long the oldest ready message has been due, ms on the Redis clock: the statistics' time less the earliest
     * pending due time while some are ready (for a grouped message, the time its group may next be claimed), else 0.
     */
    static double readyAgeMillis(QueueStats stats) {
        Instant head = stats.nextDueAt();
        if (stats.ready() == 0 || head == null) {
            return 0;
        }
        return Math.max(0, stats.serverTime().toEpochMilli() - head.toEpochMilli());
    }

    /** One statistics read per queue; never throws (a scheduled task that throws is never run again). */
    void refresh() {
        int failed = 0;
        Throwable last = null;
        for (Snapshot snapshot : snapshots) {
            if (Thread.currentThread().isInterrupted()) {
                return; // stopping
            }
            QueueStats stats;
            try {
                stats = snapshot.queue.client().stats(snapshot.queue.name());
            } catch (Throwable e) { // an Error too: the refresh must go on
                snapshot.stats = null;
                failed++;
                last = e;
                continue;
            }
            snapshot.stats = stats;
            priorityGauges(snapshot, stats);
        }
        if (failed > 0) {
            failures++;
            if (failures == 1 || failures % 60 == 0) {
                log.warn("Could not read the statistics of {} delay queue(s) for the queue gauges ({} refreshes in a "
                        + "row); they show NaN until Redis answers: {}", failed, failures, last.toString());
            }
        } else if (failures > 0) {
            log.info("Queue gauges read Redis again after {} failed refreshes", failures);
            failures = 0;
        }
    }

    @Override
    public synchronized void stop() {
        ScheduledExecutorService running = executor;
        executor = null;
        if (running != null) {
            running.shutdownNow(); // interrupts a refresh under way: it ends before its next queue
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return executor != null;
    }

    /** Read before the consumers start, and stopped after they stopped (the registry's phase is the default). */
    @Override
    public int getPhase() {
        return DEFAULT_PHASE - 1;
    }
}
