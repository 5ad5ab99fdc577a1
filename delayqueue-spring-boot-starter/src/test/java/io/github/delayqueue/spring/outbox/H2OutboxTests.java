package io.github.delayqueue.spring.outbox;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The outbox contract on H2 (an embedded database: the table is created by default), and H2-only cases. */
@ExtendWith(OutputCaptureExtension.class)
class H2OutboxTests extends OutboxContractTests {

    @Override
    String[] databaseProperties() {
        return new String[] { "spring.datasource.url=jdbc:h2:mem:outbox-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1" };
    }

    /**
     * Issue 36: a send's dedup window is part of the stored body (the same column on every database, so tested on H2 only), so the relay writes it as the send gave it, and a
     * later committed send under the acknowledged id is refused by the after-commit write and by the relay alike.
     */
    @Test
    void aDedupWindowTravelsThroughTheOutbox() {
        runner().run(context -> {
            clear(context);
            SendOptions once = SendOptions.id("welcome-1").withDedupWindow(Duration.ofDays(1));
            TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
            DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
            this.redis.stop();
            try {
                transaction.executeWithoutResult(status -> template.send(OrderQueues.PRODUCER_ONLY, "v1", Duration.ZERO, once));
            } finally {
                this.redis.start();
            }
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0); // relayed
            List<String> received = new CopyOnWriteArrayList<>();
            DelayQueueConsumer consumer = this.client.newConsumer("PRODUCER_ONLY", String.class,
                    (payload, message) -> received.add(message.id() + "=" + payload), ConsumerOptions.DEFAULTS);
            consumer.start();
            try {
                await().atMost(DEADLINE).until(() -> received.contains("welcome-1=v1") && payloadOf("welcome-1") == null);
            } finally {
                consumer.stop();
            }
            transaction.executeWithoutResult(status -> template.send(OrderQueues.PRODUCER_ONLY, "v2", Duration.ZERO, once));
            assertThat(payloadOf("welcome-1")).as("refused by the after-commit write").isNull();
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0);
            assertThat(payloadOf("welcome-1")).as("and not brought in by the relay").isNull();
            assertThat(received).containsExactly("welcome-1=v1");
        });
    }

    /** A transaction manager of another resource: it holds no connection of the DataSource. */
    static final class OtherResourceTransactionManager extends AbstractPlatformTransactionManager {

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
        }
    }

    @Test
    void aSendInATransactionOfAnotherResourceIsWrittenAfterTheCommitWithoutTheOutboxAndThatIsLoggedOnce(
            CapturedOutput output) {
        runner().run(context -> {
            clear(context);
            DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
            TransactionTemplate other = new TransactionTemplate(new OtherResourceTransactionManager());
            for (String id : new String[] { "other-1", "other-2" }) {
                other.executeWithoutResult(status -> {
                    template.send(OrderQueues.ORDER_TIMEOUT, id, Duration.ofHours(1), SendOptions.id(id));
                    assertThat(this.client.cancel("ORDER_TIMEOUT", id)).as("deferred to the commit").isFalse();
                });
                assertThat(this.client.cancel("ORDER_TIMEOUT", id)).as("written after the commit").isTrue();
            }
            assertThat(rows(context, "")).isZero();
            assertThat(output.toString().split("does not run on the outbox's DataSource", -1)).hasSize(2);
        });
    }

    record OrderPaid(String id) {
    }

    /** A common Spring pattern: a message sent when the order's transaction has committed. */
    static class SendsAfterCommit {

        final DelayQueueTemplate template;
        final List<String> sent = new CopyOnWriteArrayList<>();
        final List<Throwable> failed = new CopyOnWriteArrayList<>();

        SendsAfterCommit(DelayQueueTemplate template) {
            this.template = template;
        }

        @TransactionalEventListener // AFTER_COMMIT
        void on(OrderPaid event) {
            try {
                this.sent.add(this.template.send(OrderQueues.REMINDER, event.id(), Duration.ofHours(1),
                        SendOptions.id(event.id())));
            } catch (RuntimeException e) {
                this.failed.add(e);
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ListenerApp {

        @Bean
        SendsAfterCommit sendsAfterCommit(DelayQueueTemplate template) {
            return new SendsAfterCommit(template);
        }
    }

    /**
     * Issue 31 item 2: a send from an {@code @TransactionalEventListener(AFTER_COMMIT)} runs after the commit, when
     * the transaction's own rows were written. With Redis down then, it is kept in the outbox (a row of its own) and
     * relayed, and the listener sees no failure.
     */
    @Test
    void aSendFromAnAfterCommitListenerIsKeptInTheOutboxWhenRedisIsDown() {
        runner().withUserConfiguration(ListenerApp.class).run(context -> {
            clear(context);
            this.redis.stop();
            try {
                context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                    context.getBean(JdbcTemplate.class).update("insert into orders (id) values ('paid-1')");
                    context.publishEvent(new OrderPaid("paid-1"));
                });
                SendsAfterCommit listener = context.getBean(SendsAfterCommit.class);
                assertThat(listener.failed).isEmpty();
                assertThat(listener.sent).containsExactly("paid-1");
                assertThat(rows(context, "where message_id = 'paid-1'")).isEqualTo(1);
            } finally {
                this.redis.start();
            }
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0);
            assertThat(this.client.cancel("REMINDER", "paid-1")).as("relayed").isTrue();
        });
    }

    /** Redis up: the listener's send is in Redis when it returns, and its row is deleted without the relay. */
    @Test
    void aSendFromAnAfterCommitListenerIsWrittenAtOnce() {
        runner().withUserConfiguration(ListenerApp.class).run(context -> {
            clear(context);
            context.getBean(TransactionTemplate.class).executeWithoutResult(status -> context.publishEvent(new OrderPaid("paid-2")));
            assertThat(this.client.cancel("REMINDER", "paid-2")).isTrue();
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0);
            assertThat(context.getBean(OutboxRelay.class).relayed()).isZero();
        });
    }

    /** Issue 31 item 2: a send from another synchronization's afterCommit, Redis down: kept in the outbox too. */
    @Test
    void aSendFromAnotherSynchronizationsAfterCommitIsKeptInTheOutboxWhenRedisIsDown() {
        runner().run(context -> {
            clear(context);
            DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
            this.redis.stop();
            try {
                context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                    template.send(OrderQueues.REMINDER, "own", Duration.ofHours(1), SendOptions.id("own-3"));
                    TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                        @Override
                        public void afterCommit() {
                            template.send(OrderQueues.REMINDER, "late", Duration.ofHours(1), SendOptions.id("late-3"));
                        }
                    });
                });
                assertThat(rows(context, "where message_id in ('own-3', 'late-3')")).isEqualTo(2);
            } finally {
                this.redis.start();
            }
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0);
            assertThat(this.client.cancel("REMINDER", "own-3")).isTrue();
            assertThat(this.client.cancel("REMINDER", "late-3")).isTrue();
        });
    }

    /**
     * Issue 31 item 4: a table created by an earlier release (no namespace column) gets the column from the schema
     * script, and its rows stay relayable by an application that declares their queue.
     */
    @Test
    void aTableOfAnEarlierReleaseGetsTheNamespaceColumnAndItsRowsAreRelayed() {
        String url = "jdbc:h2:mem:outbox-old-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
        String body = this.client.prepare("PRODUCER_ONLY", List.of(io.github.delayqueue.core.SendRequest.of("old",
                Duration.ofHours(1)))).messages().get(0).body();
        JdbcTemplate old = new JdbcTemplate(new org.springframework.jdbc.datasource.DriverManagerDataSource(url, "sa", ""));
        old.execute("""
                CREATE TABLE delayqueue_outbox (
                    id              BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                    queue_code      VARCHAR(255)                NOT NULL,
                    message_id      VARCHAR(256)                NOT NULL,
                    send_mode       VARCHAR(16)                 NOT NULL,
                    delay_ms        BIGINT,
                    due_at_ms       BIGINT,
                    body            CHARACTER LARGE OBJECT      NOT NULL,
                    created_at      TIMESTAMP(6) WITH TIME ZONE NOT NULL,
                    next_attempt_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
                    attempts        INTEGER                     NOT NULL DEFAULT 0,
                    last_error      VARCHAR(1000),
                    parked_at       TIMESTAMP(6) WITH TIME ZONE
                )""");
        old.update("insert into delayqueue_outbox (queue_code, message_id, send_mode, delay_ms, body, created_at,"
                + " next_attempt_at, attempts) values ('PRODUCER_ONLY', 'old-1', 'IF_ABSENT', 3600000, ?, current_timestamp,"
                + " current_timestamp, 0)", body);
        runner().withPropertyValues("spring.datasource.url=" + url).run(context -> {
            assertThat(context).hasNotFailed();
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0);
            assertThat(this.client.cancel("PRODUCER_ONLY", "old-1")).isTrue();
        });
    }
}
