package io.github.delayqueue.spring.outbox;

import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * Job sets through the outbox on a real MariaDB, as {@link MariaDbOutboxTests} runs the outbox contract: with
 * {@value MariaDbOutboxTests#URL_VARIABLE} set, skipped otherwise.
 */
@EnabledIfEnvironmentVariable(named = MariaDbOutboxTests.URL_VARIABLE, matches = ".+",
        disabledReason = "set DELAYQUEUE_MYSQL_URL (e.g. jdbc:mariadb://127.0.0.1:3306/?user=root) to run the outbox "
                + "set contract on MariaDB")
class MariaDbOutboxSetTests extends OutboxSetContractTests {

    private final String url = MariaDbOutboxTests.newDatabase(System.getenv(MariaDbOutboxTests.URL_VARIABLE));

    @Override
    String[] databaseProperties() {
        return new String[] { "spring.datasource.url=" + this.url, "delayqueue.producer.outbox.initialize-schema=always",
                "spring.datasource.hikari.connection-init-sql=SET time_zone = '+00:00'" };
    }
}
