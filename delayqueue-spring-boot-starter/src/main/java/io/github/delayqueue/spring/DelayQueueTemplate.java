package io.github.delayqueue.spring;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.sets.Chain;
import io.github.delayqueue.core.sets.JobSet;

/**
 * Sends, cancels and reschedules messages of the application's queues. Thread-safe; inject the
 * auto-configured bean.
 *
 * <p><b>Validation.</b> Every method checks its input first and throws
 * {@link IllegalArgumentException} at the call site, writing nothing (also inside a transaction), for:
 * a {@code null} or undeclared code; a {@code null} payload, one the codec cannot serialize, or one
 * over the size limit ({@code delayqueue.producer.max-payload-size}); a {@code null} or negative delay,
 * or a delay or due instant more than {@link io.github.delayqueue.core.DelayQueueClient#MAX_DELAY}
 * ahead; a due instant before 1970; a {@code null}, blank, control-character or over-256-character
 * id; an empty batch, a batch with a {@code null} item or duplicate ids, or one over
 * {@code delayqueue.producer.max-batch-size}. A batch is validated as a whole before any of it is
 * written.
 *
 * <p><b>Due times.</b> A due instant in the past is not an error: the message is due at once and
 * delivered as soon as a consumer is free. Due times are measured on the Redis server's clock.
 *
 * <p><b>Redis failures.</b> When Redis cannot be reached, a call throws {@link DelayQueueException}
 * once the Redis client's retries are exhausted (about 6 seconds with Redisson's defaults: 4 retries
 * 1 to 2 seconds apart); it never blocks indefinitely.
 *
 * <p><b>Transactions.</b> Inside an active Spring transaction the sends ({@code send}, {@code sendAt},
 * {@code sendAll}) are deferred until it commits, and dropped if it rolls back, so a message never
 * announces data that was not committed ({@code delayqueue.producer.transaction-aware=false} turns this
 * off). The payload is serialized at the call, so later changes to the object do not leak into the
 * message, and the returned id is final: when the options carry no id, one is generated up front. If
 * Redis fails after the commit, the commit stands and the exception reaches the code that committed.
 * {@code cancel} and {@code reschedule} always act at once. With the transactional outbox
 * ({@code delayqueue.producer.outbox.enabled}), a send deferred that way is also written to the outbox table in
 * the transaction, and {@code cancel} and {@code reschedule} first write a row of their own (committed in a
 * transaction of its own), so that per message id the newest of these intents wins even when an older send
 * reaches Redis later through the outbox's relay; if Redis fails, such a cancel or reschedule throws and the
 * relay applies it once Redis is back.
 *
 * <p><b>Job sets and chains.</b> {@link #sendSet}, {@link #addToSet} and {@link #sendChain} send messages as one
 * {@link JobSet} or {@link Chain} (package {@code io.github.delayqueue.core.sets}). A set names its queues by their
 * codes: {@code JobSet.builder().add(Queues.SEND_EMAIL.code(), requests)}. Every queue of a set or chain (members,
 * callbacks, steps) must be declared, and all must share one key prefix (its keys and its members' are under it).
 * Inside a transaction these are deferred as sends are: checked at the call, written after the commit, dropped on
 * rollback, with the set id (and the ids of the members added or steps sent) final at the call. With
 * {@code delayqueue.producer.outbox.enabled}, a set sent in a transaction on the outbox's database is kept in the
 * outbox with it, as a send is; members added to a set and chains are not: they are written after the commit (if
 * Redis fails then, the error is logged: send them again with the same ids, and nothing counts twice).
 */
public interface DelayQueueTemplate {

    /** Sends {@code payload} to the queue, due after {@code delay}; returns the generated message id. */
    String send(DelayQueueCode code, Object payload, Duration delay);

    /**
     * Sends {@code payload} due after {@code delay}, with an id, send mode, headers and dedup window. Returns the id:
     * the one in {@code options}, or a generated one; an if-absent send under a live id, or under an id remembered
     * after delivery ({@link SendOptions#withDedupWindow}), writes nothing and returns it too.
     */
    String send(DelayQueueCode code, Object payload, Duration delay, SendOptions options);

    /**
     * Sends {@code payload} due at {@code dueAt}; returns its id. A past instant is not an error: the
     * message is delivered at once.
     */
    String sendAt(DelayQueueCode code, Object payload, Instant dueAt);

    /** Sends {@code payload} due at {@code dueAt}, with options; returns its id. */
    String sendAt(DelayQueueCode code, Object payload, Instant dueAt, SendOptions options);

    /**
     * Sends many messages in few round trips; all are validated before any is written. Returns their
     * ids in order.
     */
    List<String> sendAll(DelayQueueCode code, List<SendRequest> requests);

    /** Removes a pending or in-flight message, at once. Returns false if no live message has this id. */
    boolean cancel(DelayQueueCode code, String id);

    /**
     * Moves a pending message to a new due time {@code delay} from now, at once. Returns false if no
     * pending message has this id (already delivered, in flight, or never sent).
     */
    boolean reschedule(DelayQueueCode code, String id, Duration delay);

    /** Like {@link #reschedule(DelayQueueCode, String, Duration)} with an absolute due instant. */
    boolean rescheduleAt(DelayQueueCode code, String id, Instant dueAt);

    /**
     * Sends a job set: its members on their queues, each carrying the set's id
     * ({@link JobSet#SET_HEADER}, read back in a handler with {@link JobSet#setOf}), and its callbacks once their
     * condition holds. Returns the set's id: the one the set was built with, or a generated one. Sending the same set
     * again under the same id (and the same member ids) after a failure completes it; nothing counts twice.
     *
     * <p>A default method, so that implementations written before job sets still compile: it throws
     * {@link UnsupportedOperationException}.
     *
     * @throws IllegalArgumentException on an undeclared queue, queues under different key prefixes, an invalid
     *                                  member or callback, two members with one id on one queue, or a parent set that
     *                                  does not exist; nothing is written
     * @throws IllegalStateException    if its parent set is complete
     */
    default String sendSet(JobSet set) {
        throw new UnsupportedOperationException(getClass().getName() + " does not send job sets");
    }

    /**
     * Adds members on {@code code}'s queue to a job set that exists: what a running member does to grow its own set
     * ({@code JobSet.setOf(context)}) before it returns. Returns their ids. Give them ids derived from the running
     * member's, so that a retried handler adds the same members again rather than new ones. A default method that
     * throws {@link UnsupportedOperationException}, as {@link #sendSet}.
     *
     * @throws IllegalArgumentException on an undeclared code, an invalid request, or a set that does not exist under
     *                                  the key prefix of {@code code}'s queue (never sent, or past its retention);
     *                                  nothing is written
     * @throws IllegalStateException    if the set is complete (its complete callback was sent)
     */
    default List<String> addToSet(String setId, DelayQueueCode code, List<SendRequest> requests) {
        throw new UnsupportedOperationException(getClass().getName() + " does not send job sets");
    }

    /**
     * Sends a chain: its first step now, each next one once the one before is acknowledged, exactly once. Returns the
     * steps' message ids, in order (a step's {@code SendOptions.id}, or {@code <chain id>:<n>}). A default method
     * that throws {@link UnsupportedOperationException}, as {@link #sendSet}.
     *
     * @throws IllegalArgumentException on an undeclared queue, queues under different key prefixes, an invalid step,
     *                                  or two steps with one id; nothing is written
     */
    default List<String> sendChain(Chain chain) {
        throw new UnsupportedOperationException(getClass().getName() + " does not send job sets");
    }
}
