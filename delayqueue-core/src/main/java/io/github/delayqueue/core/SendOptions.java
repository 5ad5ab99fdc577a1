package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.github.delayqueue.core.protocol.Envelope;

import org.jspecify.annotations.Nullable;

/**
 * Optional settings of one send: a caller-chosen message id (such as {@code order:42}), what to do
 * when a message with that id already exists, string headers delivered with the message, and a
 * deduplication window that keeps the id taken after delivery, and an expiry after which it is never delivered.
 * Immutable; every {@code with…} method returns a copy.
 *
 * <pre>{@code
 * SendOptions.id("order:42").replaceExisting().header("tenant", "acme")
 * SendOptions.id("welcome:" + userId + ":" + today).withDedupWindow(Duration.ofDays(1))
 * SendOptions.none().expiresAt(meeting.startsAt())
 * }</pre>
 */
public final class SendOptions {

    /**
     * The header that carries a message's {@link #withDedupWindow dedup window} in Redis (milliseconds). Reserved:
     * {@link #header} and {@link #withHeaders} refuse it, and handlers never see it.
     */
    public static final String DEDUP_WINDOW_HEADER = "dq-dedup-window";

    /** The longest {@link #withDedupWindow dedup window}: 100 years (36,500 days), far inside Redis's expiry range. */
    public static final Duration MAX_DEDUP_WINDOW = Duration.ofDays(36_500);

    /**
     * The header that carries a message's {@link #expiresAt expiry} in Redis: epoch milliseconds, or {@code +<ms>}
     * after the time the message was written (a duration after a relative due time). Reserved like
     * {@link #DEDUP_WINDOW_HEADER}.
     */
    public static final String EXPIRES_HEADER = "dq-expires";

    /**
     * The header that carries a message's {@link #group group} in Redis. Reserved like {@link #DEDUP_WINDOW_HEADER}:
     * it is never among the headers a handler or a read sees ({@link MessageContext#group()},
     * {@link QueuedMessage#group()} and {@link DeadLetter#group()} name the group instead).
     */
    public static final String GROUP_HEADER = "dq-group";

    /** The longest {@link #group group} name, in characters. */
    public static final int MAX_GROUP_LENGTH = 128;

    /** The lowest {@link #priority priority}. */
    public static final int MIN_PRIORITY = 0;

    /** The highest {@link #priority priority}. */
    public static final int MAX_PRIORITY = 9;

    /**
     * The priority of a message sent without one, where its queue names no default (as in JMS, 4 of 0 to 9). A queue
     * that only ever holds messages of this priority pays nothing for priorities.
     */
    public static final int DEFAULT_PRIORITY = 4;

    /**
     * The header that carries a message's {@link #priority priority} in Redis, for a priority other than
     * {@link #DEFAULT_PRIORITY}. Reserved like {@link #DEDUP_WINDOW_HEADER}: never among the headers a handler or a
     * read sees ({@link QueuedMessage#priority()} names it instead).
     */
    public static final String PRIORITY_HEADER = "dq-priority";

    private static final int UNSET_PRIORITY = -1;

    private static final SendOptions NONE = new SendOptions(null, SendMode.IF_ABSENT, Map.of(), null, null, null, null,
            UNSET_PRIORITY);

    private final @Nullable String id;
    private final SendMode mode;
    private final Map<String, String> headers;
    private final @Nullable Duration dedupWindow;
    private final @Nullable Instant expiresAt;
    private final @Nullable Duration expiresAfter;
    private final @Nullable String group;
    /** The priority given, or UNSET_PRIORITY. */
    private final int priority;

    private SendOptions(@Nullable String id, SendMode mode, Map<String, String> headers, @Nullable Duration dedupWindow,
            @Nullable Instant expiresAt, @Nullable Duration expiresAfter, @Nullable String group, int priority) {
        this.group = group;
        this.priority = priority;
        this.id = id;
        this.mode = mode;
        this.headers = headers;
        this.dedupWindow = dedupWindow;
        this.expiresAt = expiresAt;
        this.expiresAfter = expiresAfter;
    }

