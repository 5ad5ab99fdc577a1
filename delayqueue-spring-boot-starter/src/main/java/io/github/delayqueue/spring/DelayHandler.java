package io.github.delayqueue.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Binds a bean to the queue it consumes.
 *
 * <ul>
 *   <li>On a bean class implementing {@link DelayBatchMessageHandler}{@code <T>}: a batch handler of payloads
 *       {@code T}.</li>
 *   <li>On a bean class implementing {@link DelayMessageHandler}{@code <T>} or
 *       {@link ContextAwareDelayMessageHandler}{@code <T>}: the payload type is
 *       {@code T}.</li>
 *   <li>On a method of a bean: the method takes one payload parameter (bound from JSON to its declared
 *       generic type) and optionally one {@link io.github.delayqueue.core.MessageContext}, in any order; or no
 *       payload parameter at all (no parameter, or the context alone), as a recurring job written like a
 *       {@code @Scheduled} method: the payload is then not read. Its return value is ignored.</li>
 * </ul>
 *
 * <p>Each queue code has at most one handler per application. Attributes accept {@code ${…}}
 * placeholders (except {@link #noRetryFor()}, which takes classes); an empty attribute means "use
 * {@code delayqueue.queues.<code>.*}, then {@code delayqueue.consumer.*}" ({@link #errorHandler()}: none).
 * Every {@link io.github.delayqueue.core.DeliveryInterceptor} bean runs around every delivery, in
 * {@code @Order} order, the first outermost. Handlers are found on beans,
 * including proxied ones; the annotation does not make a class a bean.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayHandler {

    /** The queue code, as returned by {@link DelayQueueCode#code()}. */
    String value();

    /** Handlers of this queue running at once in this application, for example {@code "4"}. */
    String concurrency() default "";

    /** Deliveries in total before a failing message is dead-lettered, for example {@code "10"}. */
    String maxAttempts() default "";

    /** Lease of a claimed message, for example {@code "30s"} or {@code "PT30S"}. */
    String visibilityTimeout() default "";

    /** Longest a handler may run before it is interrupted and the message redelivered, for example {@code "2m"}. */
    String handlerTimeout() default "";

    /**
     * Exceptions never retried: a failure with one of them (or a subclass) anywhere in its cause chain is
     * dead-lettered at once. Adds to {@code delayqueue.queues.<code>.retry.no-retry-for} (else
     * {@code delayqueue.consumer.retry.no-retry-for}).
     */
    Class<? extends Throwable>[] noRetryFor() default {};

    /**
     * The name of a {@link io.github.delayqueue.core.DeliveryErrorHandler} bean that decides what a failed
     * delivery of this queue does (retry, dead letter or acknowledge) instead of the retry policy, for example
     * {@code "orderErrorHandler"}. Empty = none. Startup fails if no bean has that name or the bean is not a
     * {@code DeliveryErrorHandler}.
     */
    String errorHandler() default "";

    /**
     * Most messages of this queue claimed per period over every instance together, for example {@code "200/1s"}
     * or {@code "10/1m"}; replaces {@code delayqueue.queues.<code>.rate-limit} (its {@code rate-limit-burst} still
     * applies). Give every application consuming the queue the same limit.
     */
    String rateLimit() default "";

    /**
     * Most messages of this queue in flight over every instance together, for example {@code "5"}; replaces
     * {@code delayqueue.queues.<code>.max-in-flight}.
     */
    String maxInFlight() default "";

    /**
     * Most messages of each group ({@code SendOptions.group}) claimed per period over every instance together, every
     * group on its own, for example {@code "20/1s"}; replaces {@code delayqueue.queues.<code>.group-rate-limit}.
     */
    String groupRateLimit() default "";

    /**
     * Most messages of each group ({@code SendOptions.group}) in flight over every instance together, for example
     * {@code "2"}; replaces {@code delayqueue.queues.<code>.group-max-in-flight}.
     */
    String groupMaxInFlight() default "";

    /**
     * {@code "true"} makes a handler method a batch handler (as Spring Kafka's {@code @KafkaListener(batch = "true")}):
     * it takes exactly one parameter, {@code List<BatchItem<PayloadType>>}
     * ({@link io.github.delayqueue.core.BatchItem}), and gets up to {@code delayqueue.queues.<code>.batch-size} due
     * messages per call ({@code batch-wait} waits that long to fill one). A class implementing
     * {@link DelayBatchMessageHandler} is a batch handler without it. Empty or {@code "false"}: one message per call,
     * even when the payload type is a {@code List}. Batch outcomes: see
     * {@link io.github.delayqueue.core.BatchMessageHandler}.
     */
    String batch() default "";
}
