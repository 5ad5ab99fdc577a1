package io.github.delayqueue.dashboard;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * What the application's own metrics say about its queues: handler throughput and lateness. Read from the
 * {@code MeterRegistry} when there is one ({@link MicrometerQueueMetrics}); {@link #NONE} otherwise.
 */
interface QueueMetrics {

    /** No metrics: every figure unknown. */
    QueueMetrics NONE = queues -> Map.of();

    /** The figures of the given queues, by queue; a queue without figures is absent. */
    Map<String, Figures> read(List<String> queues);

    /**
     * @param handledPerMinute handler calls finished per minute over the last {@code windowSeconds}, any outcome;
     *                         {@code null} until two samples are far enough apart
     * @param failedPerMinute  of those, the ones that failed (retried, dead-lettered, abandoned)
     * @param windowSeconds    the time the two rates span
     * @param latenessMillis   handler start minus due time: the 99th percentile when the meter publishes it,
     *                         else the maximum the meter keeps; {@code null} with no lateness recorded
     * @param latenessStat     {@code "p99"} or {@code "max"}: which of the two {@code latenessMillis} is
     */
    record Figures(@Nullable Double handledPerMinute, @Nullable Double failedPerMinute, long windowSeconds,
            @Nullable Double latenessMillis, @Nullable String latenessStat) {
    }
}