    /** No id (one is generated), no headers. */
    public static SendOptions none() {
        return NONE;
    }

    /**
     * Sends under the given id. By default ({@link SendMode#IF_ABSENT}) a second send with an id
     * that is still live is a no-op; use {@link #replaceExisting()} to replace it instead.
     */
    public static SendOptions id(String id) {
        return NONE.withId(id);
    }

    /** A copy with the given id ({@code null} means: generate one). */
    public SendOptions withId(@Nullable String id) {
        return new SendOptions(id, mode, headers, dedupWindow, expiresAt, expiresAfter, group, priority);
    }

    /** A copy with the given mode. */
    public SendOptions withMode(SendMode mode) {
        return new SendOptions(id, Objects.requireNonNull(mode, "mode must not be null"), headers, dedupWindow, expiresAt, expiresAfter, group, priority);
    }

    /** A copy that replaces a live message with the same id. */
    public SendOptions replaceExisting() {
        return withMode(SendMode.REPLACE);
    }

    /** A copy that keeps a live message with the same id (the default). */
    public SendOptions ifAbsent() {
        return withMode(SendMode.IF_ABSENT);
    }

    /** A copy with one more header. Names and values must not be {@code null}. */
    public SendOptions header(String name, String value) {
        if (name == null || value == null) {
            throw new IllegalArgumentException("header name and value must not be null");
        }
        reserved(name);
        Map<String, String> copy = new LinkedHashMap<>(headers);
        copy.put(name, value);
        return new SendOptions(id, mode, Map.copyOf(copy), dedupWindow, expiresAt, expiresAfter, group, priority);
    }

    /**
     * A copy with these headers replacing any set before. The header that names a job-set member's set
     * ({@code dq-set}, among a member's context headers) is left out, so that a handler may pass its own message's
     * headers on; a message joins a set only through {@code DelayQueueClient.addToSet}.
     */
    public SendOptions withHeaders(Map<String, String> headers) {
        if (headers == null) {
            throw new IllegalArgumentException("headers must not be null");
        }
        Map<String, String> kept = headers;
        if (headers.containsKey(Envelope.SET_HEADER)) {
            // a handler passing on its own message's headers: the set it belongs to is not copied (a set is joined
            // with addToSet, which adds the message to the set before it is sent)
            kept = new LinkedHashMap<>(headers);
            kept.remove(Envelope.SET_HEADER);
        }
        kept.forEach((k, v) -> {
            if (k == null || v == null) {
                throw new IllegalArgumentException("header names and values must not be null");
            }
            reserved(k);
        });
        return new SendOptions(id, mode, Map.copyOf(kept), dedupWindow, expiresAt, expiresAfter, group, priority);
    }

    /**
     * A copy whose id stays taken for {@code window} after the message is acknowledged or dead-lettered: during
     * that time an {@link SendMode#IF_ABSENT if-absent} send under the id that also carries a window writes nothing
     * and returns the id, exactly as when the message is still live ("send the welcome e-mail once per user per
     * day"). Give the window on every send of such an id: an if-absent send without one does not look at the
     * memory (so sends that never use windows cost nothing more), and a {@link SendMode#REPLACE replace} send
     * always writes (and is itself remembered when it carries a window). A cancelled message is not remembered.
     * The memory is one Redis key per id with this time to live, beside the queue's keys (see
     * docs/internals/redis-layout.md). Needs an explicit id.
     *
     * @param window at least one millisecond, at most {@link #MAX_DEDUP_WINDOW}
     * @throws IllegalArgumentException if {@code window} is null, shorter than a millisecond or longer than
     *                                  {@link #MAX_DEDUP_WINDOW}
     */
    public SendOptions withDedupWindow(Duration window) {
        if (window == null || window.isNegative() || window.compareTo(MAX_DEDUP_WINDOW) > 0 || window.toMillis() < 1) {
            throw new IllegalArgumentException("dedup window must be from 1 ms to " + MAX_DEDUP_WINDOW + ", was " + window);
        }
        return new SendOptions(id, mode, headers, window, expiresAt, expiresAfter, group, priority);
    }


