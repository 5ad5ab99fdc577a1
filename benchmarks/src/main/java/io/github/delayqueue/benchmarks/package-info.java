/**
 * Side-by-side benchmarks of the engine against Redisson's {@code RDelayedQueue}. Nothing here is
 * {@code null} unless marked {@link org.jspecify.annotations.Nullable @Nullable}.
 */
@NullMarked
package io.github.delayqueue.benchmarks;

import org.jspecify.annotations.NullMarked;
