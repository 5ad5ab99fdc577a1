package io.github.delayqueue.spring.autoconfigure;

import java.util.List;

import javax.sql.DataSource;

import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.core.QueueCatalog;
import io.github.delayqueue.spring.core.SendOutbox;
import io.github.delayqueue.spring.health.DelayQueueOutboxHealthIndicator;
import io.github.delayqueue.spring.outbox.JdbcSendOutbox;
import io.github.delayqueue.spring.outbox.OutboxMetrics;
import io.github.delayqueue.spring.outbox.OutboxRelay;
import io.github.delayqueue.spring.outbox.OutboxSettings;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The transactional outbox, with {@code delayqueue.producer.outbox.enabled=true}, spring-jdbc and one
 * {@link DataSource}: the table's schema initializer, the relay, the {@link SendOutbox} the
 * transaction-aware template writes to, a health indicator and, with Micrometer, the outbox's meters. With the property on and no DataSource, the template's
 * auto-configuration fails startup with the reason.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class,
        afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass(name = { "org.springframework.jdbc.core.JdbcTemplate",
        "org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer",
        "org.springframework.transaction.support.TransactionSynchronizationManager" })
@ConditionalOnBooleanProperty("delayqueue.producer.outbox.enabled")
@ConditionalOnBean(QueueCatalog.class)
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(DelayQueueOutboxProperties.class)
public final class DelayQueueOutboxAutoConfiguration {

    @Bean
    OutboxRelay delayQueueOutboxRelay(DataSource dataSource, QueueCatalog catalog, DelayQueueOutboxProperties properties,
            DelayQueueProperties queues, Environment environment) {
        OutboxSettings settings;
        try {
            settings = properties.toSettings(environment.getProperty("spring.application.name", queues.getKeyPrefix()));
        } catch (IllegalArgumentException e) {
            throw new DelayQueueConfigurationException(e.getMessage(), "Set the property within its range.", e);
        }
        try {
            return OutboxRelay.create(dataSource, catalog, settings);
        } catch (IllegalStateException e) {
            throw new DelayQueueConfigurationException("delayqueue.producer.outbox.enabled=true: " + e.getMessage(),
                    "Use the outbox with PostgreSQL, MariaDB or H2, or turn it off.", e);
        }
    }

    /** The table, from the starter's script for the database, when {@code initialize-schema} says so. */
    @Bean
    @ConditionalOnMissingBean(name = "delayQueueOutboxSchemaInitializer")
    DataSourceScriptDatabaseInitializer delayQueueOutboxSchemaInitializer(DataSource dataSource, OutboxRelay relay,
            DelayQueueOutboxProperties properties) {
        DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
        settings.setSchemaLocations(List.of("classpath:" + OutboxRelay.SCHEMA_FOLDER + "schema-" + relay.platform() + ".sql"));
        settings.setMode(properties.getInitializeSchema());
        return new DataSourceScriptDatabaseInitializer(dataSource, settings);
    }

    @Bean
    SendOutbox delayQueueSendOutbox(DataSource dataSource, OutboxRelay relay) {
        return new JdbcSendOutbox(dataSource, relay);
    }

    /** Gauges of the rows and a counter of relayed messages, bound by Boot to the application's registry. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
    static class OutboxMetricsConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "delayQueueOutboxMetrics")
        OutboxMetrics delayQueueOutboxMetrics(OutboxRelay relay) {
            return new OutboxMetrics(relay);
        }
    }

    /** Rows waiting for Redis and parked rows, next to the queues' health; off with the queues' indicator. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    @ConditionalOnEnabledHealthIndicator("delayqueue")
    static class OutboxHealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "delayQueueOutboxHealthIndicator")
        HealthIndicator delayQueueOutboxHealthIndicator(OutboxRelay relay) {
            return new DelayQueueOutboxHealthIndicator(relay);
        }
    }
}
