package io.github.delayqueue.dashboard;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

/**
 * Reads the timers the starter's metrics record, by name: {@code delayqueue.handler.duration} (tags {@code queue},
 * {@code outcome}) for throughput and {@code delayqueue.lateness} (tag {@code queue}) for lateness.
 *
 * <p>Throughput is a difference of the timers' counts between two reads: each read (each refresh of an open
 * dashboard) keeps a sample per queue, at most one a second, for {@link #WINDOW}; the rate spans the oldest sample
 * still inside it. No thread of its own: with no dashboard open nothing is sampled, and the first refresh after
 * a pause starts a new window.
 */
final class MicrometerQueueMetrics implements QueueMetrics {

    static final String HANDLER_DURATION = "delayqueue.handler.duration";
    static final String LATENESS = "delayqueue.lateness";
    static final Duration WINDOW = Duration.ofMinutes(5);
    private static final long MIN_SPAN_MS = 1_000;
    private static final int MAX_SAMPLES = 400;
    private static final Set<String> FAILED = Set.of("retried", "dead_lettered", "abandoned");

    private record Sample(long at, long handled, long failed) {
    }

    private final ObjectProvider<MeterRegistry> registries;
    private final Clock clock;
    private final Map<String, Deque<Sample>> samples = new HashMap<>();

    MicrometerQueueMetrics(ObjectProvider<MeterRegistry> registries, Clock clock) {
        this.registries = registries;
        this.clock = clock;
    }

    @Override
    public synchronized Map<String, Figures> read(List<String> queues) {
        MeterRegistry registry = this.registries.getIfUnique();
        if (registry == null) {
            return Map.of();
        }
        long now = this.clock.millis();
        Map<String, Figures> figures = new HashMap<>();
        for (String queue : queues) {
            Figures f = read(registry, queue, now);
            if (f != null) {
                figures.put(queue, f);
            }
        }
        return figures;
    }

    private @Nullable Figures read(MeterRegistry registry, String queue, long now) {
        long handled = 0;
        long failed = 0;
        boolean any = false;
        for (Timer timer : registry.find(HANDLER_DURATION).tag("queue", queue).timers()) {
            any = true;
            handled += timer.count();
            if (FAILED.contains(timer.getId().getTag("outcome"))) {
                failed += timer.count();
            }
        }
        Double handledRate = null;
        Double failedRate = null;
        long window = 0;
        if (any) {
            Deque<Sample> ring = this.samples.computeIfAbsent(queue, q -> new ArrayDeque<>());
            while (!ring.isEmpty() && (now - ring.peekFirst().at() > WINDOW.toMillis() || ring.peekFirst().handled() > handled)) {
                ring.pollFirst(); // out of the window, or the meter was reset
            }
            if (ring.isEmpty() || now - ring.peekLast().at() >= MIN_SPAN_MS) {
                ring.addLast(new Sample(now, handled, failed));
                if (ring.size() > MAX_SAMPLES) {
                    ring.pollFirst();
                }
            }
            Sample oldest = ring.peekFirst();
            long span = now - oldest.at();
            if (span >= MIN_SPAN_MS) {
                handledRate = (handled - oldest.handled()) * 60_000.0 / span;
                failedRate = Math.max(0, failed - oldest.failed()) * 60_000.0 / span;
                window = span / 1000;
            }
        }
        Double lateness = null;
        String stat = null;
        Timer late = registry.find(LATENESS).tag("queue", queue).timer();
        if (late != null && late.count() > 0) {
            for (ValueAtPercentile p : late.takeSnapshot().percentileValues()) {
                if (Math.abs(p.percentile() - 0.99) < 1e-9) {
                    lateness = p.value(TimeUnit.MILLISECONDS);
                    stat = "p99";
                }
            }
            if (lateness == null) {
                lateness = late.max(TimeUnit.MILLISECONDS);
                stat = "max";
            }
        }
        if (!any && late == null) {
            return null;
        }
        return new Figures(handledRate, failedRate, window, lateness, stat);
    }
}
