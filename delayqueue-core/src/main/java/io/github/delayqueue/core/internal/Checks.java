package io.github.delayqueue.core.internal;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/** Argument checks that throw {@link IllegalArgumentException} with the caller's wording. */
public final class Checks {

    /** The longest delay, backoff or timeout anything accepts; {@code DelayQueueClient.MAX_DELAY} publishes it. */
    public static final Duration MAX_DELAY = Duration.ofDays(3650);

    private Checks() {
    }

    public static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    public static void positive(@Nullable Duration value, String name) {
        require(value != null, name + " must not be null");
        require(!value.isNegative() && !value.isZero(), name + " must be positive, was " + value);
        atMostMaxDelay(value, name);
    }

    /** Longer durations would overflow the engine's nanosecond and millisecond arithmetic later, on its own threads. */
    public static void atMostMaxDelay(Duration value, String name) {
        require(value.compareTo(MAX_DELAY) <= 0, name + " must be at most " + MAX_DELAY + ", was " + value);
    }

    /** The index of the first surrogate that is not half of a pair, or -1: such text has no UTF-8 form. */
    public static int loneSurrogate(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                } else {
                    return i;
                }
            }
        }
        return -1;
    }

    public static <T> T notNull(@Nullable T value, String name) {
        require(value != null, name + " must not be null");
        return value;
    }
}
