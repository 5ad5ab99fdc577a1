package io.github.delayqueue.core.sets;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.core.internal.Checks;

import org.jspecify.annotations.Nullable;

/**
 * Steps run one after another ({@code DelayQueueClient.sendChain}): the first is sent at once, each next one once the
 * one before it is acknowledged, exactly once. A step that dies ends the chain there (its dead letter can be requeued:
 * once it is acknowledged, the chain goes on). Each step is the only member of a set of its own whose success callback
 * is the next step, so that the next step is sent by whichever instance forwards the acknowledgement, and sent once
 * even when the forward is repeated. A step's message id is its {@code SendOptions.id}, or {@code <chain id>:<n>}
 * (n from 0). Immutable: {@link #then} returns a longer chain.
 */
public final class Chain {

    /** The longest chain id, in characters: its sets are named {@code <chain id>:<n>}. */
    public static final int MAX_ID_LENGTH = JobSet.MAX_ID_LENGTH - 8;

    /** One step: a message on a queue. */
    public record Step(String queue, io.github.delayqueue.core.SendRequest message) {
        public Step {
            io.github.delayqueue.core.protocol.QueueKeys.validateName(queue);
            Checks.require(message != null, "step message must not be null");
            Checks.require(message.options().dedupWindow() == null,
                    "a step's dedup window is the chain's retention: send it without one");
        }
    }

    private final @Nullable String id;
    private final List<Step> steps;
    private final Duration retention;

    private Chain(@Nullable String id, List<Step> steps, Duration retention) {
        this.id = id;
        this.steps = List.copyOf(steps);
        this.retention = retention;
    }

    /** A chain whose first step is {@code first} on {@code queue}. */
    public static Chain of(String queue, io.github.delayqueue.core.SendRequest first) {
        return new Chain(null, List.of(new Step(queue, first)), JobSet.DEFAULT_RETENTION);
    }

    /** This chain and then {@code next} on {@code queue}, once the last step so far is acknowledged. */
    public Chain then(String queue, io.github.delayqueue.core.SendRequest next) {
        List<Step> longer = new ArrayList<>(steps);
        longer.add(new Step(queue, next));
        return new Chain(id, longer, retention);
    }

    /**
     * The chain's id (a set id: {@link JobSet#checkId}), from which its sets' and steps' ids are made; without one the
     * send generates one. With one, a send that failed may be sent again.
     */
    public Chain id(String chainId) {
        JobSet.checkId(chainId);
        Checks.require(chainId.length() <= MAX_ID_LENGTH, "chain id must be at most " + MAX_ID_LENGTH
                + " characters (its sets are named <chain id>:<n>), was " + chainId.length());
        return new Chain(chainId, steps, retention);
    }

    /** How long each step's set is kept after its last change (see {@link JobSet.Builder#retention}). */
    public Chain retention(Duration retention) {
        Checks.require(retention != null, "retention must not be null");
        Checks.require(retention.compareTo(JobSet.MIN_RETENTION) >= 0 && retention.compareTo(JobSet.MAX_RETENTION) <= 0,
                "retention must be from " + JobSet.MIN_RETENTION + " to " + JobSet.MAX_RETENTION + ", was " + retention);
        return new Chain(id, steps, retention);
    }

    public @Nullable String id() {
        return id;
    }

    public List<Step> steps() {
        return steps;
    }

    public Duration retention() {
        return retention;
    }
}