    /** How long the id stays taken after delivery, or {@code null} (the default: not after it). */
    public @Nullable Duration dedupWindow() {
        return dedupWindow;
    }

    /**
     * A copy whose message expires at {@code expiry}: a message not handed to a handler by then (on the Redis clock)
     * is never delivered; the claim moves it to the dead letters with the cause {@link DeadLetterCause#EXPIRED} or
     * drops it, as the consumer's {@link ConsumerOptions#onExpiry} says, and a retry whose next due time is after
     * the expiry is not run (the message expires instead). Replaces an {@link #expiresAfter} set before. A send
     * whose due time is after its expiry is refused with {@link IllegalArgumentException} and writes nothing (for a
     * due time given as a delay, judged by this machine's clock). Rescheduling the message does not move its expiry.
     *
     * @throws IllegalArgumentException if {@code expiry} is null
     */
    public SendOptions expiresAt(Instant expiry) {
        if (expiry == null) {
            throw new IllegalArgumentException("expiry must not be null");
        }
        return new SendOptions(id, mode, headers, dedupWindow, expiry, null, group, priority);
    }

    /**
     * A copy whose message expires {@code afterDue} after its due time (as {@link #expiresAt}, the expiry fixed at
     * the send: for a due time given as a delay, on the Redis clock from the moment the message is written).
     * Replaces an {@link #expiresAt} set before.
     *
     * @param afterDue at least one millisecond, at most {@link #MAX_DEDUP_WINDOW}
     * @throws IllegalArgumentException if {@code afterDue} is null, shorter than a millisecond or longer than 100 years
     */
    public SendOptions expiresAfter(Duration afterDue) {
        if (afterDue == null || afterDue.isNegative() || afterDue.compareTo(MAX_DEDUP_WINDOW) > 0 || afterDue.toMillis() < 1) {
            throw new IllegalArgumentException("expiresAfter must be from 1 ms to " + MAX_DEDUP_WINDOW + ", was " + afterDue);
        }
        return new SendOptions(id, mode, headers, dedupWindow, null, afterDue, group, priority);
    }

    /** When the message expires, if set by {@link #expiresAt}; else {@code null}. */
    public @Nullable Instant expiresAt() {
        return expiresAt;
    }

    /** How long after its due time the message expires, if set by {@link #expiresAfter}; else {@code null}. */
    public @Nullable Duration expiresAfter() {
        return expiresAfter;
    }

    /**
     * A copy whose message belongs to {@code group} (a tenant, a customer, an endpoint): consumers with
     * {@link ConsumerOptions.Builder#groupRateLimit group limits} give every group its own rate and in-flight cap, so
     * one group's burst does not hold back the others, and a {@link SlowDownException} of one of its messages holds
     * only its group. A group at its limit is passed over without reading its messages. The group is fixed at the
     * send (identity operations find it from the id) and is not a header: handlers read it from
     * {@link MessageContext#group()}. See docs/guides/flow-control.md.
     *
     * @param group 1 to {@value #MAX_GROUP_LENGTH} characters of printable ASCII (space to {@code ~}) but
     *              {@code "} and {@code \}, not blank; {@code null} for no group
     * @throws IllegalArgumentException if {@code group} is blank, too long or holds another character
     */
    public SendOptions group(@Nullable String group) {
        if (group != null) {
            checkGroup(group, "");
            if (priority != UNSET_PRIORITY) {
                throw new IllegalArgumentException(GROUP_AND_PRIORITY);
            }
        }
        return new SendOptions(id, mode, headers, dedupWindow, expiresAt, expiresAfter, group, priority);
    }

    /** The message's group, or {@code null} (the default: none). */
    public @Nullable String group() {
        return group;
    }

    private static final String GROUP_AND_PRIORITY = "a message takes a group or a priority, not both: a group's "
            + "messages are handed out in due order, within the group's fair share";

