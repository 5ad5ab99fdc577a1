/**
 * Redis support at startup: the background warm-up and the eviction-policy check. Internal to the
 * starter.
 */
@NullMarked
package io.github.delayqueue.spring.redis;

import org.jspecify.annotations.NullMarked;
