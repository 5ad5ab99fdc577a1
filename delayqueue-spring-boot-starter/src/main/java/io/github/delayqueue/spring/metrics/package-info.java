/**
 * Micrometer meters of the queues: {@code DelayQueueMetrics} counts and times what the engine's listener reports
 * (sends, claims, deliveries, settles, dead letters), {@code DelayQueueGauges} samples each queue's sizes. Internal
 * to the starter: the meter names and tags are the contract (docs/reference/observability.md), not these classes.
 */
@NullMarked
package io.github.delayqueue.spring.metrics;

import org.jspecify.annotations.NullMarked;
