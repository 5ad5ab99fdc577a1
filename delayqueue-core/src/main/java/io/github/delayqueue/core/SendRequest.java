package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import io.github.delayqueue.core.internal.Checks;
import io.github.delayqueue.core.protocol.Due;

/**
 * One message of a batch send ({@link DelayQueueClient#sendAll}): a payload, when it is due (after a
 * delay or at an instant, exactly one) and its options. Built only by the factories, which reject
 * {@code null}s, so a request in hand is complete; ranges (a negative delay, an instant too far ahead)
 * are checked by the send, against the client's limits and clock. Immutable.
 */
public final class SendRequest {

    private final Object payload;
    private final Due due;
    private final SendOptions options;

    private SendRequest(Object payload, Due due, SendOptions options) {
        Checks.require(payload != null, "payload must not be null");
        Checks.require(options != null, "options must not be null");
        this.payload = payload;
        this.due = due;
        this.options = options;
    }

    /**
     * A message due {@code delay} after it is written (Redis server clock).
     *
     * @throws IllegalArgumentException if an argument is {@code null}
     */
    public static SendRequest of(Object payload, Duration delay) {
        return of(payload, delay, SendOptions.none());
    }

    /**
     * A message due {@code delay} after it is written (Redis server clock), with options.
     *
     * @throws IllegalArgumentException if an argument is {@code null}
     */
    public static SendRequest of(Object payload, Duration delay, SendOptions options) {
        return new SendRequest(payload, Due.after(delay), options);
    }

    /**
     * A message due at {@code dueAt}; a past instant is delivered at once.
     *
     * @throws IllegalArgumentException if an argument is {@code null}
     */
    public static SendRequest at(Object payload, Instant dueAt) {
        return at(payload, dueAt, SendOptions.none());
    }

    /**
     * A message due at {@code dueAt}, with options; a past instant is delivered at once.
     *
     * @throws IllegalArgumentException if an argument is {@code null}
     */
    public static SendRequest at(Object payload, Instant dueAt, SendOptions options) {
        return new SendRequest(payload, Due.at(dueAt), options);
    }

    /** The payload, serialized to JSON by the send. */
    public Object payload() {
        return payload;
    }

    /** Id, mode and headers. */
    public SendOptions options() {
        return options;
    }

    /**
     * A copy with other options (id, mode, headers), the payload and due time kept: how a send decorator adds
     * headers, such as a trace context.
     *
     * @throws IllegalArgumentException if {@code options} is {@code null}
     */
    public SendRequest withOptions(SendOptions options) {
        return new SendRequest(payload, due, options);
    }

    Due due() {
        return due;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SendRequest other && payload.equals(other.payload) && due.equals(other.due)
                && options.equals(other.options);
    }

    @Override
    public int hashCode() {
        return Objects.hash(payload, due, options);
    }

    @Override
    public String toString() {
        return "SendRequest[payload=" + payload + ", due=" + due + ", options=" + options + "]";
    }
}
