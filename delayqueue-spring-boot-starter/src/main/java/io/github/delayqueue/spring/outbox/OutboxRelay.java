package io.github.delayqueue.spring.outbox;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.PreparedSend;
import io.github.delayqueue.core.SendMode;
import io.github.delayqueue.core.VersionedIntent;
import io.github.delayqueue.core.sets.SetStatus;
import io.github.delayqueue.spring.core.QueueCatalog;
import org.jspecify.annotations.Nullable;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisNodeNotFoundException;
import org.redisson.client.RedisRetryException;
import org.redisson.client.RedisTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The outbox's one thread, {@code delayqueue-outbox-relay}, started and stopped with the application context:
 * <ul>
 * <li>deletes the rows whose messages the after-commit write put in Redis ({@link #release}), in batches;</li>
 * <li>every {@code interval}, relays the rows that are older than {@code relayAfter} (a crash or a Redis
 * failure left them): locks up to {@code batchSize} of them with {@code FOR UPDATE SKIP LOCKED} in a
 * transaction of its own, so relays of several instances never take the same row, sends each under the id
 * fixed at the call (an if-absent replay of a message already in Redis changes nothing), and deletes it.</li>
 * </ul>
 * A relayed message is due when it would have been had it been written at its row's insert, just before the
 * commit: the delay left is the delay less the time since the insert, both on the database's clock (rounded
 * so that it is never early); a {@code sendAt} instant is kept. While Redis fails the relay tries one row per
 * interval; a row that fails otherwise (its queue is no longer declared, the row is corrupt) backs off,
 * 1 s doubling up to 5 min, and is parked after {@code maxAttempts} with its reason, kept for an operator.
 * A job set's rows ({@link OutboxSets}) are applied in the order they were written: its openings, then its members
 * and its seal, which wait while an opening row of the set is left.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class OutboxRelay implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);

    static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
    static final Duration MAX_BACKOFF = Duration.ofMinutes(5);
    private static final Duration STATS_FOR = Duration.ofSeconds(1);
    private static final Duration STOP_WAIT = Duration.ofSeconds(10);
    /** Queued to wake the thread; row ids are positive. */
    private static final long WAKE = -1;

    private final OutboxTable table;
    private final QueueCatalog catalog;
    private final OutboxSettings settings;
    private final TransactionTemplate transactions;
    private final LinkedBlockingQueue<Long> released = new LinkedBlockingQueue<>();
    private final Object lifecycle = new Object();
    private volatile boolean running;
    private @Nullable Thread thread;
    private final AtomicLong relayed = new AtomicLong();
    private int failingPasses;
    private @Nullable OutboxStats stats;
    private long statsAt;

    OutboxRelay(OutboxTable table, DataSource dataSource, QueueCatalog catalog, OutboxSettings settings) {
        this.table = table;
        this.catalog = catalog;
        this.settings = settings;
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        // no gap locks (InnoDB's REPEATABLE READ takes them): a relay pass that waits for Redis while it holds its
        // rows must not block the application's inserts into the table; PostgreSQL and H2 default to it anyway
        this.transactions.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
    }

    /**
     * A relay on {@code dataSource}, whose database product must be one the outbox supports.
     *
     * @throws IllegalStateException if the database cannot be read or is not PostgreSQL, MariaDB or H2
     */
    public static OutboxRelay create(DataSource dataSource, QueueCatalog catalog, OutboxSettings settings) {
        String product;
        try {
            product = JdbcUtils.extractDatabaseMetaData(dataSource, metaData -> metaData.getDatabaseProductName());
        } catch (MetaDataAccessException e) {
            throw new IllegalStateException("Could not read which database the outbox's DataSource is: " + e.getMessage(), e);
        }
        OutboxDialect dialect = OutboxDialect.of(product);
        if (dialect == null) {
            throw new IllegalStateException("The outbox supports PostgreSQL, MariaDB and H2 (not MySQL, which is "
                    + "untested); the DataSource is " + product);
        }
        List<String> queues = catalog.codes().stream().map(code -> code.code()).toList();
        return new OutboxRelay(new OutboxTable(new JdbcTemplate(dataSource), dialect, settings.namespace(), queues),
                dataSource, catalog, settings);
    }

    /** Where the schema scripts are, {@code schema-<platform>.sql}. */
    public static final String SCHEMA_FOLDER = "io/github/delayqueue/spring/outbox/";

    /** The database's platform name, as in the schema script's name: postgresql, mariadb or h2. */
    public String platform() {
        return this.table.dialect().platform;
    }

    /** The relay's transactions: READ COMMITTED. */
    TransactionTemplate transactions() {
        return this.transactions;
    }

    OutboxTable table() {
        return this.table;
    }

    OutboxSettings settings() {
        return this.settings;
    }

    /** The messages of these rows are in Redis: delete the rows soon, on the relay's thread. */
    void release(List<Long> rows) {
        this.released.addAll(rows);
    }

    /**
     * Messages this relay sent to Redis since it was created (rows the after-commit write left); a job set's opening
     * and seal rows are not messages and are not counted.
     */
    public long relayed() {
        return this.relayed.get();
    }

    /** Rows waiting for Redis and parked rows, read from the table at most once a second. */
    public OutboxStats stats() {
        synchronized (this.table) {
            long now = System.nanoTime();
            if (this.stats == null || now - this.statsAt > STATS_FOR.toNanos()) {
                this.stats = this.table.stats();
                this.statsAt = now;
            }
            return this.stats;
        }
    }

    @Override
    public void start() {
        synchronized (this.lifecycle) {
            if (this.running) {
                return;
            }
            this.running = true;
            Thread relay = new Thread(this::run, "delayqueue-outbox-relay");
            relay.setDaemon(true);
            this.thread = relay;
            relay.start();
        }
    }

    /** Lets a running pass finish (up to 10 s, then interrupts it), deletes the rows released so far, and ends. */
    @Override
    public void stop() {
        Thread relay;
        synchronized (this.lifecycle) {
            if (!this.running) {
                return;
            }
            this.running = false;
            relay = this.thread;
            this.thread = null;
        }
        this.released.add(WAKE);
        if (relay == null) {
            return;
        }
        try {
            relay.join(STOP_WAIT.toMillis());
            if (relay.isAlive()) {
                log.warn("The outbox relay did not stop within {}; interrupting it", STOP_WAIT);
                relay.interrupt();
                relay.join(STOP_WAIT.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    /**
     * Stops after the web server has shut down gracefully and stopped (Spring Boot's
     * {@code WebServerGracefulShutdownLifecycle}, {@code DEFAULT_PHASE - 1024}, and {@code WebServerStartStopLifecycle},
     * {@code DEFAULT_PHASE - 2048}; a higher phase stops first): the rows of requests that commit while the server
     * drains are still deleted, or relayed, by this instance rather than sent again by another one after
     * {@code relay-after}.
     */
    @Override
    public int getPhase() {
        return PHASE;
    }

    /** {@link #getPhase()}: below the web server's phases. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private void run() {
        long nextPass = System.nanoTime(); // rows a crashed instance left: at once
        while (this.running) {
            try {
                long wait = nextPass - System.nanoTime();
                Long first = wait > 0 ? this.released.poll(wait, TimeUnit.NANOSECONDS) : this.released.poll();
                if (first != null) {
                    deleteReleased(first);
                }
                if (this.running && System.nanoTime() - nextPass >= 0) {
                    boolean more = this.settings.relay() && relayOnce();
                    nextPass = System.nanoTime() + (more ? 0 : this.settings.interval().toNanos());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (Throwable e) { // an Error included: a relay that dies silently would strand every later row
                log.error("The outbox relay failed; trying again in {}", this.settings.interval(), e);
                nextPass = System.nanoTime() + this.settings.interval().toNanos();
            }
        }
        try {
            deleteReleased(WAKE);
        } catch (RuntimeException e) {
            log.warn("Could not delete the outbox rows of messages sent before the stop; the relay of the next start "
                    + "sends them again under their ids", e);
        }
    }

    private void deleteReleased(long first) {
        List<Long> ids = new ArrayList<>();
        if (first != WAKE) {
            ids.add(first);
        }
        List<Long> more = new ArrayList<>();
        this.released.drainTo(more);
        for (Long id : more) {
            if (id != WAKE) {
                ids.add(id);
            }
        }
        if (!ids.isEmpty()) {
            this.table.delete(ids);
        }
    }

    /**
     * One pass in one transaction; returns whether a full batch went out without a failure (more may wait). A job set's
     * member rows and seal row wait (are deferred, not failed) while an opening row of that set is left in the table:
     * a member sent before its set is opened would be counted nowhere, and a seal applied before would be lost.
     */
    boolean relayOnce() {
        Boolean more = this.transactions.execute(status -> {
            List<OutboxTable.Row> rows = this.table.lockDue(this.settings.batchSize());
            List<@Nullable String> sets = new ArrayList<>(rows.size());
            for (OutboxTable.Row row : rows) {
                sets.add(setOf(row));
            }
            Map<String, OutboxTable.Openings> openings = sets.stream().anyMatch(Objects::nonNull)
                    ? new HashMap<>(this.table.openings(sets.stream().filter(Objects::nonNull).collect(Collectors.toSet())))
                    : Map.of();
            List<Long> done = new ArrayList<>(rows.size());
            int messages = 0;
            boolean failed = false;
            for (int i = 0; i < rows.size(); i++) {
                OutboxTable.Row row = rows.get(i);
                String set = sets.get(i);
                boolean opening = row.mode().equals(OutboxSets.OPEN);
                OutboxTable.Openings left = set == null || opening ? null : openings.get(set);
                if (left != null && left.rows() > 0) {
                    defer(row, set, left);
                    continue;
                }
                try {
                    send(row);
                    done.add(row.id());
                    if (opening) {
                        openings.computeIfPresent(set, (s, o) -> new OutboxTable.Openings(o.rows() - 1, o.attempts()));
                    } else if (!row.mode().equals(OutboxSets.SEAL)) {
                        messages++;
                    }
                } catch (RuntimeException e) {
                    if (redisUnreachable(e)) {
                        this.table.recordFailure(row.id(), row.attempts() + 1, e.toString());
                        if (this.failingPasses++ % 20 == 0) {
                            log.warn("The outbox relay cannot reach Redis; rows wait, the first being row {} (message id '{}', "
                                    + "queue '{}')", row.id(), row.messageId(), row.queue(), e);
                        }
                        failed = true;
                        break; // the next row would wait for the same timeout
                    }
                    fail(row, e);
                    failed = true;
                    if (opening) {
                        openings.computeIfPresent(set, (s, o) -> new OutboxTable.Openings(o.rows(),
                                Math.max(o.attempts(), row.attempts() + 1)));
                    }
                }
            }
            this.table.delete(done);
            this.relayed.addAndGet(messages);
            if (!done.isEmpty()) {
                if (this.failingPasses > 0 && !failed) {
                    log.info("The outbox relay reaches Redis again");
                    this.failingPasses = 0;
                }
                log.debug("The outbox relay applied {} row(s), {} of them message(s)", done.size(), messages);
            }
            return !failed && rows.size() == this.settings.batchSize();
        });
        return Boolean.TRUE.equals(more);
    }

    /** The job set of a row: a set step's own, or the one a member's body names; null for any other row. */
    private static @Nullable String setOf(OutboxTable.Row row) {
        String mode = row.mode();
        if (mode.equals(OutboxSets.OPEN) || mode.equals(OutboxSets.SEAL)) {
            return row.messageId();
        }
        if (mode.equals(SendMode.IF_ABSENT.name()) || mode.equals(SendMode.REPLACE.name())) {
            return OutboxSets.setOf(row.body());
        }
        return null;
    }

    /**
     * A member or seal row whose set still has opening rows: due again after the opening's own backoff, no attempt
     * counted (it has not failed; a parked opening keeps it waiting, at most {@link #MAX_BACKOFF} between looks).
     */
    private void defer(OutboxTable.Row row, String set, OutboxTable.Openings left) {
        Duration delay = backoff(Math.max(1, left.attempts()));
        this.table.defer(row.id(), "waiting for the opening row(s) of job set '" + set + "' (" + left.rows()
                + " left in " + OutboxTable.TABLE + ", send_mode " + OutboxSets.OPEN + ")", delay);
        log.debug("Outbox row {} (message id '{}', queue '{}') waits {} for the opening of job set '{}'", row.id(),
                row.messageId(), row.queue(), delay, set);
    }

    /**
     * Redis could not be reached: the core's sends say so with a {@link DelayQueueException}; a job set's steps let
     * Redisson's own exceptions through.
     */
    private static boolean redisUnreachable(RuntimeException e) {
        return e instanceof DelayQueueException || e instanceof RedisConnectionException || e instanceof RedisTimeoutException
                || e instanceof RedisRetryException || e instanceof RedisNodeNotFoundException;
    }

    /**
     * Applies the row's intent under its version (the row's id): Redis refuses it if the id has a version as high or
     * higher, so an older row never overwrites a newer intent and a retry (after a failed WAIT) writes nothing twice.
     * A job set's opening and seal need no version: both are idempotent.
     */
    private void send(OutboxTable.Row row) {
        QueueCatalog.Queue queue = this.catalog.find(row.queue()).orElseThrow(() -> new IllegalArgumentException(
                "queue '" + row.queue() + "' is not declared in this application"));
        if (row.mode().equals(OutboxSets.OPEN)) {
            open(queue.client(), row);
            return;
        }
        if (row.mode().equals(OutboxSets.SEAL)) {
            queue.client().sealSet(row.messageId());
            return;
        }
        if (row.elapsedMicros() / 1000 > this.settings.versionRetention().toMillis()) {
            log.warn("Outbox row {} (message id '{}', queue '{}') is older than delayqueue.producer.outbox.version-retention "
                    + "({}): Redis may have forgotten a newer intent for this id, which this row may then overwrite",
                    row.id(), row.messageId(), row.queue(), this.settings.versionRetention());
        }
        queue.client().applyVersioned(queue.name(), List.of(intent(row)), this.settings.versionRetention());
    }

    /**
     * Opens a job set from an opening row. An opening replayed after its set was sealed (the seal comes only after
     * every opening row of the set was applied) may be refused, the set being complete or its parent gone: it was
     * applied, so the row is done.
     */
    private static void open(DelayQueueClient client, OutboxTable.Row row) {
        try {
            client.openSet(row.body());
        } catch (IllegalArgumentException | IllegalStateException e) {
            if (client.setStatus(row.messageId(), 0).map(SetStatus::sealed).orElse(false)) {
                log.info("Outbox row {}: job set '{}' was opened and sealed before; its opening, replayed, is done ({})",
                        row.id(), row.messageId(), e.getMessage());
                return;
            }
            throw e;
        }
    }

    /** The row's intent at its version; a relative due time less the time since the insert, on the database's clock. */
    static VersionedIntent intent(OutboxTable.Row row) {
        boolean hasDelay = row.delayMs() != null;
        boolean hasDueAt = row.dueAtMs() != null;
        @Nullable Duration left = null;
        if (hasDelay) {
            // the delay left, on the database's clock: elapsed rounded down, so never early
            left = Duration.ofMillis(Math.max(0, row.delayMs() - Math.max(0, row.elapsedMicros() / 1000)));
        }
        @Nullable Instant at = hasDueAt ? Instant.ofEpochMilli(row.dueAtMs()) : null;
        if (row.mode().equals(VersionedIntent.Kind.CANCEL.name())) {
            require(!hasDelay && !hasDueAt, "a cancel has neither delay_ms nor due_at_ms");
            return VersionedIntent.cancel(row.messageId(), row.id());
        }
        require(hasDelay != hasDueAt, "exactly one of delay_ms and due_at_ms must be set");
        if (row.mode().equals(VersionedIntent.Kind.RESCHEDULE.name())) {
            return VersionedIntent.reschedule(row.messageId(), left, at, row.id());
        }
        SendMode mode = mode(row.mode());
        return VersionedIntent.send(new PreparedSend.Message(row.messageId(), mode, left, at, row.body()), row.id());
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    private void fail(OutboxTable.Row row, RuntimeException e) {
        int attempts = row.attempts() + 1;
        String reason = e.toString();
        if (attempts >= this.settings.maxAttempts()) {
            this.table.park(row.id(), attempts, reason);
            log.error("Outbox row {} (message id '{}', queue '{}') parked after {} attempts: {}. It stays in table {} "
                    + "with its reason until an operator deletes it or sets parked_at to NULL to try again.",
                    row.id(), row.messageId(), row.queue(), attempts, reason, OutboxTable.TABLE);
        } else {
            Duration backoff = backoff(attempts);
            this.table.retryLater(row.id(), attempts, reason, backoff);
            log.warn("Outbox row {} (message id '{}', queue '{}') could not be sent (attempt {} of {}), trying again in {}: {}",
                    row.id(), row.messageId(), row.queue(), attempts, this.settings.maxAttempts(), backoff, reason);
        }
    }

    /** 1 s, doubling, at most 5 min. */
    static Duration backoff(int attempts) {
        long seconds = FIRST_BACKOFF.toSeconds() << Math.min(attempts - 1, 20);
        return seconds >= MAX_BACKOFF.toSeconds() ? MAX_BACKOFF : Duration.ofSeconds(seconds);
    }

    private static SendMode mode(String text) {
        for (SendMode mode : SendMode.values()) {
            if (mode.name().equals(text)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown send mode or intent '" + text + "'");
    }
}
