/**
 * Micrometer Observation of sends and deliveries: the documented observations ({@code DelayQueueObservation}),
 * their contexts and conventions, which an application may replace with a bean of its own (public), and the
 * interceptor and send observer that open them around the engine's calls (internal to the starter).
 */
@NullMarked
package io.github.delayqueue.spring.observation;

import org.jspecify.annotations.NullMarked;
