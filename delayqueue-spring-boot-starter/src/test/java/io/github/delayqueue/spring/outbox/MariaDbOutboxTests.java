package io.github.delayqueue.spring.outbox;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The outbox contract on a real MariaDB, in a database of its own created for the run, the session time zone in
 * UTC; with {@value #URL_VARIABLE} set (a server URL without a database, e.g.
 * {@code jdbc:mariadb://127.0.0.1:3306/?user=root}), skipped otherwise: no MariaDB ships in a Maven artifact this
 * build can start. Plus what only InnoDB has: a relay pass holding its rows does not block the application's inserts.
 */
@EnabledIfEnvironmentVariable(named = MariaDbOutboxTests.URL_VARIABLE, matches = ".+",
        disabledReason = "set DELAYQUEUE_MYSQL_URL (e.g. jdbc:mariadb://127.0.0.1:3306/?user=root) to run the outbox "
                + "contract on MariaDB")
class MariaDbOutboxTests extends OutboxContractTests {

    static final String URL_VARIABLE = "DELAYQUEUE_MYSQL_URL";

    private final String url = newDatabase(System.getenv(URL_VARIABLE));

    /** Creates a database for this run on the server of {@code serverUrl}; returns its URL. */
    static String newDatabase(String serverUrl) {
        int query = serverUrl.indexOf('?');
        String server = query < 0 ? serverUrl : serverUrl.substring(0, query);
        String params = query < 0 ? "" : serverUrl.substring(query);
        server = server.endsWith("/") ? server : server + "/";
        String name = "dq_outbox_" + System.nanoTime();
        try (Connection connection = DriverManager.getConnection(serverUrl)) {
            connection.createStatement().execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("could not create a database on " + server + ": " + e, e);
        }
        return server + name + params;
    }

    @Override
    String[] databaseProperties() {
        return new String[] { "spring.datasource.url=" + this.url, "delayqueue.producer.outbox.initialize-schema=always",
                "spring.datasource.hikari.connection-init-sql=SET time_zone = '+00:00'" };
    }

    @Test
    void theSessionRunsInUtcAndTheTableKeepsUtcTimes() {
        runner().run(context -> {
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            assertThat(jdbc.queryForObject("SELECT @@session.time_zone", String.class)).isEqualTo("+00:00");
            assertThat(jdbc.queryForObject("SELECT DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()"
                    + " AND TABLE_NAME = 'delayqueue_outbox' AND COLUMN_NAME = 'created_at'", String.class)).isEqualTo("datetime");
        });
    }

    /**
     * Under InnoDB's default REPEATABLE READ, the relay's {@code FOR UPDATE SKIP LOCKED} takes gap locks: while a
     * pass waits for a Redis that is down, an application's insert into the table would wait for it. The relay's
     * transactions are READ COMMITTED: a commit with a send goes through while a pass holds every due row.
     */
    @Test
    void aRelayPassHoldingItsRowsDoesNotBlockTheApplicationsInserts() {
        runner().withPropertyValues("delayqueue.producer.outbox.relay-enabled=false").run(context -> {
            clear(context);
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            OutboxRelay relay = context.getBean(OutboxRelay.class);
            String body = this.client.prepare("PRODUCER_ONLY", List.of(SendRequest.of("x", Duration.ofHours(1))))
                    .messages().get(0).body();
            jdbc.update("insert into delayqueue_outbox (namespace, queue_code, message_id, send_mode, delay_ms, body,"
                    + " created_at, next_attempt_at, attempts) values (?, 'PRODUCER_ONLY', 'held-1', 'IF_ABSENT', 0, ?,"
                    + " utc_timestamp(6), utc_timestamp(6), 0)", this.prefix, body);
            CountDownLatch locked = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Thread pass = new Thread(() -> relay.transactions().executeWithoutResult(status -> {
                assertThat(relay.table().lockDue(10)).hasSize(1);
                locked.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS); // as a pass waiting for Redis
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }), "relay-pass");
            pass.start();
            try {
                assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();
                long started = System.nanoTime();
                context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                    jdbc.execute("SET SESSION innodb_lock_wait_timeout = 3");
                    jdbc.update("insert into orders (id) values ('held-2')");
                    context.getBean(DelayQueueTemplate.class).send(OrderQueues.PRODUCER_ONLY, "y", Duration.ofHours(1),
                            SendOptions.id("held-2"));
                });
                assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
            } finally {
                release.countDown();
                pass.join();
            }
            this.client.cancel("PRODUCER_ONLY", "held-2");
        });
    }
}
