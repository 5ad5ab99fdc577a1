package io.github.delayqueue.spring.outbox;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.github.delayqueue.core.PreparedSend;
import io.github.delayqueue.core.PreparedSet;
import io.github.delayqueue.core.VersionedIntent;
import io.github.delayqueue.spring.core.SendOutbox;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The outbox on a JDBC {@link DataSource}: rows in the table {@code delayqueue_outbox}, written in the
 * application's transaction when it runs on that DataSource (or in a transaction of their own for a send made
 * after that transaction committed, and for a cancel or reschedule; a job set as {@link OutboxSets}' rows
 * around its members' rows), deleted by the {@link OutboxRelay}'s thread
 * once their intents are in Redis.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class JdbcSendOutbox implements SendOutbox {

    private final DataSource dataSource;
    private final OutboxRelay relay;
    /** A new transaction whatever is bound to the thread: after a commit, the finished one still is. */
    private final TransactionTemplate alone;
    /** The longest opening text of a job set one row holds: {@link OutboxSets#OPENING_ROW_CHARS}, smaller in tests. */
    int openingRowChars = OutboxSets.OPENING_ROW_CHARS;

    public JdbcSendOutbox(DataSource dataSource, OutboxRelay relay) {
        this.dataSource = dataSource;
        this.relay = relay;
        this.alone = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        this.alone.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    }

    /** The transaction holds a connection of this DataSource (DataSource, JDBC or JPA transaction manager). */
    @Override
    public boolean coversCurrentTransaction() {
        return TransactionSynchronizationManager.hasResource(this.dataSource);
    }

    @Override
    public List<Long> write(List<PreparedSend> sends) {
        List<OutboxTable.Entry> entries = new ArrayList<>();
        for (PreparedSend send : sends) {
            for (PreparedSend.Message m : send.messages()) {
                entries.add(OutboxTable.Entry.of(send.queue(), m));
            }
        }
        return insert(entries, "message ids " + sends.stream().flatMap(s -> s.ids().stream()).toList());
    }

    @Override
    public List<Long> writeAlone(List<PreparedSend> sends) {
        return this.alone.execute(status -> write(sends));
    }

    @Override
    public long writeAlone(String queue, VersionedIntent.Kind kind, String id, @Nullable Duration delay,
            @Nullable Instant dueAt) {
        OutboxTable.Entry entry = new OutboxTable.Entry(queue, id, kind.name(), delay == null ? null
                : OutboxTable.ceilMillis(delay), dueAt == null ? null : OutboxTable.epochMillisUp(dueAt), "");
        return this.alone.execute(status -> insert(List.of(entry), "message id " + id)).get(0);
    }

    /**
     * The opening rows (the opening split into texts of at most {@link #openingRowChars} characters),
     * the members' rows in the order of the set's batches, then the seal row: one insert, so their keys ascend in that
     * order, which is the order the relay applies them in.
     */
    @Override
    public SetRows writeSet(String queue, PreparedSet set) {
        List<String> openings = set.openings(this.openingRowChars);
        List<OutboxTable.Entry> entries = new ArrayList<>();
        for (String opening : openings) {
            entries.add(new OutboxTable.Entry(queue, set.id(), OutboxSets.OPEN, null, null, opening));
        }
        int members = 0;
        for (PreparedSend send : set.sends()) {
            for (PreparedSend.Message m : send.messages()) {
                entries.add(OutboxTable.Entry.of(send.queue(), m));
                members++;
            }
        }
        entries.add(new OutboxTable.Entry(queue, set.id(), OutboxSets.SEAL, null, null, ""));
        List<Long> keys = insert(entries, "job set '" + set.id() + "' (" + members + " members)");
        int from = openings.size();
        List<List<Long>> memberKeys = new ArrayList<>(set.sends().size());
        for (PreparedSend send : set.sends()) {
            memberKeys.add(keys.subList(from, from + send.messages().size()));
            from += send.messages().size();
        }
        return new SetRows(keys.subList(0, openings.size()), memberKeys, keys.get(keys.size() - 1));
    }

    @Override
    public SetRows writeSetAlone(String queue, PreparedSet set) {
        return this.alone.execute(status -> writeSet(queue, set));
    }

    private List<Long> insert(List<OutboxTable.Entry> entries, String what) {
        try {
            return this.relay.table().insert(entries, this.relay.settings().relayAfter());
        } catch (RuntimeException e) {
            throw new IllegalStateException("Could not write the outbox rows of " + what + " to table "
                    + OutboxTable.TABLE + ", so the transaction does not commit and nothing is sent (is the table there, with its namespace column? "
                    + "delayqueue.producer.outbox.initialize-schema or your migrations create it): " + e, e);
        }
    }

    @Override
    public void sent(List<Long> rows) {
        this.relay.release(rows);
    }

    @Override
    public Duration versionRetention() {
        return this.relay.settings().versionRetention();
    }
}
