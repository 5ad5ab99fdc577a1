package io.github.delayqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The settings a {@code @DelayHandler} sets itself; {@code null} = inherit from the properties.
 * {@code noRetryFor} adds to the queue's {@code retry.no-retry-for}.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public record HandlerOverrides(@Nullable Integer concurrency, @Nullable Integer maxAttempts,
        @Nullable Duration visibilityTimeout, @Nullable Duration handlerTimeout,
        Set<Class<? extends Throwable>> noRetryFor) {

    static final HandlerOverrides NONE = new HandlerOverrides(null, null, null, null, Set.of());

    public HandlerOverrides {
        noRetryFor = Set.copyOf(noRetryFor);
    }
}
