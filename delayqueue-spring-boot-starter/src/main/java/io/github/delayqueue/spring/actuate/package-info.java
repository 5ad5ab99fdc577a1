/**
 * The {@code delayqueue} actuator endpoint. Internal to the starter.
 */
@NullMarked
package io.github.delayqueue.spring.actuate;

import org.jspecify.annotations.NullMarked;
