/**
 * Internal: the RDelayedQueue migration's machinery, and may change without notice. {@code RDelayedQueueSource}
 * reads Redisson's delayed-queue layout (the version it was written by is named there), {@code ImportLease} lets one
 * import run at a time per key prefix. The public entry point is
 * {@link io.github.delayqueue.core.RDelayedQueueImporter}, which drives them and writes through {@code protocol}.
 *
 * <p>May use: the API types of {@code io.github.delayqueue.core} as values and exceptions, {@code engine}
 * ({@code Threads}), {@code protocol} and {@code internal}. Used only by {@code RDelayedQueueImporter}.
 */
@NullMarked
package io.github.delayqueue.core.migration;

import org.jspecify.annotations.NullMarked;
