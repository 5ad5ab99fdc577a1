/**
 * Internal: helpers every other package of delayqueue-core shares, and may change without notice ({@code Checks}:
 * argument checks that throw {@link java.lang.IllegalArgumentException} in the caller's words, and the longest
 * delay anything accepts). The bottom of the layout: uses nothing of delayqueue-core; used by all of it, never by
 * code outside delayqueue-core.
 */
@NullMarked
package io.github.delayqueue.core.internal;

import org.jspecify.annotations.NullMarked;
