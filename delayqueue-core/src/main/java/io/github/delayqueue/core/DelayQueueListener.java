package io.github.delayqueue.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.history.HistoryTrim;


/**
 * Hears what happens to the messages of one {@link DelayQueueClient} and its consumers: the hook that
 * metrics and tracing bind to (the Spring Boot starter binds it to Micrometer). Set with
 * {@link ClientOptions.Builder#listener}; every method has an empty default, so an implementation overrides
 * what it needs. Without a listener ({@link #NONE}) the engine does no work for it: no clock read, no
 * allocation per message.
 *
 * <p>Methods are called on the engine's threads (a sender's, a poller's, a handler's, the settler's), so
 * they must be thread-safe and quick: a slow listener slows the engine. What a method throws is logged and
 * changes nothing. Counts are of what Redis applied where the method says so; nothing here carries a
 * payload.
 */
public interface DelayQueueListener {

    /** The listener that hears nothing, the default. */
    DelayQueueListener NONE = new DelayQueueListener() {
        @Override
        public String toString() {
            return "DelayQueueListener.NONE";
        }
    };

    /**
     * One send call wrote {@code messages} messages of one {@link SendMode} ({@code batch}: the call carried
     * more than one message, as {@code sendAll} does). {@code duration} is the time the write took, Redis
     * round trips included. A send with {@link SendMode#IF_ABSENT} whose id was live counts too: it was sent,
     * and kept the live message.
     */
    default void sent(String queue, SendMode mode, boolean batch, int messages, Duration duration) {
    }

    /**
     * A send call failed in Redis ({@link DelayQueueException}); the messages may or may not have been written.
     * Bad input never gets this far: it is rejected before anything is sent.
     */
    default void sendFailed(String queue, SendMode mode, boolean batch, int messages, Duration duration,
            Throwable error) {
    }

    /** A consumer's claim moved {@code messages} due messages in flight (only claims of at least one). */
    default void claimed(String queue, int messages) {
    }

    /**
     * A consumer's claim left due messages in Redis because {@code limit} held them back (the queue's rate limit,
     * its cap on messages in flight, or a hold a handler asked for with {@link SlowDownException}); the consumer
     * sleeps until the limit lets them go. A claim that took some messages and left others counts too.
     */
    default void claimThrottled(String queue, FlowLimit limit) {
    }

    /**
     * A handler is about to run, on its thread. {@code lateness} is its start less the message's due time,
     * on the Redis clock (the claim's server time carried forward on this JVM's monotonic clock), never
     * negative. Not called for a payload that cannot be decoded.
     */
    default void handlerStarted(MessageContext context, Duration lateness) {
    }

    /**
     * A handler ended (or timed out) and the outcome is decided, before it is written to Redis;
     * {@code duration} is how long it ran, {@code error} what it threw, or {@code null}.
     */
    default void handlerFinished(MessageContext context, DeliveryOutcome outcome, Duration duration,
            @Nullable Throwable error) {
    }

    /** Redis deleted {@code messages} acknowledged messages (fenced acks that applied). */
    default void acknowledged(String queue, int messages) {
    }

    /** Redis put {@code messages} failed messages back in the queue for a retry after their back-off. */
    default void retried(String queue, int messages) {
    }

    /** Redis moved {@code messages} messages to the dead letters, for {@code cause}. */
    default void deadLettered(String queue, DeadLetterCause cause, int messages) {
    }

    /**
     * Redis deleted {@code messages} messages not handed to a handler by their expiry, on a queue whose
     * {@link ConsumerOptions#onExpiry} is {@link ExpiryAction#DROP} (with {@link ExpiryAction#DEAD_LETTER} they are
     * {@link #deadLettered dead-lettered} with {@link DeadLetterCause#EXPIRED}).
     */
    default void expiredDropped(String queue, int messages) {
    }

    /**
     * A claim found {@code messages} leases expired (the consumer died, or lost its lease) with attempts left,
     * and put them back to be delivered again. Those on their last attempt are
     * {@link #deadLettered dead-lettered} with {@link DeadLetterCause#LEASE_EXPIRED}.
     */
    default void redelivered(String queue, int messages) {
    }

    /**
     * The fence rejected {@code messages} settles (acks, retries or dead letters): their delivery had lost
     * its lease, and a newer delivery owns the message, or it is gone.
     */
    default void staleSettles(String queue, int messages) {
    }

    /**
     * Redis deleted {@code records} records of the queue's history ({@link ConsumerOptions.Builder#keepHistory}) for
     * {@code reason}: beyond its count, in a settle call of this consumer, or past its age, in a claim call of this
     * consumer's housekeeping. Each deletion is reported once, by the instance whose call made it.
     */
    default void historyTrimmed(String queue, HistoryTrim reason, int records) {
    }
}
