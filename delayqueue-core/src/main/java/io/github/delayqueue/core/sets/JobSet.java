package io.github.delayqueue.core.sets;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.internal.Checks;
import io.github.delayqueue.core.protocol.Envelope;
import io.github.delayqueue.core.protocol.QueueKeys;

import org.jspecify.annotations.Nullable;

/**
 * A set of messages sent together ({@code DelayQueueClient.sendSet}), across any queues, with callbacks that are
 * themselves messages on a queue:
 * <ul>
 * <li>{@link Builder#onSuccess on success}: once every member is acknowledged;</li>
 * <li>{@link Builder#onComplete on complete}: once every member is acknowledged, dead (dead-lettered, or dropped at its
 * expiry) or cancelled;</li>
 * <li>{@link Builder#onDeath on death}: once for each member that dies, carrying the member in
 * {@link #MEMBER_HEADER}.</li>
 * </ul>
 * Each callback is sent exactly once, and never before its condition holds, whatever crashes, retries and
 * redeliveries happen: a member handled twice counts once. A dead member requeued by hand and then acknowledged
 * counts as acknowledged, so a set whose complete callback went with dead members may still send its success callback
 * later. A running member may add messages to its own set ({@code DelayQueueClient.addToSet} with {@link #setOf} of
 * its context) before it returns: the set cannot complete in between, because the member itself is still pending.
 * Callbacks carry {@link #SET_ID_HEADER} and {@link #EVENT_HEADER}. Built by {@link #builder()}; immutable.
 */
public final class JobSet {

    /**
     * The header that names a member's set, among the headers its handler and reads see ({@link #setOf}). Reserved:
     * a send cannot set it by hand.
     */
    public static final String SET_HEADER = Envelope.SET_HEADER;

    /** The header of a callback message naming its set. */
    public static final String SET_ID_HEADER = "delayqueue-set-id";

    /** The header of a callback message naming its event: {@code success}, {@code complete} or {@code death}. */
    public static final String EVENT_HEADER = "delayqueue-set-event";

    /** The header of a death callback naming the member that died, {@code <queue>:<id>}. */
    public static final String MEMBER_HEADER = "delayqueue-set-member";

    /** How long a set is kept after its last change (a member added or settled, a callback sent), by default. */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

    /** The shortest and the longest retention. */
    public static final Duration MIN_RETENTION = Duration.ofMinutes(1);
    public static final Duration MAX_RETENTION = Duration.ofDays(366);

    /** The longest set id, in characters. */
    public static final int MAX_ID_LENGTH = 100;

    /** A callback: a message sent on a queue when the set's event happens. */
    public record Callback(String queue, SendRequest message) {

        /** @throws IllegalArgumentException on a null or an invalid queue name, a null message, or a dedup window */
        public Callback {
            QueueKeys.validateName(queue);
            Checks.require(message != null, "callback message must not be null");
            Checks.require(message.options().dedupWindow() == null,
                    "a callback's dedup window is the set's retention: send it without one");
        }
    }

    private final @Nullable String id;
    private final Map<String, List<SendRequest>> members;
    private final @Nullable Callback onSuccess;
    private final @Nullable Callback onComplete;
    private final @Nullable Callback onDeath;
    private final Duration retention;
    private final @Nullable String parent;

    private JobSet(Builder b) {
        this.id = b.id;
        Map<String, List<SendRequest>> copy = new LinkedHashMap<>();
        b.members.forEach((queue, list) -> copy.put(queue, List.copyOf(list)));
        this.members = Collections.unmodifiableMap(copy);
        this.onSuccess = b.onSuccess;
        this.onComplete = b.onComplete;
        this.onDeath = b.onDeath;
        this.retention = b.retention;
        this.parent = b.parent;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The set a handler's message belongs to ({@link #SET_HEADER}), or null for a message sent outside a set: what a
     * running member passes to {@code DelayQueueClient.addToSet} to grow its own set.
     */
    public static @Nullable String setOf(MessageContext context) {
        return context.headers().get(SET_HEADER);
    }

    /**
     * Checks a set id: 1 to {@link #MAX_ID_LENGTH} printable ASCII characters without {@code "}, {@code \}, and the
     * braces of a Redis hash tag (it names the set's keys). Returns it.
     *
     * @throws IllegalArgumentException otherwise
     */
    public static String checkId(@Nullable String id) {
        Checks.require(id != null && !id.isBlank(), "set id must not be null or blank");
        Checks.require(id.length() <= MAX_ID_LENGTH, "set id must be at most " + MAX_ID_LENGTH + " characters, was "
                + id.length());
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            Checks.require(c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' && c != '{' && c != '}',
                    "set id must be printable ASCII without '\"', '\\', '{' and '}' (it names Redis keys and is kept "
                            + "in every member), found " + (c < 0x20 || c > 0x7e ? String.format("U+%04X", (int) c)
                            : "'" + c + "'") + " at index " + i);
        }
        return id;
    }

