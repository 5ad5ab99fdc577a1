package io.github.delayqueue.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Runs around every delivery of a consumer: the place for metrics, tracing, MDC and the like. Set with
 * {@link ConsumerOptions.Builder#interceptors}; the first in the list is the outermost. Both methods have
 * defaults, so an implementation overrides what it needs.
 */
public interface DeliveryInterceptor {

    /** The rest of the chain: the next interceptor, or the handler. */
    @FunctionalInterface
    interface Invocation {
        void proceed() throws Exception;
    }

    /**
     * Around the handler call, on the handler's thread. Call {@code invocation.proceed()} once; what it
     * throws (rethrown or not) decides the outcome as the handler's own exception would. Not called for a
     * payload that cannot be decoded (that goes to the dead letters before any handler runs: see
     * {@link #undecodable}).
     */
    default void aroundHandle(MessageContext context, Object payload, Invocation invocation) throws Exception {
        invocation.proceed();
    }

    /**
     * Instead of {@link #aroundHandle}, when the payload of a claimed message cannot be decoded (or is JSON null),
     * on the handler's thread, just before the message goes to the dead letters (which this cannot prevent): for
     * work that needs only the message's id and headers, such as writing a recurring schedule's next tick. Called
     * for a single and a batch handler alike; not called when the stored envelope itself cannot be read. An exception
     * thrown here fails the delivery as a handler's exception would (retried by the retry policy, so the work is tried
     * again, and dead-lettered on the last attempt), so make this idempotent.
     */
    default void undecodable(MessageContext context) {
    }

    /**
     * After the outcome of a delivery is decided, before it is written to Redis. {@code error} is what the
     * handler threw (a {@link java.util.concurrent.TimeoutException} for a handler past its timeout), or
     * null; {@code handlerTime} is how long the handler ran. Runs on the handler's thread (on the lease
     * keeper's for a timeout); an exception thrown here is logged and changes nothing.
     */
    default void afterDelivery(MessageContext context, DeliveryOutcome outcome, @Nullable Throwable error, Duration handlerTime) {
    }
}
