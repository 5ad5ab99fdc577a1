package io.github.delayqueue.core;

import java.time.Instant;
import java.util.Comparator;

import org.jspecify.annotations.Nullable;

/**
 * One group of a queue's {@link SendOptions#group grouped} messages, as {@link DelayQueueClient#groups} reads it.
 *
 * @param group       the group's name
 * @param pending     its messages waiting (due or not)
 * @param inFlight    its messages claimed and not settled yet (its count against {@code groupMaxInFlight})
 * @param oldestDueAt the due time of its oldest pending message, or null when none is pending
 * @param nextClaimAt when a claim may next take one of its messages (its oldest due time, later while its rate limit or
 *                    a {@link SlowDownException} holds it), or null while it is at its in-flight cap
 */
public record GroupStats(String group, long pending, long inFlight, @Nullable Instant oldestDueAt,
        @Nullable Instant nextClaimAt) {

    /** The oldest due message first. */
    static final Comparator<GroupStats> FURTHEST_BEHIND_FIRST = Comparator.comparing(GroupStats::oldestDueAt,
            Comparator.nullsLast(Comparator.naturalOrder()));

    /** The figures of one group from two partitions: counts summed, times the earliest. */
    GroupStats plus(GroupStats other) {
        return new GroupStats(group, pending + other.pending, inFlight + other.inFlight, earliest(oldestDueAt, other.oldestDueAt),
                earliest(nextClaimAt, other.nextClaimAt));
    }

    private static @Nullable Instant earliest(@Nullable Instant a, @Nullable Instant b) {
        return a == null ? b : b == null ? a : a.isBefore(b) ? a : b;
    }
}
