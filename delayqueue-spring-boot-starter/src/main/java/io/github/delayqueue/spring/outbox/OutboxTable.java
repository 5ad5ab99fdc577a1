package io.github.delayqueue.spring.outbox;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.github.delayqueue.core.PreparedSend;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.BatchPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;

/**
 * The SQL of the outbox table {@code delayqueue_outbox}, on the application's DataSource. Statements join
 * the transaction bound to the calling thread, if any (Spring's {@code DataSourceUtils}). Every time in the
 * table is the database's clock.
 */
final class OutboxTable {

    static final String TABLE = "delayqueue_outbox";

    /** Rows per {@code DELETE ... IN (...)}. */
    static final int DELETE_BATCH = 500;

    /** Longest error text kept in a row. */
    static final int ERROR_LENGTH = 1000;

    /**
     * One row locked by the relay, as stored ({@code mode} is checked by the relay, so a bad row fails alone):
     * {@code IF_ABSENT} or {@code REPLACE} for a send, {@code CANCEL} or {@code RESCHEDULE}, {@code SET_OPEN} or
     * {@code SET_SEAL} for a job set's steps ({@link OutboxSets}). Its {@code id} is the
     * intent's version. {@code elapsedMicros}: database time since the row was written.
     */
    record Row(long id, String queue, String messageId, String mode, @Nullable Long delayMs, @Nullable Long dueAtMs,
            String body, int attempts, long elapsedMicros) {
    }

    /**
     * One intent to store: {@code mode} as in {@link Row}; a send has a body and one of delay and due time, a
     * reschedule one of them and an empty body, a cancel neither and an empty body.
     */
    record Entry(String queue, String messageId, String mode, @Nullable Long delayMs, @Nullable Long dueAtMs, String body) {

        static Entry of(String queue, PreparedSend.Message m) {
            return new Entry(queue, m.id(), m.mode().name(), m.delay() == null ? null : ceilMillis(m.delay()),
                    m.dueAt() == null ? null : epochMillisUp(m.dueAt()), m.body());
        }
    }

    private final JdbcTemplate jdbc;
    private final OutboxDialect dialect;
    private final String namespace;
    private final String insert;
    private final String lockDue;
    /** The rows this application owns: a WHERE condition taking the namespace as its one parameter. */
    private final String own;

    /**
     * {@code namespace}: what this application's rows carry and the only rows its relay takes, besides rows written
     * before rows had one (a NULL namespace) for a queue in {@code ownQueues}.
     */
    OutboxTable(JdbcTemplate jdbc, OutboxDialect dialect, String namespace, List<String> ownQueues) {
        this.jdbc = jdbc;
        this.dialect = dialect;
        this.namespace = namespace;
        this.insert = "INSERT INTO " + TABLE + " (namespace, queue_code, message_id, send_mode, delay_ms, due_at_ms, body,"
                + " created_at, next_attempt_at, attempts) VALUES (?, ?, ?, ?, ?, ?, ?, " + dialect.now + ", "
                + dialect.nowPlusMillis + ", 0)";
        String legacy = ownQueues.isEmpty() ? "" : " OR (namespace IS NULL AND queue_code IN ("
                + ownQueues.stream().map(q -> "'" + q.replace("'", "''") + "'").collect(Collectors.joining(", ")) + "))";
        this.own = "(namespace = ?" + legacy + ")";
        this.lockDue = "SELECT id, queue_code, message_id, send_mode, delay_ms, due_at_ms, body, attempts, "
                + dialect.elapsedMicros + " AS elapsed_us FROM " + TABLE + " WHERE " + this.own
                + " AND parked_at IS NULL AND next_attempt_at <= " + dialect.now + " ORDER BY id" + dialect.limitLockedSkipLocked;
    }

    OutboxDialect dialect() {
        return this.dialect;
    }

    String namespace() {
        return this.namespace;
    }

    /**
     * Inserts one row per entry, in order, in the caller's transaction; the relay may take a row once
     * {@code relayAfter} has passed. Returns the rows' ids in the same order.
     */
    List<Long> insert(List<Entry> entries, Duration relayAfter) {
        GeneratedKeyHolder keys = new GeneratedKeyHolder();
        long relayAfterMs = relayAfter.toMillis();
        this.jdbc.batchUpdate(con -> con.prepareStatement(this.insert, new String[] { "id" }),
                new BatchPreparedStatementSetter() {
                    @Override
                    public void setValues(PreparedStatement ps, int i) throws SQLException {
                        Entry e = entries.get(i);
                        ps.setString(1, OutboxTable.this.namespace);
                        ps.setString(2, e.queue());
                        ps.setString(3, e.messageId());
                        ps.setString(4, e.mode());
                        setLong(ps, 5, e.delayMs());
                        setLong(ps, 6, e.dueAtMs());
                        ps.setString(7, e.body());
                        ps.setLong(8, relayAfterMs);
                    }

                    @Override
                    public int getBatchSize() {
                        return entries.size();
                    }
                }, keys);
        List<Map<String, Object>> generated = keys.getKeyList();
        if (generated.size() != entries.size()) {
            throw new IllegalStateException("the database returned " + generated.size() + " generated ids for "
                    + entries.size() + " outbox rows");
        }
        List<Long> ids = new ArrayList<>(generated.size());
        for (Map<String, Object> row : generated) {
            Object id = row.size() == 1 ? row.values().iterator().next() : row.entrySet().stream()
                    .filter(e -> e.getKey().equalsIgnoreCase("id")).map(Map.Entry::getValue).findFirst().orElse(null);
            ids.add(((Number) id).longValue());
        }
        return ids;
    }

