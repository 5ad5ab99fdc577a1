/**
 * The consumer side: the registry that owns one engine consumer per handled queue, and the
 * runner that starts it once the application is ready. Internal to the starter.
 */
@NullMarked
package io.github.delayqueue.spring.consumer;

import org.jspecify.annotations.NullMarked;
