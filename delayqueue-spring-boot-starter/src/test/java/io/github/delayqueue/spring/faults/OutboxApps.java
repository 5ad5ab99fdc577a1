package io.github.delayqueue.spring.faults;

import io.github.delayqueue.spring.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.DelayQueueOutboxAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.DelayQueueRedissonConfigCustomizer;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

/** An application with the outbox on, as the outbox fault tests run it: a database, a Redis, the fixture queues. */
final class OutboxApps {

    private OutboxApps() {
    }

    /**
     * Fail a send at once while Redis is down (connection refused, no retries). A bean, not a nested
     * {@code @Configuration}: {@link ShutdownApp} scans this package.
     */
    private static final DelayQueueRedissonConfigCustomizer FAIL_FAST = config -> config.useSingleServer()
            .setConnectTimeout(300).setTimeout(1_000).setRetryAttempts(0);

    static ApplicationContextRunner runner(String redisUrl, String prefix, String jdbcUrl) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
                        TransactionAutoConfiguration.class, DelayQueueAutoConfiguration.class,
                        DelayQueueOutboxAutoConfiguration.class))
                .withBean("failFast", DelayQueueRedissonConfigCustomizer.class, () -> FAIL_FAST)
                .withPropertyValues("spring.data.redis.url=" + redisUrl, "delayqueue.key-prefix=" + prefix,
                        "delayqueue.scan-packages=" + OrderQueues.class.getPackageName(), "spring.datasource.url=" + jdbcUrl,
                        "delayqueue.producer.outbox.enabled=true", "delayqueue.producer.outbox.initialize-schema=always");
    }
}
