package io.github.delayqueue.core;

import java.time.Duration;
import java.util.Objects;

import io.github.delayqueue.core.internal.Checks;

/** What a failed delivery does; see {@link DeliveryErrorHandler}. */
public final class FailureAction {

    /** The kinds of action. */
    public enum Kind {
        /** Due again after {@link #delay()}; the attempt counts. */
        RETRY,
        /** To the dead letters, with the error as the reason. */
        DEAD_LETTER,
        /** Deleted as if the handler had returned: the error was dealt with. */
        ACKNOWLEDGE
    }

    private static final FailureAction DEAD = new FailureAction(Kind.DEAD_LETTER, Duration.ZERO);
    private static final FailureAction ACK = new FailureAction(Kind.ACKNOWLEDGE, Duration.ZERO);

    private final Kind kind;
    private final Duration delay;

    private FailureAction(Kind kind, Duration delay) {
        this.kind = kind;
        this.delay = delay;
    }

    /** Due again after {@code delay} (zero to {@link DelayQueueClient#MAX_DELAY}); the attempt counts. */
    public static FailureAction retryAfter(Duration delay) {
        Checks.require(delay != null && !delay.isNegative(), "delay must not be null or negative");
        Checks.atMostMaxDelay(delay, "delay");
        return new FailureAction(Kind.RETRY, delay);
    }

    public static FailureAction deadLetter() {
        return DEAD;
    }

    public static FailureAction acknowledge() {
        return ACK;
    }

    public Kind kind() {
        return kind;
    }

    /** The back-off of a {@link Kind#RETRY}; zero for the others. */
    public Duration delay() {
        return delay;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FailureAction other && kind == other.kind && delay.equals(other.delay);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, delay);
    }

    @Override
    public String toString() {
        return kind == Kind.RETRY ? "RETRY after " + delay : kind.name();
    }
}
