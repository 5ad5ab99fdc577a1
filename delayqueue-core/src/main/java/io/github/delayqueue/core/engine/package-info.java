/**
 * Internal: the consumer engine, and may change without notice. One {@code ConsumerEngine} per queue (or partition,
 * under a {@code PartitionedConsumer}) runs small role classes: the {@code Poller} claims due messages and sleeps
 * until the next one ({@code WakeUps} cuts the sleep short), the {@code HandlerPool} runs handlers within the
 * {@code Slots} of its concurrency, the {@code Settler} acknowledges, retries and dead-letters in batches, the
 * {@code LeaseKeeper} extends the leases of running deliveries, the {@code Watch} takes this instance's turns at
 * checking idle queues (so that their cost does not grow with the instances) and wakes the pollers; {@code Delivery}
 * is one claimed message on its way, {@code SafeListener} keeps a failing listener from breaking the loop,
 * {@code Threads} and {@code SharedThreads} name and share the threads.
 *
 * <p>May use: the API types of {@code io.github.delayqueue.core} (options, contracts, values, exceptions; not
 * {@code DelayQueueClient} or {@code RDelayedQueueImporter}), {@code protocol} and {@code internal}. Used by the
 * client, which builds the engines, and by {@code migration} ({@code Threads}). Never by code outside
 * delayqueue-core.
 */
@NullMarked
package io.github.delayqueue.core.engine;

import org.jspecify.annotations.NullMarked;