    /**
     * A copy whose message has {@code priority}: among messages that are due, a claim takes higher priorities first,
     * and within one priority due order (then send order). A priority never makes a message claimable before its due
     * time. A message waits behind higher priorities only for those that became due less than
     * {@code (their priority - its priority) x} the consumer's {@link ConsumerOptions.Builder#priorityAging priority
     * aging} after it, so a steady stream of high priorities never holds a low one back for good, unless the consumer
     * asks for {@link ConsumerOptions.Builder#strictPriority strict priority}. Retries, lease expiries, dead-letter
     * requeues and {@code reschedule} keep the priority; a {@link SendMode#REPLACE replace} send sets the new one. A
     * message sent without a priority has its queue's default (Spring: {@code delayqueue.queues.<name>.default-priority}),
     * else {@link #DEFAULT_PRIORITY}. See docs/guides/priorities.md.
     *
     * @param priority from {@link #MIN_PRIORITY} (lowest) to {@link #MAX_PRIORITY} (highest)
     * @throws IllegalArgumentException if {@code priority} is out of that range, or the options name a
     *                                  {@link #group group} (a group keeps its own order)
     */
    public SendOptions priority(int priority) {
        if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
            throw new IllegalArgumentException("priority must be from " + MIN_PRIORITY + " to " + MAX_PRIORITY + ", was "
                    + priority);
        }
        if (group != null) {
            throw new IllegalArgumentException(GROUP_AND_PRIORITY);
        }
        return new SendOptions(id, mode, headers, dedupWindow, expiresAt, expiresAfter, group, priority);
    }

    /** The priority given with {@link #priority(int)}, or {@code null} (the default: the queue's default). */
    public @Nullable Integer priority() {
        return priority == UNSET_PRIORITY ? null : priority;
    }

    /** Checks a group name as {@link #group} does; {@code where} ends the message. */
    static String checkGroup(@Nullable String group, String where) {
        if (group == null || group.isBlank()) {
            throw new IllegalArgumentException("group must not be null or blank" + where);
        }
        if (group.length() > MAX_GROUP_LENGTH) {
            throw new IllegalArgumentException("group must be at most " + MAX_GROUP_LENGTH + " characters, was "
                    + group.length() + where);
        }
        for (int i = 0; i < group.length(); i++) {
            char c = group.charAt(i);
            if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
                throw new IllegalArgumentException("group must be printable ASCII without '\"' and '\\' (it is part of "
                        + "Redis key names and of the stored message), found " + (c < 0x20 || c > 0x7e
                        ? String.format("U+%04X", (int) c) : "'" + c + "'") + " at index " + i + where);
            }
        }
        return group;
    }

    private static void reserved(String name) {
        if (PRIORITY_HEADER.equals(name)) {
            throw new IllegalArgumentException("header '" + name + "' is reserved: use priority");
        }
        if (GROUP_HEADER.equals(name)) {
            throw new IllegalArgumentException("header '" + name + "' is reserved: use group");
        }
        if (DEDUP_WINDOW_HEADER.equals(name)) {
            throw new IllegalArgumentException("header '" + name + "' is reserved: use withDedupWindow");
        }
        if (EXPIRES_HEADER.equals(name)) {
            throw new IllegalArgumentException("header '" + name + "' is reserved: use expiresAt or expiresAfter");
        }
        if (Envelope.SET_HEADER.equals(name)) {
            throw new IllegalArgumentException("header '" + name + "' is reserved: send the message in a set "
                    + "(DelayQueueClient.sendSet or addToSet)");
        }
    }

    /** The caller-chosen id, or {@code null} when one is generated. */
    public @Nullable String id() {
        return id;
    }

    public SendMode mode() {
        return mode;
    }

    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public String toString() {
        return "SendOptions[id=" + id + ", mode=" + mode + ", headers=" + headers
                + (dedupWindow == null ? "" : ", dedupWindow=" + dedupWindow)
                + (expiresAt == null ? "" : ", expiresAt=" + expiresAt)
                + (expiresAfter == null ? "" : ", expiresAfter=" + expiresAfter)
                + (group == null ? "" : ", group=" + group)
                + (priority == UNSET_PRIORITY ? "" : ", priority=" + priority) + "]";
    }
}
