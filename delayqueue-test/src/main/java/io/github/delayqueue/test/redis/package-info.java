/**
 * The embedded Redis that {@code delayqueue-test} starts when the application configures none, shared by the
 * application contexts of one JVM. Internal to {@code delayqueue-test}.
 */
@NullMarked
package io.github.delayqueue.test.redis;

import org.jspecify.annotations.NullMarked;