    /** The id given to the builder, or null: then the send generates one (and returns it). */
    public @Nullable String id() {
        return id;
    }

    /** The members per queue, in the order they were added. */
    public Map<String, List<SendRequest>> members() {
        return members;
    }

    /** How many members the set is sent with. */
    public int size() {
        int n = 0;
        for (List<SendRequest> list : members.values()) {
            n += list.size();
        }
        return n;
    }

    public @Nullable Callback onSuccess() {
        return onSuccess;
    }

    public @Nullable Callback onComplete() {
        return onComplete;
    }

    public @Nullable Callback onDeath() {
        return onDeath;
    }

    /** How long the set is kept after its last change; also the dedup window of its callbacks. */
    public Duration retention() {
        return retention;
    }

    /** The set this one is a member of (a child set), or null. */
    public @Nullable String parent() {
        return parent;
    }

    @Override
    public String toString() {
        return "JobSet[id=" + id + ", members=" + size() + " on " + members.keySet() + ", retention=" + retention
                + (parent == null ? "" : ", parent=" + parent) + "]";
    }

    /** Builds a {@link JobSet}; every argument is checked where it is given. */
    public static final class Builder {

        private @Nullable String id;
        private final Map<String, List<SendRequest>> members = new LinkedHashMap<>();
        private @Nullable Callback onSuccess;
        private @Nullable Callback onComplete;
        private @Nullable Callback onDeath;
        private Duration retention = DEFAULT_RETENTION;
        private @Nullable String parent;

        private Builder() {
        }

        /**
         * The set's id (see {@link #checkId}); without one the send generates one. With one, a send that failed may be
         * sent again: its set and the members it already wrote are kept, nothing counts twice.
         */
        public Builder id(String id) {
            this.id = checkId(id);
            return this;
        }

        /** Adds members on {@code queue}. */
        public Builder add(String queue, List<SendRequest> requests) {
            QueueKeys.validateName(queue);
            Checks.require(requests != null, "requests must not be null");
            for (SendRequest r : requests) {
                Checks.require(r != null, "request must not be null");
            }
            members.computeIfAbsent(queue, q -> new ArrayList<>()).addAll(requests);
            return this;
        }

        /** Adds one member on {@code queue}. */
        public Builder add(String queue, SendRequest request) {
            return add(queue, java.util.Arrays.asList(request));
        }

        /** Sent once every member is acknowledged. */
        public Builder onSuccess(String queue, SendRequest message) {
            this.onSuccess = new Callback(queue, message);
            return this;
        }

        /** Sent once every member is acknowledged, dead or cancelled. */
        public Builder onComplete(String queue, SendRequest message) {
            this.onComplete = new Callback(queue, message);
            return this;
        }

        /** Sent once for each member that dies, with the member in {@link #MEMBER_HEADER}. */
        public Builder onDeath(String queue, SendRequest message) {
            this.onDeath = new Callback(queue, message);
            return this;
        }

        /**
         * How long the set is kept after its last change (default {@link #DEFAULT_RETENTION}), from
         * {@link #MIN_RETENTION} to {@link #MAX_RETENTION}: its status can be read that long, and its callbacks are
         * sent with it as their dedup window.
         */
        public Builder retention(Duration retention) {
            Checks.require(retention != null, "retention must not be null");
            Checks.require(retention.compareTo(MIN_RETENTION) >= 0 && retention.compareTo(MAX_RETENTION) <= 0,
                    "retention must be from " + MIN_RETENTION + " to " + MAX_RETENTION + ", was " + retention);
            this.retention = retention;
            return this;
        }

        /**
         * Makes this set a member of {@code parentSetId} (a child set, added from a running member of the parent): the
         * parent counts it as one member, acknowledged once every member of the child is, dead once the child
         * completes without that.
         */
        public Builder parent(String parentSetId) {
            this.parent = checkId(parentSetId);
            return this;
        }

        /**
         * @throws IllegalArgumentException if the set has no member, or is its own parent
         */
        public JobSet build() {
            Checks.require(!members.isEmpty() && members.values().stream().anyMatch(l -> !l.isEmpty()),
                    "a set needs at least one member");
            Checks.require(parent == null || !parent.equals(id), "a set cannot be its own parent");
            return new JobSet(this);
        }
    }
}
