package io.github.delayqueue.core;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by a {@link BatchMessageHandler} when some messages of its batch failed: those it names (by id, see
 * {@link BatchItem#id()}) are retried or dead-lettered by the retry policy, judged by {@link #getCause()} (or by
 * this exception when it has no cause); every other message of the batch is acknowledged. Like Spring Kafka's
 * {@code BatchListenerFailedException}, but naming any number of messages. Ids that are not in the batch are
 * ignored; naming none acknowledges the whole batch.
 */
public class BatchFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final Set<String> failedIds;

    /** {@code failedIds}: the ids of the messages that failed; {@code cause}: why (what the retry policy judges). */
    public BatchFailedException(String message, Collection<String> failedIds, @Nullable Throwable cause) {
        super(message, cause);
        if (failedIds == null || failedIds.stream().anyMatch(Objects::isNull)) { // List.of's contains(null) throws
            throw new IllegalArgumentException("failedIds must not be null nor contain null");
        }
        this.failedIds = Set.copyOf(new LinkedHashSet<>(failedIds));
    }

    public BatchFailedException(Collection<String> failedIds, @Nullable Throwable cause) {
        this(cause == null ? "failed messages: " + failedIds : cause.toString(), failedIds, cause);
    }

    /** The ids of the messages that failed. */
    public Set<String> failedIds() {
        return failedIds;
    }
}
