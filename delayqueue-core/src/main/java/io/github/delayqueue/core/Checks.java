package io.github.delayqueue.core;

import java.time.Duration;

/** Argument checks that throw {@link IllegalArgumentException} with the caller's wording. */
final class Checks {

    private Checks() {
    }

    static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    static void positive(Duration value, String name) {
        require(value != null, name + " must not be null");
        require(!value.isNegative() && !value.isZero(), name + " must be positive, was " + value);
        atMostMaxDelay(value, name);
    }

    /** Longer durations would overflow the engine's nanosecond and millisecond arithmetic later, on its own threads. */
    static void atMostMaxDelay(Duration value, String name) {
        require(value.compareTo(DelayQueueClient.MAX_DELAY) <= 0,
                name + " must be at most " + DelayQueueClient.MAX_DELAY + ", was " + value);
    }

    static <T> T notNull(T value, String name) {
        require(value != null, name + " must not be null");
        return value;
    }
}
