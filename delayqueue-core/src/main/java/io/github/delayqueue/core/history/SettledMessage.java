package io.github.delayqueue.core.history;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.SendOptions;

/**
 * What became of a message that a consumer acknowledged or dead-lettered, or that was cancelled, kept by a queue whose
 * consumers keep its history ({@link ConsumerOptions.Builder#keepHistory}) until it is trimmed; read with
 * {@link DelayQueueClient#status}, and listed newest first with {@link DelayQueueClient#history}. Times are on the
 * Redis clock.
 *
 * @param id        the message id
 * @param outcome   acknowledged (its handler returned), dead-lettered or cancelled
 * @param settledAt when the outcome was written
 * @param dueAt     when it was due (for a retried message, the due time of the attempt that settled it)
 * @param claimedAt when the attempt that settled it was claimed (to the millisecond)
 * @param attempts  deliveries, the last included
 * @param instance  the JVM that ran the last delivery, {@code <pid>@<host>}
 * @param took      from the last delivery's dispatch to its outcome (the handler's run, and any wait for a thread)
 * @param group     its {@link SendOptions#group group}, or {@code null}
 * @param reason    a dead letter's reason, or {@code null}
 * @param result    what the handler set with {@link io.github.delayqueue.core.MessageContext#result} (JSON), or
 *                  {@code null}
 * @param progress  the last progress the handler reported ({@link io.github.delayqueue.core.MessageContext#progress},
 *                  JSON), or {@code null}
 */
public record SettledMessage(String id, Outcome outcome, Instant settledAt, Instant dueAt, Instant claimedAt,
        int attempts, String instance, Duration took, @Nullable String group, @Nullable String reason,
        @Nullable String result, @Nullable String progress) {

    /** How a message ended. */
    public enum Outcome {
        /** Its handler returned: acknowledged and deleted. */
        COMPLETED,
        /** Dead-lettered after its handler (or the payload's decoding) failed for the last time. */
        DEAD_LETTERED,
        /**
         * Cancelled ({@link DelayQueueClient#cancel}, or an outbox's cancel) while it had a running record
         * ({@link RunningMessage}): while its handler ran (the handler was interrupted), or while it waited for a retry
         * after such a run.
         */
        CANCELLED
    }
}
