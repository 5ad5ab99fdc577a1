package io.github.delayqueue.spring.outbox;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.DelayQueueRedissonConfigCustomizer;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A send that fails after the commit (Redis unreachable) must not cut Spring's after-commit loop short: the
 * application's later after-commit work still runs, and the failure is logged, not thrown at the caller, whose
 * data is committed.
 */
@ExtendWith(OutputCaptureExtension.class)
class AfterCommitFailureTests {

    record OrderSaved(String id) {
    }

    static class Listener {

        final List<String> heard = new CopyOnWriteArrayList<>();

        @TransactionalEventListener
        void on(OrderSaved event) {
            this.heard.add(event.id());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class App {

        @Bean
        Listener listener() {
            return new Listener();
        }

        /** Redis is unreachable: fail the send quickly rather than after Redisson's 4 s of retries. */
        @Bean
        DelayQueueRedissonConfigCustomizer failFast() {
            return config -> config.useSingleServer().setConnectTimeout(300).setTimeout(300).setRetryAttempts(0);
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
                    TransactionAutoConfiguration.class, DelayQueueAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:" + TestRedis.freePort(),
                    "spring.datasource.url=jdbc:h2:mem:after-commit-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1",
                    "delayqueue.scan-packages=" + OrderQueues.class.getPackageName());

    @Test
    void aFailedSendAfterCommitLetsLaterAfterCommitWorkRunAndIsLogged(CapturedOutput output) {
        this.runner.run(context -> {
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            jdbc.execute("create table orders (id varchar(40) primary key)");
            TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
            ApplicationEventPublisher events = context;
            transactions.executeWithoutResult(status -> {
                jdbc.update("insert into orders (id) values ('o-1')");
                context.getBean(DelayQueueTemplate.class).send(OrderQueues.ORDER_TIMEOUT, "o-1", Duration.ofMinutes(15));
                events.publishEvent(new OrderSaved("o-1")); // its listener runs after our send, in the same loop
            });
            assertThat(context.getBean(Listener.class).heard).containsExactly("o-1");
            assertThat(jdbc.queryForList("select id from orders", String.class)).containsExactly("o-1");
            assertThat(output).contains("Transaction committed but sending to queue 'ORDER_TIMEOUT' failed");
        });
    }
}
