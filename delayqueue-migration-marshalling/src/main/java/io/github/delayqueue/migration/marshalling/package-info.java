/**
 * Reading Redisson's pre-3.19 {@code MarshallingCodec} format, for importing an {@code RDelayedQueue} into delayqueue:
 * {@link io.github.delayqueue.migration.marshalling.LegacyMarshallingCodec}.
 */
@NullMarked
package io.github.delayqueue.migration.marshalling;

import org.jspecify.annotations.NullMarked;
