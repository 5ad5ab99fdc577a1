package io.github.delayqueue.spring.core;

import java.util.List;

import io.github.delayqueue.core.PreparedSend;

/**
 * Where {@link TransactionAwareDelayQueueTemplate} keeps the sends of a transaction so that they outlive a
 * crash or a Redis outage between the commit and the write to Redis: the transactional outbox
 * ({@code delayqueue.producer.outbox.enabled}). The JDBC implementation writes one row per message in the
 * application's transaction; a relay sends the rows the after-commit write did not.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public interface SendOutbox {

    /** Whether the current transaction can hold the outbox's rows: it runs on the outbox's database. */
    boolean coversCurrentTransaction();

    /**
     * Writes one row per message of {@code sends}, in order, inside the current transaction (called just
     * before it commits); returns the rows' keys in the same order. A failure fails the commit.
     */
    List<Long> write(List<PreparedSend> sends);

    /** The messages of these rows reached Redis: their rows may go (at once or soon, on another thread). */
    void sent(List<Long> rows);
}
