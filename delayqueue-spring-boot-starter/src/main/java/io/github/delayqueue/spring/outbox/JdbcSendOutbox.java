package io.github.delayqueue.spring.outbox;

import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.github.delayqueue.core.PreparedSend;
import io.github.delayqueue.spring.core.SendOutbox;

import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The outbox on a JDBC {@link DataSource}: rows in the table {@code delayqueue_outbox}, written in the
 * application's transaction when it runs on that DataSource, deleted by the {@link OutboxRelay}'s thread once
 * their messages are in Redis.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class JdbcSendOutbox implements SendOutbox {

    private final DataSource dataSource;
    private final OutboxRelay relay;

    public JdbcSendOutbox(DataSource dataSource, OutboxRelay relay) {
        this.dataSource = dataSource;
        this.relay = relay;
    }

    /** The transaction holds a connection of this DataSource (DataSource, JDBC or JPA transaction manager). */
    @Override
    public boolean coversCurrentTransaction() {
        return TransactionSynchronizationManager.hasResource(this.dataSource);
    }

    @Override
    public List<Long> write(List<PreparedSend> sends) {
        List<Long> rows = new ArrayList<>();
        for (PreparedSend send : sends) {
            try {
                rows.addAll(this.relay.table().insert(send.queue(), send.messages(), this.relay.settings().relayAfter()));
            } catch (RuntimeException e) {
                throw new IllegalStateException("Could not write the outbox rows of message ids " + send.ids() + " for queue '"
                        + send.queue() + "' to table " + OutboxTable.TABLE + ", so the transaction does not commit (is the "
                        + "table there? delayqueue.producer.outbox.initialize-schema or your migrations create it): " + e, e);
            }
        }
        return rows;
    }

    @Override
    public void sent(List<Long> rows) {
        this.relay.release(rows);
    }
}
