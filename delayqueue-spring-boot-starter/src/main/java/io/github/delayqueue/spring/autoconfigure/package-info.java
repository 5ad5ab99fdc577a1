/**
 * Auto-configuration of the delayqueue starter. Public: {@link
 * io.github.delayqueue.spring.autoconfigure.DelayQueueAutoConfiguration} and {@link
 * io.github.delayqueue.spring.autoconfigure.DelayQueueProperties}; everything else is internal.
 */
@NullMarked
package io.github.delayqueue.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
