package io.github.delayqueue.core.sets;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Where a job set stands ({@code DelayQueueClient.setStatus}).
 *
 * @param id           the set's id
 * @param total        members so far (those added from running members included)
 * @param pending      members not yet settled: waiting, in flight, or being retried
 * @param acknowledged members acknowledged
 * @param dead         members dead-lettered (or dropped at their expiry) and not acknowledged since
 * @param cancelled    members cancelled
 * @param sealed       whether every member of the first send was added (a set whose send failed half-way is not
 *                     sealed, and sends no callback until a send of the same set id completes it)
 * @param createdAt    when it was created (Redis clock)
 * @param expiresAt    when it is deleted unless it changes before then (its retention after its last change)
 * @param parent       the set it is a member of, or null
 * @param successSent  whether its success callback was sent
 * @param completeSent whether its complete callback was sent
 * @param callbacksDue callbacks whose condition holds and that are not sent yet: sent within moments by the instance
 *                     that forwarded the last outcome (or, should it have died, by the queue's next periodic pass)
 * @param deadMembers  its dead members, the first to die first, at most as many as asked for
 */
public record SetStatus(String id, long total, long pending, long acknowledged, long dead, long cancelled,
        boolean sealed, Instant createdAt, Instant expiresAt, @Nullable String parent, boolean successSent,
        boolean completeSent, int callbacksDue, List<Member> deadMembers) {

    public SetStatus {
        deadMembers = List.copyOf(deadMembers);
    }

    /** Whether every member is acknowledged, dead or cancelled (and the set sealed). */
    public boolean complete() {
        return sealed && pending == 0;
    }

    /** Whether the set is complete and every callback it made due was sent. */
    public boolean settled() {
        return complete() && callbacksDue == 0;
    }

    /**
     * A member of a set: a message, or a child set ({@code queue} null).
     *
     * @param queue the member's queue, or null for a child set
     * @param id    the message's id, or the child set's
     */
    public record Member(@Nullable String queue, String id) {

        /** As sets keep it: {@code <queue>:<id>}, or {@code (set):<id>} for a child set. */
        public String key() {
            return (queue == null ? "(set)" : queue) + ":" + id;
        }

        /** Reads {@link #key()}. */
        public static Member of(String key) {
            int colon = key.indexOf(':');
            String queue = key.substring(0, Math.max(colon, 0));
            return new Member(queue.equals("(set)") ? null : queue, key.substring(colon + 1));
        }
    }
}
