package io.github.delayqueue.spring.outbox;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.faults.FaultSupport;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.DelayQueueOutboxAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The producer that {@code OutboxKilledProducerTest} runs in a JVM of its own and SIGKILLs: it commits
 * {@code orders.count} orders, each with its payment timeout sent in the order's transaction, with the outbox on.
 * Every tenth order's after-commit write is held (the test hook: a synchronization ordered before the starter's
 * blocks in {@code afterCommit}, and keeps its connection: the test gives the pool room), so the kill finds those orders committed and their messages not in Redis. Prints
 * {@code ALL COMMITTED} once every transaction has committed. No component scanning: only the auto-configurations
 * it imports.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
        JdbcTemplateAutoConfiguration.class, TransactionAutoConfiguration.class, DelayQueueAutoConfiguration.class,
        DelayQueueOutboxAutoConfiguration.class })
public class OutboxProducerMain {

    public static void main(String[] args) throws Exception {
        FaultSupport.haltAfter(120);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(OutboxProducerMain.class)
                .web(WebApplicationType.NONE).run(args);
        int count = Integer.parseInt(context.getEnvironment().getRequiredProperty("orders.count"));
        Duration delay = Duration.parse(context.getEnvironment().getRequiredProperty("orders.delay"));
        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
        TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
        DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
        jdbc.execute("create table if not exists orders (id varchar(40) primary key)");
        CountDownLatch committed = new CountDownLatch(count);
        ExecutorService heldThreads = Executors.newCachedThreadPool();
        for (int i = 0; i < count; i++) {
            String id = "order:" + i;
            boolean hold = i % 10 == 0;
            Runnable order = () -> {
                transactions.executeWithoutResult(status -> {
                    jdbc.update("insert into orders (id) values (?)", id);
                    template.send(OrderQueues.ORDER_TIMEOUT, id, delay, SendOptions.id(id));
                    if (hold) {
                        TransactionSynchronizationManager.registerSynchronization(new HoldAfterCommit(committed));
                    }
                });
                if (!hold) {
                    committed.countDown();
                }
            };
            if (hold) {
                heldThreads.execute(order);
            } else {
                order.run();
            }
        }
        committed.await();
        System.out.println("ALL COMMITTED " + count);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // until the SIGKILL
    }

    /** Runs before the starter's after-commit write (highest precedence) and never returns. */
    private record HoldAfterCommit(CountDownLatch committed) implements TransactionSynchronization {

        @Override
        public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE;
        }

        @Override
        public void afterCommit() {
            this.committed.countDown();
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
