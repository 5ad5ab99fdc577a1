package io.github.delayqueue.spring.outbox;

import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.DelayQueueHealthContributorAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.DelayQueueOutboxAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import io.github.delayqueue.spring.core.SendOutbox;
import io.github.delayqueue.spring.core.TransactionAwareDelayQueueTemplate;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The outbox's auto-configuration without Redis: off by default, on with the property and a DataSource, and a
 * clear startup failure for every setting it cannot work with (nothing is created, no table either).
 */
class OutboxAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, DelayQueueAutoConfiguration.class,
                    DelayQueueOutboxAutoConfiguration.class, DelayQueueHealthContributorAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1",
                    "delayqueue.scan-packages=" + OrderQueues.class.getPackageName(),
                    "spring.datasource.url=jdbc:h2:mem:outbox-config-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");

    @Test
    void offByDefault() {
        this.runner.run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(SendOutbox.class).doesNotHaveBean(OutboxRelay.class)
                    .doesNotHaveBean("delayQueueOutboxHealthIndicator");
            assertThat(context).getBean(DelayQueueTemplate.class).isExactlyInstanceOf(TransactionAwareDelayQueueTemplate.class);
        });
    }

    @Test
    void onWithThePropertyAndADataSourceTheTableIsCreatedOnAnEmbeddedDatabase() {
        this.runner.withPropertyValues("delayqueue.producer.outbox.enabled=true").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(SendOutbox.class).hasSingleBean(OutboxRelay.class)
                    .hasBean("delayQueueOutboxHealthIndicator");
            assertThat(context.getBean(OutboxRelay.class).platform()).isEqualTo("h2");
            assertThat(new JdbcTemplate(context.getBean(javax.sql.DataSource.class))
                    .queryForObject("select count(*) from delayqueue_outbox", Long.class)).isZero();
        });
    }

    @Test
    void initializeSchemaNeverCreatesNoTable() {
        this.runner.withPropertyValues("delayqueue.producer.outbox.enabled=true",
                "delayqueue.producer.outbox.initialize-schema=never").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(new JdbcTemplate(context.getBean(javax.sql.DataSource.class)).queryForObject(
                            "select count(*) from information_schema.tables where lower(table_name) = 'delayqueue_outbox'",
                            Long.class)).isZero();
                });
    }

    @Test
    void withoutTheTableACommitWithASendFailsAndRollsBackItsData() {
        this.runner.withConfiguration(AutoConfigurations.of(
                org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration.class))
                .withPropertyValues("delayqueue.producer.outbox.enabled=true", "delayqueue.producer.outbox.initialize-schema=never")
                .run(context -> {
                    JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
                    jdbc.execute("create table orders (id varchar(40) primary key)");
                    org.springframework.transaction.support.TransactionTemplate transactions = context
                            .getBean(org.springframework.transaction.support.TransactionTemplate.class);
                    org.assertj.core.api.Assertions.assertThatException().isThrownBy(() -> transactions
                            .executeWithoutResult(status -> {
                                jdbc.update("insert into orders (id) values ('o-1')");
                                context.getBean(DelayQueueTemplate.class).send(OrderQueues.ORDER_TIMEOUT, "o-1",
                                        java.time.Duration.ofMinutes(15));
                            })).withMessageContaining("to table delayqueue_outbox, so the transaction does not commit");
                    // the message could not be kept, so the data was not committed either
                    assertThat(jdbc.queryForObject("select count(*) from orders", Long.class)).isZero();
                });
    }

    @Test
    void enabledWithoutADataSourceFailsStartupNamingTheProperty() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class,
                DelayQueueOutboxAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1", "delayqueue.producer.outbox.enabled=true",
                        "delayqueue.scan-packages=" + OrderQueues.class.getPackageName())
                .run(context -> assertThat(failure(context)).hasMessageContaining("delayqueue.producer.outbox.enabled=true")
                        .hasMessageContaining("DataSource"));
    }

    @Test
    void enabledWithoutSpringJdbcFailsStartup() {
        this.runner.withClassLoader(new FilteredClassLoader("org.springframework.jdbc.core"))
                .withPropertyValues("delayqueue.producer.outbox.enabled=true")
                .run(context -> assertThat(failure(context)).hasMessageContaining("spring-jdbc"));
    }

    @Test
    void enabledWithoutTransactionAwareSendsFailsStartup() {
        this.runner.withPropertyValues("delayqueue.producer.outbox.enabled=true", "delayqueue.producer.transaction-aware=false")
                .run(context -> assertThat(failure(context)).hasMessageContaining("transaction-aware"));
    }

    @Test
    void settingsOutOfRangeFailStartupNamingTheProperty() {
        rejected("relay-after=-1s", "delayqueue.producer.outbox.relay-after");
        rejected("relay-interval=0s", "delayqueue.producer.outbox.relay-interval");
        rejected("relay-batch-size=0", "delayqueue.producer.outbox.relay-batch-size");
        rejected("relay-batch-size=10001", "delayqueue.producer.outbox.relay-batch-size");
        rejected("max-attempts=0", "delayqueue.producer.outbox.max-attempts");
    }

    private void rejected(String setting, String property) {
        this.runner.withPropertyValues("delayqueue.producer.outbox.enabled=true", "delayqueue.producer.outbox." + setting)
                .run(context -> assertThat(failure(context)).hasMessageContaining(property));
    }

    private static Throwable failure(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        Throwable failure = context.getStartupFailure();
        while (!(failure instanceof DelayQueueConfigurationException) && failure.getCause() != null) {
            failure = failure.getCause();
        }
        assertThat(failure).isInstanceOf(DelayQueueConfigurationException.class);
        return failure;
    }
}
