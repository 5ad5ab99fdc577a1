package io.github.delayqueue.core.protocol;

import java.time.Duration;
import java.time.Instant;

import io.github.delayqueue.core.internal.Checks;

/**
 * When a message is due: after a delay (from the Redis server's clock at the write) or at an instant.
 * Exactly one by construction. {@link #scriptArg()} is its encoding for enqueue.lua and reschedule.lua.
 */
public sealed interface Due {

    /** Due {@code delay} after the write; not {@code null}. */
    static Due after(Duration delay) {
        Checks.require(delay != null, "delay must not be null");
        return new After(delay);
    }

    /** Due at {@code instant}; not {@code null}. */
    static Due at(Instant instant) {
        Checks.require(instant != null, "dueAt must not be null");
        return new At(instant);
    }

    /** The script argument: {@code "+<delayMs>"} or {@code "@<epochMs>"}, milliseconds rounded up. */
    String scriptArg();

    record After(Duration delay) implements Due {
        @Override
        public String scriptArg() {
            return "+" + ceilMillis(delay);
        }
    }

    record At(Instant instant) implements Due {
        @Override
        public String scriptArg() {
            return "@" + ceilMillis(Duration.ofSeconds(instant.getEpochSecond(), instant.getNano()));
        }
    }

    private static long ceilMillis(Duration d) {
        long millis = d.toMillis();
        return d.minusMillis(millis).isZero() ? millis : millis + 1;
    }
}
