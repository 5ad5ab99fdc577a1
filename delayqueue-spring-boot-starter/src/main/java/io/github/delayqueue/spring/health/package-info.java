/**
 * The {@code delayqueue} health indicator. Internal to the starter.
 */
@NullMarked
package io.github.delayqueue.spring.health;

import org.jspecify.annotations.NullMarked;
