package io.github.delayqueue.spring.core;

import java.time.Duration;

import io.github.delayqueue.core.ConsumerOptions;

/**
 * The consumer settings of each declared queue, as the auto-configuration resolved them from the
 * {@code delayqueue.*} properties: the consumer registry asks for them once per handler, with what the handler's
 * {@code @DelayHandler} sets itself, so the runtime never reads the properties (as Spring Kafka's container factory
 * takes what Boot's auto-configuration resolved and never imports Boot).
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public interface QueueConsumerSettings {

    /**
     * The consumer options of the queue: the handler's setting, else the queue's, else the global one.
     *
     * @throws IllegalArgumentException if the engine rejects a value
     */
    ConsumerOptions consumerOptions(String code, HandlerOverrides handler);

    /**
     * How long a batch handler's claim waits to fill a batch (the queue's {@code batch-wait}, else the global one);
     * zero unless set.
     */
    default Duration batchWait(String code) {
        return Duration.ZERO;
    }

    /** Whether this application consumes the queue (the queue's setting, else the global one). */
    boolean consumerEnabled(String code);
}
