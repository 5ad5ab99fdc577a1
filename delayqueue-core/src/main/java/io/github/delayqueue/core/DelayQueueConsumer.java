package io.github.delayqueue.core;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * Claims due messages of one queue and runs its handler on them. Created by
 * {@link DelayQueueClient#newConsumer}; not started until {@link #start()}.
 *
 * <p>Threads (all named {@code delayqueue-<role>-<queue>}): one poller that claims messages, a
 * bounded set of handler threads (virtual threads on Java 21+), one lease keeper that extends the
 * leases of running handlers, and one settler that acknowledges finished deliveries in batches.
 */
public interface DelayQueueConsumer {

    /** The queue this consumer reads. */
    String queue();

    /**
     * Starts claiming. Does not fail when Redis is down: the poller retries with back-off until it
     * answers. Starting twice, or after a stop, throws {@link IllegalStateException}.
     */
    void start();

    /**
     * Stops gracefully: claims nothing new, lets running handlers finish within the shutdown timeout,
     * acknowledges what finished, and leaves everything else in Redis (redelivered after its lease).
     * Returns a future completed when the consumer has stopped; calling it again returns the same
     * future.
     */
    CompletableFuture<Void> stopAsync();

    /** {@link #stopAsync()} and wait for it. */
    default void stop() {
        stopAsync().join();
    }

    /** Whether it was started and not yet asked to stop. */
    boolean isRunning();

    /** Handlers running right now. */
    int activeHandlers();

    /**
     * Why this consumer's claiming loop ended while the consumer was running, or {@code null} while it claims
     * (and after a normal stop). The loop survives Redis failures and errors of its own work; it ends
     * unexpectedly only when something escapes it, such as an {@link Error} from outside its loop or an
     * interrupt from another thread. A consumer with a failure claims nothing more (its running handlers still
     * finish): stop it and create a new one. The default, for consumers that cannot fail so, is {@code null}.
     */
    default @Nullable Throwable failure() {
        return null;
    }
}
