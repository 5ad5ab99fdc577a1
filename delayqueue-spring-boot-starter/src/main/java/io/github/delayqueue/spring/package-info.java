/**
 * The API an application uses: {@link io.github.delayqueue.spring.DelayQueueCode} enums declare the
 * queues, {@link io.github.delayqueue.spring.DelayHandler @DelayHandler} beans consume them (methods, or classes
 * implementing {@link io.github.delayqueue.spring.DelayMessageHandler} or
 * {@link io.github.delayqueue.spring.ContextAwareDelayMessageHandler}),
 * {@link io.github.delayqueue.spring.DelayQueueTemplate} sends, and
 * {@link io.github.delayqueue.spring.DelayQueueAdmin} reads statistics and manages dead letters.
 */
@NullMarked
package io.github.delayqueue.spring;

import org.jspecify.annotations.NullMarked;
