package io.github.delayqueue.spring.core;

import java.time.Duration;
import java.util.Set;

import io.github.delayqueue.core.DeliveryErrorHandler;
import io.github.delayqueue.core.RateLimit;

import org.jspecify.annotations.Nullable;

/**
 * The settings a {@code @DelayHandler} sets itself; {@code null} = inherit from the properties.
 * {@code noRetryFor} adds to the queue's {@code retry.no-retry-for}; {@code errorHandler} is the bean its
 * {@code errorHandler} attribute names, or {@code null}.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public record HandlerOverrides(@Nullable Integer concurrency, @Nullable Integer maxAttempts,
        @Nullable Duration visibilityTimeout, @Nullable Duration handlerTimeout,
        Set<Class<? extends Throwable>> noRetryFor, @Nullable DeliveryErrorHandler errorHandler,
        @Nullable RateLimit rateLimit, @Nullable Integer maxInFlight, @Nullable RateLimit groupRateLimit,
        @Nullable Integer groupMaxInFlight) {

    /** A handler that sets nothing itself: every setting comes from the properties. */
    public static final HandlerOverrides NONE = new HandlerOverrides(null, null, null, null, Set.of(), null);

    public HandlerOverrides {
        noRetryFor = Set.copyOf(noRetryFor);
    }

    /** Without flow limits of the handler's own. */
    public HandlerOverrides(@Nullable Integer concurrency, @Nullable Integer maxAttempts,
            @Nullable Duration visibilityTimeout, @Nullable Duration handlerTimeout,
            Set<Class<? extends Throwable>> noRetryFor, @Nullable DeliveryErrorHandler errorHandler) {
        this(concurrency, maxAttempts, visibilityTimeout, handlerTimeout, noRetryFor, errorHandler, null, null);
    }

    /** Without limits per group of the handler's own. */
    public HandlerOverrides(@Nullable Integer concurrency, @Nullable Integer maxAttempts,
            @Nullable Duration visibilityTimeout, @Nullable Duration handlerTimeout,
            Set<Class<? extends Throwable>> noRetryFor, @Nullable DeliveryErrorHandler errorHandler,
            @Nullable RateLimit rateLimit, @Nullable Integer maxInFlight) {
        this(concurrency, maxAttempts, visibilityTimeout, handlerTimeout, noRetryFor, errorHandler, rateLimit, maxInFlight,
                null, null);
    }
}
