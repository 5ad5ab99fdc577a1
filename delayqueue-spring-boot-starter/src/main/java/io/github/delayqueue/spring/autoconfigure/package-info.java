/**
 * Auto-configuration of the delayqueue starter. Public: {@link
 * io.github.delayqueue.spring.autoconfigure.DelayQueueAutoConfiguration}, {@link
 * io.github.delayqueue.spring.autoconfigure.DelayQueueProperties} and {@link
 * io.github.delayqueue.spring.autoconfigure.DelayQueueRedissonConfigCustomizer}; everything else is internal.
 */
@NullMarked
package io.github.delayqueue.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
