package io.github.delayqueue.spring.outbox;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The databases the outbox runs on are the ones its contract tests run on (issue 31 item 6: MySQL was untested; MariaDB now runs them, MariaDbOutboxTests). */
class OutboxDialectTests {

    @Test
    void onlyTestedDatabasesAreSupported() {
        assertThat(OutboxDialect.of("PostgreSQL")).isEqualTo(OutboxDialect.POSTGRESQL);
        assertThat(OutboxDialect.of("H2")).isEqualTo(OutboxDialect.H2);
        assertThat(OutboxDialect.of("MariaDB")).isEqualTo(OutboxDialect.MARIADB);
        assertThat(OutboxDialect.of("MySQL")).isNull();
    }
}
