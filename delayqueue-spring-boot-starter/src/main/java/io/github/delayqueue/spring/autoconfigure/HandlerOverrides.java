package io.github.delayqueue.spring.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The settings a {@code @DelayHandler} sets itself; {@code null} = inherit from the properties.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public record HandlerOverrides(@Nullable Integer concurrency, @Nullable Integer maxAttempts,
        @Nullable Duration visibilityTimeout, @Nullable Duration handlerTimeout) {

    static final HandlerOverrides NONE = new HandlerOverrides(null, null, null, null);
}
