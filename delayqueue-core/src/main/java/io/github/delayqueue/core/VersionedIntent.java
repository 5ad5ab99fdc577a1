package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.internal.Checks;
import io.github.delayqueue.core.protocol.Due;

/**
 * A send, cancel or reschedule that carries a version, for {@link DelayQueueClient#applyVersioned}: per message id,
 * an intent is applied only if its version is above every version applied before for that id, so an older intent
 * written late (a transactional outbox's relay, a slow write after a commit) never overwrites a newer one and never
 * brings back a cancelled message. A transactional outbox uses its row numbers as versions.
 *
 * @param kind    what the intent does
 * @param id      the message id
 * @param version positive; higher is newer
 * @param message for {@link Kind#SEND} only: the message as {@link PreparedSend#messages()} gave it (its id is {@code id})
 * @param delay   for {@link Kind#RESCHEDULE} only: due this long after the write (exactly one of delay and dueAt)
 * @param dueAt   for {@link Kind#RESCHEDULE} only: due at this instant
 */
public record VersionedIntent(Kind kind, String id, long version, PreparedSend.@Nullable Message message,
        @Nullable Duration delay, @Nullable Instant dueAt) {

    /** What an intent does. */
    public enum Kind {
        /** Writes the message, as its {@link SendMode} says. */
        SEND,
        /** Removes a pending or in-flight message, as {@link DelayQueueClient#cancel} does. */
        CANCEL,
        /** Moves a pending message to a new due time, as {@link DelayQueueClient#reschedule} does. */
        RESCHEDULE
    }

    /** What {@link DelayQueueClient#applyVersioned} did with an intent. */
    public enum Outcome {
        /** Written: the message was sent, replaced, cancelled or moved. */
        APPLIED,
        /**
         * Newest for its id, but nothing to change: an if-absent send found the id live, a cancel or reschedule
         * found no message (a reschedule: no pending one). Its version is recorded all the same.
         */
        NOTHING_TO_DO,
        /** An intent of the same or a higher version was applied for this id before: nothing written. */
        SUPERSEDED
    }

    /**
     * @throws IllegalArgumentException if a field the kind needs is missing, one it does not take is set, or the
     *         version is not positive
     */
    public VersionedIntent {
        Checks.require(kind != null, "kind must not be null");
        Checks.require(id != null, "id must not be null");
        Checks.require(version > 0, "version must be positive, was " + version);
        Checks.require((message != null) == (kind == Kind.SEND), "a message is given with a send, and only with one");
        Checks.require(message == null || message.id().equals(id), "the message's id is not the intent's id");
        Checks.require(kind == Kind.RESCHEDULE ? (delay == null) != (dueAt == null) : delay == null && dueAt == null,
                "a reschedule has exactly one of delay and dueAt; a send or cancel has neither");
    }

    /** Sends {@code message} (with its mode, due time and body), at {@code version}. */
    public static VersionedIntent send(PreparedSend.Message message, long version) {
        Checks.require(message != null, "message must not be null");
        return new VersionedIntent(Kind.SEND, message.id(), version, message, null, null);
    }

    /** Cancels {@code id} at {@code version}. */
    public static VersionedIntent cancel(String id, long version) {
        return new VersionedIntent(Kind.CANCEL, id, version, null, null, null);
    }

    /** Moves the pending message {@code id} to {@code delay} after the write, or to {@code dueAt}, at {@code version}. */
    public static VersionedIntent reschedule(String id, @Nullable Duration delay, @Nullable Instant dueAt, long version) {
        return new VersionedIntent(Kind.RESCHEDULE, id, version, null, delay, dueAt);
    }

    /** A copy due {@code delay} after its write: for a send or reschedule whose delay partly ran elsewhere. */
    public VersionedIntent withDelay(Duration delay) {
        return switch (kind) {
            case SEND -> send(message.withDelay(delay), version);
            case RESCHEDULE -> reschedule(id, Checks.notNull(delay, "delay"), null, version);
            case CANCEL -> this;
        };
    }

    /** When the send or reschedule is due. */
    @Nullable Due due() {
        return switch (kind) {
            case SEND -> message.due();
            case RESCHEDULE -> delay != null ? Due.after(delay) : Due.at(dueAt);
            case CANCEL -> null;
        };
    }
}
