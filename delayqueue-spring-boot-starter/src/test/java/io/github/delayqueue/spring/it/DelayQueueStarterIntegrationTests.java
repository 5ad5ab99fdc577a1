package io.github.delayqueue.spring.it;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueConsumerRegistry;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The starter in a Spring Boot application against a real Redis ({@link TestRedis}): handlers,
 * template, admin, transactions.
 */
@SpringBootTest(classes = TestApplication.class)
class DelayQueueStarterIntegrationTests {

    static final String PREFIX = TestRedis.uniquePrefix();
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", TestRedis::url);
        registry.add("delayqueue.key-prefix", () -> PREFIX);
        for (String property : TestApplication.PROPERTIES) {
            String[] pair = property.split("=", 2);
            registry.add(pair[0], () -> pair[1]);
        }
    }

    @AfterAll
    static void deleteKeys() {
        TestRedis.deleteKeys(PREFIX);
    }

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    DelayQueueAdmin admin;

    @Autowired
    DelayQueueConsumerRegistry registry;

    @Autowired
    Inbox inbox;

    @Autowired
    FailingHandler failing;

    @Autowired
    TransactionTemplate transactions;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    @Qualifier("delayQueueHealthIndicator")
    HealthIndicator health;

    @BeforeEach
    void table() {
        this.jdbc.execute("create table if not exists orders (id varchar(40) primary key)");
    }

    @Test
    void aConsumerRunsForEveryQueueWithAHandler() {
        assertThat(this.registry.isRunning()).isTrue();
        assertThat(this.registry.consumers()).extracting(DelayQueueConsumer::queue)
                .containsExactlyInAnyOrder("ORDER_TIMEOUT", "ITEMS", "FAILING", "SLOW", "TX", "REPLACE");
        assertThat(this.registry.consumer(ItQueues.SEND_ONLY)).isEmpty();
        assertThat(this.registry.consumer(ItQueues.TX)).isPresent();
    }

    @Test
    void theRegistryReportsEachHandlerWithItsConcurrencyAndRunningHandlers() {
        assertThat(this.registry.status()).extracting(DelayQueueConsumerRegistry.ConsumerStatus::queue)
                .containsExactlyInAnyOrder("ORDER_TIMEOUT", "ITEMS", "FAILING", "SLOW", "TX", "REPLACE");
        DelayQueueConsumerRegistry.ConsumerStatus tx = this.registry.status().stream()
                .filter(s -> s.queue().equals("TX")).findFirst().orElseThrow();
        assertThat(tx.enabled()).isTrue();
        assertThat(tx.running()).isTrue();
        assertThat(tx.concurrency()).isEqualTo(1);
        assertThat(tx.activeHandlers()).isZero();
        assertThat(tx.handler()).contains("MethodHandlers");
    }

    @Test
    void classLevelHandlerGetsTheTypedPayloadAtItsDueTime() {
        Payloads.OrderTimeout order = new Payloads.OrderTimeout("order-" + System.nanoTime(), 1999,
                Instant.parse("2024-05-01T10:15:30Z"));
        String id = this.template.send(ItQueues.ORDER_TIMEOUT, order, Duration.ofMillis(400));

        Inbox.Delivery delivery = await().atMost(DEADLINE)
                .until(() -> this.inbox.find(ItQueues.ORDER_TIMEOUT, order::equals), java.util.Optional::isPresent)
                .orElseThrow();
        assertThat(delivery.payload()).isEqualTo(order);
        assertThat(delivery.context().id()).isEqualTo(id);
        assertThat(delivery.context().queue()).isEqualTo("ORDER_TIMEOUT");
        assertThat(delivery.context().attempt()).isEqualTo(1);
        assertThat(Duration.between(delivery.context().enqueuedAt(), delivery.context().dueAt()))
                .isGreaterThanOrEqualTo(Duration.ofMillis(400));
        assertThat(delivery.receivedAt()).isAfterOrEqualTo(delivery.context().dueAt())
                .isBefore(delivery.context().dueAt().plusSeconds(2));
    }

    @Test
    void methodLevelHandlerGetsAGenericListWithContextAndHeaders() {
        List<Payloads.Item> items = List.of(new Payloads.Item("sku-" + System.nanoTime(), 2),
                new Payloads.Item("sku-b", 1));
        Instant due = Instant.now().plusMillis(300);
        String id = this.template.sendAt(ItQueues.ITEMS, items, due, SendOptions.none().header("tenant", "acme"));

        Inbox.Delivery delivery = await().atMost(DEADLINE)
                .until(() -> this.inbox.find(ItQueues.ITEMS, items::equals), java.util.Optional::isPresent)
                .orElseThrow();
        assertThat((List<?>) delivery.payload()).hasSize(2).first().isInstanceOf(Payloads.Item.class);
        assertThat(delivery.context().id()).isEqualTo(id);
        assertThat(delivery.context().headers()).isEqualTo(Map.of("tenant", "acme"));
        assertThat(delivery.context().dueAt()).isAfterOrEqualTo(due.minusMillis(1));
    }

    @Test
    void throwingHandlerIsRetriedThenDeadLettered() {
        int before = this.failing.calls.get();
        String id = this.template.send(ItQueues.FAILING, "order-7", Duration.ZERO);

        DeadLetter dead = await().atMost(DEADLINE).until(() -> this.admin.deadLetters(ItQueues.FAILING, 100).stream()
                .filter(d -> d.id().equals(id)).findFirst(), java.util.Optional::isPresent).orElseThrow();
        assertThat(dead.attempts()).isEqualTo(3);
        assertThat(dead.reason()).contains("IllegalStateException").contains("boom: order-7");
        assertThat(dead.payload()).isEqualTo("\"order-7\"");
        assertThat(this.failing.calls.get() - before).isEqualTo(3);
        assertThat(this.admin.stats(ItQueues.FAILING).dead()).isGreaterThanOrEqualTo(1);

        assertThat(this.admin.purge(ItQueues.FAILING, List.of(dead.key()))).isEqualTo(1);
        assertThat(this.admin.deadLetters(ItQueues.FAILING, 100)).noneMatch(d -> d.id().equals(id));
    }

    @Test
    void payloadThatDoesNotBindIsDeadLetteredWithTheReason() {
        String id = this.template.send(ItQueues.ORDER_TIMEOUT, List.of("not", "an", "order"), Duration.ZERO);

        DeadLetter dead = await().atMost(DEADLINE).until(() -> this.admin.deadLetters(ItQueues.ORDER_TIMEOUT, 100)
                .stream().filter(d -> d.id().equals(id)).findFirst(), java.util.Optional::isPresent).orElseThrow();
        assertThat(dead.reason()).isNotBlank().containsIgnoringCase("OrderTimeout");
        assertThat(dead.payload()).isEqualTo("[\"not\",\"an\",\"order\"]");
        assertThat(this.admin.requeue(ItQueues.ORDER_TIMEOUT, List.of("--------:no-such-id"))).isZero();
        this.admin.purge(ItQueues.ORDER_TIMEOUT, List.of(dead.key()));
    }

    @Test
    void cancelAndReplaceById() {
        String run = "run-" + System.nanoTime();
        // paused until the cancels ran: a machine that stalled 300 ms after the send delivered it first
        this.admin.pause(ItQueues.REPLACE);
        try {
            String cancelled = this.template.send(ItQueues.REPLACE, run + "-cancelled", Duration.ofMillis(300),
                    SendOptions.id(run + ":cancel"));
            assertThat(cancelled).isEqualTo(run + ":cancel");
            assertThat(this.template.cancel(ItQueues.REPLACE, cancelled)).isTrue();
            assertThat(this.template.cancel(ItQueues.REPLACE, cancelled)).isFalse();
        } finally {
            this.admin.resume(ItQueues.REPLACE);
        }

        this.template.send(ItQueues.REPLACE, run + "-old", Duration.ofMinutes(10), SendOptions.id(run + ":replace"));
        this.template.send(ItQueues.REPLACE, run + "-ignored", Duration.ZERO, SendOptions.id(run + ":replace")); // if-absent
        this.template.send(ItQueues.REPLACE, run + "-new", Duration.ofMillis(200),
                SendOptions.id(run + ":replace").replaceExisting());
        String marker = this.template.send(ItQueues.REPLACE, run + "-marker", Duration.ofMillis(900));

        await().atMost(DEADLINE).until(() -> this.inbox.find(ItQueues.REPLACE, (run + "-marker")::equals).isPresent());
        List<Object> received = this.inbox.of(ItQueues.REPLACE).stream().map(Inbox.Delivery::payload)
                .filter(p -> ((String) p).startsWith(run)).toList();
        assertThat(received).containsExactly(run + "-new", run + "-marker");
        assertThat(this.inbox.find(ItQueues.REPLACE, (run + "-new")::equals).orElseThrow().context().id())
                .isEqualTo(run + ":replace");
        assertThat(marker).isNotBlank();
    }

    @Test
    void rescheduleMovesAPendingMessage() {
        String run = "resched-" + System.nanoTime();
        String id = this.template.send(ItQueues.REPLACE, run, Duration.ofHours(1));
        assertThat(this.template.reschedule(ItQueues.REPLACE, id, Duration.ofMillis(100))).isTrue();
        await().atMost(DEADLINE).until(() -> this.inbox.find(ItQueues.REPLACE, run::equals).isPresent());
        assertThat(this.template.reschedule(ItQueues.REPLACE, id, Duration.ofMillis(100))).isFalse();
    }

    @Test
    void sendInARolledBackTransactionNeverArrivesAndOneInACommittedTransactionDoes() {
        String run = "tx-" + System.nanoTime();
        this.transactions.executeWithoutResult(status -> {
            this.jdbc.update("insert into orders (id) values (?)", run + "-rolled-back");
            this.template.send(ItQueues.TX, run + "-rolled-back", Duration.ZERO);
            status.setRollbackOnly();
        });
        String committedId = this.transactions.execute(status -> {
            this.jdbc.update("insert into orders (id) values (?)", run + "-committed");
            String id = this.template.send(ItQueues.TX, run + "-committed", Duration.ofMillis(300));
            // deferred: nothing in Redis before the commit, and the id is already final
            assertThat(this.admin.stats(ItQueues.TX).pending()).isZero();
            return id;
        });

        Inbox.Delivery delivery = await().atMost(DEADLINE)
                .until(() -> this.inbox.find(ItQueues.TX, (run + "-committed")::equals), java.util.Optional::isPresent)
                .orElseThrow();
        assertThat(delivery.context().id()).isEqualTo(committedId);
        assertThat(this.inbox.find(ItQueues.TX, (run + "-rolled-back")::equals)).isEmpty();
        assertThat(this.jdbc.queryForList("select id from orders where id like ?", String.class, run + "%"))
                .containsExactly(run + "-committed");
    }

    @Test
    void sendsOfARolledBackNestedTransactionAreDroppedAndTheRestAreWritten() {
        String run = "nested-" + System.nanoTime();
        TransactionTemplate nested = new TransactionTemplate(this.transactions.getTransactionManager());
        nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        this.transactions.executeWithoutResult(status -> {
            send(run + "-outer");
            nested.executeWithoutResult(inner -> {
                send(run + "-dropped-1");
                inner.setRollbackOnly();
            });
            nested.executeWithoutResult(inner -> send(run + "-nested"));
        });
        // the first send of this transaction is made inside the savepoint that is rolled back
        this.transactions.executeWithoutResult(status -> {
            nested.executeWithoutResult(inner -> {
                send(run + "-dropped-2");
                inner.setRollbackOnly();
            });
            send(run + "-after");
        });

        // the commit returned only after the deferred sends were written: cancel tells which ones exist
        for (String suffix : List.of("-outer", "-nested", "-after")) {
            assertThat(this.template.cancel(ItQueues.TX, run + suffix)).as(suffix).isTrue();
        }
        for (String suffix : List.of("-dropped-1", "-dropped-2")) {
            assertThat(this.template.cancel(ItQueues.TX, run + suffix)).as(suffix).isFalse();
        }
    }

    /** Far out, so that the message is still pending when the test looks for it. */
    private void send(String id) {
        this.template.send(ItQueues.TX, id, Duration.ofHours(1), SendOptions.id(id));
    }

    @Test
    void badInputThrowsAtTheCallSiteInsideATransaction() {
        String run = "bad-" + System.nanoTime();
        this.transactions.executeWithoutResult(status -> {
            assertThatIllegalArgumentException().isThrownBy(() -> this.template.send(ItQueues.TX, null, Duration.ZERO))
                    .withMessageContaining("payload must not be null");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> this.template.send(ItQueues.TX, run, Duration.ofSeconds(-1)))
                    .withMessageContaining("delay must not be negative");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> this.template.send(ItQueues.TX, "x".repeat(2000), Duration.ZERO))
                    .withMessageContaining("over the limit of 1024");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> this.template.sendAll(ItQueues.TX, List.of(SendRequest.of(run, Duration.ZERO,
                            SendOptions.id("dup")), SendRequest.of(run, Duration.ZERO, SendOptions.id("dup")))))
                    .withMessageContaining("duplicate id 'dup'");
            assertThatIllegalArgumentException().isThrownBy(() -> this.template.send(null, run, Duration.ZERO));
            this.template.send(ItQueues.TX, run + "-ok", Duration.ZERO);
        });
        await().atMost(DEADLINE).until(() -> this.inbox.find(ItQueues.TX, (run + "-ok")::equals).isPresent());
        assertThat(this.inbox.of(ItQueues.TX)).filteredOn(d -> ((String) d.payload()).startsWith(run)).hasSize(1);
    }

    @Test
    void batchInATransactionAndSendsFromAfterCommitCallbacksArrive() {
        String run = "batch-" + System.nanoTime();
        List<String> ids = this.transactions.execute(status -> {
            // registered before the template's own synchronization, so it runs its afterCommit first ...
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    DelayQueueStarterIntegrationTests.this.template.send(ItQueues.TX, run + "-from-after-commit",
                            Duration.ZERO);
                }
            });
            List<String> batch = this.template.sendAll(ItQueues.TX, List.of(SendRequest.of(run + "-1", Duration.ZERO),
                    SendRequest.of(run + "-2", Duration.ZERO, SendOptions.id(run + ":2"))));
            // ... and this one after it: the send happens while Spring runs afterCommit callbacks
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    DelayQueueStarterIntegrationTests.this.template.send(ItQueues.TX, run + "-late", Duration.ZERO);
                }
            });
            return batch;
        });
        assertThat(ids).hasSize(2).element(1).isEqualTo(run + ":2");
        await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.inbox.of(ItQueues.TX)).extracting(Inbox.Delivery::payload)
                .contains(run + "-1", run + "-2", run + "-from-after-commit", run + "-late"));
    }

    @Test
    void adminListsStatsOfEveryDeclaredQueue() {
        assertThat(this.admin.codes()).hasSize(ItQueues.values().length);
        assertThat(this.admin.find("SEND_ONLY")).contains(ItQueues.SEND_ONLY);
        assertThat(this.admin.find("NOPE")).isEmpty();
        String id = this.template.send(ItQueues.SEND_ONLY, Map.of("k", "v"), Duration.ofHours(1));
        assertThat(this.admin.stats()).hasSize(ItQueues.values().length)
                .anySatisfy(s -> assertThat(s.queue()).isEqualTo("SEND_ONLY"));
        assertThat(this.admin.stats(ItQueues.SEND_ONLY).pending()).isGreaterThanOrEqualTo(1);
        assertThat(this.template.cancel(ItQueues.SEND_ONLY, id)).isTrue();
    }

    @Test
    void pastDueInstantIsDeliveredAtOnce() {
        Payloads.OrderTimeout order = new Payloads.OrderTimeout("past-" + System.nanoTime(), 1,
                Instant.parse("2024-05-01T10:15:30Z"));
        this.template.sendAt(ItQueues.ORDER_TIMEOUT, order, Instant.now().minus(Duration.ofDays(1)));
        await().atMost(DEADLINE).until(() -> this.inbox.find(ItQueues.ORDER_TIMEOUT, order::equals).isPresent());
    }

    @Test
    void healthIsUpWithTheStatisticsOfEveryQueue() {
        this.template.send(ItQueues.SEND_ONLY, "health", Duration.ofHours(1));
        await().atMost(DEADLINE).untilAsserted(() -> {
            var health = this.health.health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).extractingByKey("queues").asInstanceOf(
                    org.assertj.core.api.InstanceOfAssertFactories.MAP).containsKeys("SEND_ONLY", "ORDER_TIMEOUT");
        });
    }
}