    /** Locks at most {@code limit} rows that are due for the relay, oldest first, skipping rows others hold. */
    List<Row> lockDue(int limit) {
        return this.jdbc.query(this.lockDue, OutboxTable::row, this.namespace, limit);
    }

    /** Deletes rows by id, in batches. */
    void delete(List<Long> ids) {
        for (int from = 0; from < ids.size(); from += DELETE_BATCH) {
            List<Long> batch = ids.subList(from, Math.min(ids.size(), from + DELETE_BATCH));
            String marks = String.join(", ", Collections.nCopies(batch.size(), "?"));
            this.jdbc.update("DELETE FROM " + TABLE + " WHERE id IN (" + marks + ")", batch.toArray());
        }
    }

    /**
     * Per job set among {@code sets}, its opening rows of this application left in the table (whatever their state:
     * due, backing off, parked, or locked by another relay) and their highest attempt count.
     */
    Map<String, Openings> openings(Collection<String> sets) {
        Map<String, Openings> found = new HashMap<>();
        List<String> all = List.copyOf(sets);
        for (int from = 0; from < all.size(); from += DELETE_BATCH) {
            List<String> batch = all.subList(from, Math.min(all.size(), from + DELETE_BATCH));
            List<Object> args = new ArrayList<>(batch.size() + 2);
            args.add(this.namespace);
            args.add(OutboxSets.OPEN);
            args.addAll(batch);
            this.jdbc.query("SELECT message_id, COUNT(*) AS n, MAX(attempts) AS a FROM " + TABLE + " WHERE " + this.own
                    + " AND send_mode = ? AND message_id IN (" + String.join(", ", Collections.nCopies(batch.size(), "?"))
                    + ") GROUP BY message_id", rs -> {
                        found.put(rs.getString(1), new Openings(rs.getInt(2), rs.getInt(3)));
                    }, args.toArray());
        }
        return found;
    }

    /** The opening rows of one job set left in the table, and the most attempts one of them has made. */
    record Openings(int rows, int attempts) {
    }

    /**
     * Makes the row due again after {@code delay}, with {@code reason} as its last error, without counting an attempt:
     * a row that waits for another one has not failed.
     */
    void defer(long id, String reason, Duration delay) {
        this.jdbc.update("UPDATE " + TABLE + " SET last_error = ?, next_attempt_at = " + this.dialect.nowPlusMillis
                + " WHERE id = ?", truncate(reason), delay.toMillis(), id);
    }

    /** Counts a failed attempt and makes the row due again after {@code backoff}. */
    void retryLater(long id, int attempts, String error, Duration backoff) {
        this.jdbc.update("UPDATE " + TABLE + " SET attempts = ?, last_error = ?, next_attempt_at = " + this.dialect.nowPlusMillis
                + " WHERE id = ?", attempts, truncate(error), backoff.toMillis(), id);
    }

    /** Counts a failed attempt that changes nothing else (Redis unreachable: the relay backs off as a whole). */
    void recordFailure(long id, int attempts, String error) {
        this.jdbc.update("UPDATE " + TABLE + " SET attempts = ?, last_error = ? WHERE id = ?", attempts, truncate(error), id);
    }

    /** Parks the row: the relay no longer takes it; it stays, with its reason, for an operator. */
    void park(long id, int attempts, String error) {
        this.jdbc.update("UPDATE " + TABLE + " SET attempts = ?, last_error = ?, parked_at = " + this.dialect.now
                + " WHERE id = ?", attempts, truncate(error), id);
    }

    /** This application's rows waiting for Redis (not parked), and its parked rows. */
    OutboxStats stats() {
        return this.jdbc.queryForObject("SELECT COUNT(*) - COUNT(parked_at), COUNT(parked_at) FROM " + TABLE + " WHERE "
                + this.own, (rs, n) -> new OutboxStats(rs.getLong(1), rs.getLong(2)), this.namespace);
    }

    private static Row row(ResultSet rs, int n) throws SQLException {
        return new Row(rs.getLong("id"), rs.getString("queue_code"), rs.getString("message_id"),
                rs.getString("send_mode"), nullableLong(rs, "delay_ms"), nullableLong(rs, "due_at_ms"),
                rs.getString("body"), rs.getInt("attempts"), rs.getLong("elapsed_us"));
    }

    private static @Nullable Long nullableLong(ResultSet rs, String column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? null : value;
    }

    private static void setLong(PreparedStatement ps, int index, @Nullable Long value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.BIGINT);
        } else {
            ps.setLong(index, value);
        }
    }

    /** An instant as epoch milliseconds rounded up, as the engine sends it: never early. */
    static long epochMillisUp(Instant instant) {
        return ceilMillis(Duration.ofSeconds(instant.getEpochSecond(), instant.getNano()));
    }

    /** Whole milliseconds rounded up, as the engine sends them: never early. */
    static long ceilMillis(Duration d) {
        long millis = d.toMillis();
        return d.minusMillis(millis).isZero() ? millis : millis + 1;
    }

    private static String truncate(String error) {
        return error.length() <= ERROR_LENGTH ? error : error.substring(0, ERROR_LENGTH - 3) + "...";
    }
}
