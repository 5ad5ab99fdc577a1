package io.github.delayqueue.spring.outbox;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * What differs between the databases the outbox supports: the clock (always the database's, never the
 * JVM's), time arithmetic, and row locking that skips rows another relay holds ({@code SKIP LOCKED}).
 * {@link #platform} names the schema script, {@code schema-<platform>.sql}, as Spring Boot's database
 * drivers name platforms.
 */
enum OutboxDialect {

    /** PostgreSQL 9.6+: {@code clock_timestamp()} is the time of the statement's evaluation, not the transaction's start. */
    POSTGRESQL("postgresql", "clock_timestamp()",
            "clock_timestamp() + CAST(? AS DOUBLE PRECISION) * INTERVAL '1 millisecond'",
            "CAST(FLOOR(EXTRACT(EPOCH FROM (clock_timestamp() - created_at)) * 1000000) AS BIGINT)",
            " LIMIT ? FOR UPDATE SKIP LOCKED"),

    /**
     * MariaDB 10.6+ (InnoDB; {@code SKIP LOCKED} came with 10.6): {@code UTC_TIMESTAMP(6)} is the statement's start,
     * in UTC whatever the session's time zone, and the table's times are {@code DATETIME(6)} in UTC, so a daylight
     * saving change in the session's zone cannot shorten a relayed delay. Tested with MariaDbOutboxTests.
     */
    MARIADB("mariadb", "UTC_TIMESTAMP(6)", "TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6))",
            "TIMESTAMPDIFF(MICROSECOND, created_at, UTC_TIMESTAMP(6))", " LIMIT ? FOR UPDATE SKIP LOCKED"),

    /** H2 2.x: {@code CURRENT_TIMESTAMP} is the start of the transaction. */
    H2("h2", "CURRENT_TIMESTAMP", "DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)",
            "DATEDIFF(MICROSECOND, created_at, CURRENT_TIMESTAMP)", " FETCH FIRST ? ROWS ONLY FOR UPDATE SKIP LOCKED");

    final String platform;
    /** The database's current time. */
    final String now;
    /** The database's current time plus a parameter of milliseconds. */
    final String nowPlusMillis;
    /** Microseconds from a row's {@code created_at} to the database's current time, rounded down. */
    final String elapsedMicros;
    /** After {@code ORDER BY}: at most a parameter of rows, locked, skipping rows locked by others. */
    final String limitLockedSkipLocked;

    OutboxDialect(String platform, String now, String nowPlusMillis, String elapsedMicros, String limitLockedSkipLocked) {
        this.platform = platform;
        this.now = now;
        this.nowPlusMillis = nowPlusMillis;
        this.elapsedMicros = elapsedMicros;
        this.limitLockedSkipLocked = limitLockedSkipLocked;
    }

    /** The dialect of a database by its JDBC product name, or {@code null} if the outbox does not support it. */
    static @Nullable OutboxDialect of(String databaseProductName) {
        String name = databaseProductName.toLowerCase(Locale.ROOT);
        if (name.contains("postgres")) {
            return POSTGRESQL;
        }
        if (name.equals("mariadb")) {
            return MARIADB;
        }
        if (name.equals("h2")) {
            return H2;
        }
        return null;
    }
}
