/**
 * Finds {@code @DelayHandler} classes and methods on beans and turns them into handler endpoints
 * (signature checks, placeholders, payload types). Internal to the starter.
 */
@NullMarked
package io.github.delayqueue.spring.annotation;

import org.jspecify.annotations.NullMarked;
