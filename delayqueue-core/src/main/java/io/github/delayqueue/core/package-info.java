/**
 * The delay queue engine: {@link io.github.delayqueue.core.DelayQueueClient} and what it takes and gives.
 * Nothing here is {@code null} unless marked {@link org.jspecify.annotations.Nullable @Nullable}.
 */
@NullMarked
package io.github.delayqueue.core;

import org.jspecify.annotations.NullMarked;
