package io.github.delayqueue.spring.autoconfigure;

import java.time.Duration;

import io.github.delayqueue.spring.outbox.OutboxSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * The transactional outbox ({@code delayqueue.producer.outbox.*}): a send inside a transaction on the
 * application's JDBC DataSource is written to the table {@code delayqueue_outbox} in that transaction, sent to
 * Redis after the commit, and sent by a relay if that write did not happen (a crash, Redis down). Bound only
 * when spring-jdbc is present, so its types may come from there.
 */
@ConfigurationProperties("delayqueue.producer.outbox")
public class DelayQueueOutboxProperties {

    /**
     * Whether sends inside a transaction on the application's DataSource are written to the outbox table in
     * that transaction, so that a committed send reaches Redis even if the JVM dies or Redis is down right after
     * the commit. Needs spring-jdbc, one DataSource and delayqueue.producer.transaction-aware.
     */
    private boolean enabled = false;

    /**
     * When to create the outbox table from the starter's script for the database (PostgreSQL, MariaDB, H2):
     * 'embedded' (an embedded database only), 'always' or 'never' (your migrations create it).
     */
    private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

    /** Whether this application runs the relay that sends the rows the after-commit write did not. */
    private boolean relayEnabled = true;

    /**
     * How old a row must be before the relay sends it; until then the after-commit write owns it. Keep it above
     * the time a send to Redis may take with the client's timeout and retries.
     */
    private Duration relayAfter = Duration.ofSeconds(10);

    /** How often the relay looks for rows to send, and how long it waits while Redis cannot be reached. */
    private Duration relayInterval = Duration.ofSeconds(1);

    /** Most rows one relay pass locks and sends, in one database transaction. */
    private int relayBatchSize = 100;

    /**
     * Failed attempts after which the relay parks a row (its queue is no longer declared, the row is corrupt):
     * it then stays in the table with its reason and is reported in health and metrics. Redis being unreachable
     * does not count towards parking.
     */
    private int maxAttempts = 10;

    /**
     * What this application's rows carry, and the only rows its relay takes, so that applications sharing one
     * database never relay each other's rows. Defaults to spring.application.name, or delayqueue.key-prefix without
     * one. Rows written before rows had a namespace are taken by any relay that declares their queue.
     */
    private @Nullable String namespace;

    /**
     * How long Redis keeps, per message id written through the outbox, the version of its last intent, so that an
     * older intent the relay writes later (a send whose after-commit write failed) cannot overwrite a newer send or
     * bring back a cancelled message. Longer than relay-after plus the longest a row may wait for the relay; costs
     * about 100 bytes of Redis memory per id written in that time (1m to 7d).
     */
    private Duration versionRetention = Duration.ofHours(1);

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public DatabaseInitializationMode getInitializeSchema() {
        return this.initializeSchema;
    }

    public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
        this.initializeSchema = initializeSchema;
    }

    public boolean isRelayEnabled() {
        return this.relayEnabled;
    }

    public void setRelayEnabled(boolean relayEnabled) {
        this.relayEnabled = relayEnabled;
    }

    public Duration getRelayAfter() {
        return this.relayAfter;
    }

    public void setRelayAfter(Duration relayAfter) {
        this.relayAfter = relayAfter;
    }

    public Duration getRelayInterval() {
        return this.relayInterval;
    }

    public void setRelayInterval(Duration relayInterval) {
        this.relayInterval = relayInterval;
    }

    public int getRelayBatchSize() {
        return this.relayBatchSize;
    }

    public void setRelayBatchSize(int relayBatchSize) {
        this.relayBatchSize = relayBatchSize;
    }

    public int getMaxAttempts() {
        return this.maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    public @Nullable String getNamespace() {
        return this.namespace;
    }

    public void setNamespace(@Nullable String namespace) {
        this.namespace = namespace;
    }

    public Duration getVersionRetention() {
        return this.versionRetention;
    }

    public void setVersionRetention(Duration versionRetention) {
        this.versionRetention = versionRetention;
    }

    /** The relay's settings, checked; {@code defaultNamespace} where no namespace is set. */
    OutboxSettings toSettings(String defaultNamespace) {
        return new OutboxSettings(this.relayAfter, this.relayInterval, this.relayBatchSize, this.maxAttempts,
                this.relayEnabled, this.namespace != null ? this.namespace : defaultNamespace, this.versionRetention);
    }
}
