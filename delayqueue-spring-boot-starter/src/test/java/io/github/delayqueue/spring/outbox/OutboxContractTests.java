package io.github.delayqueue.spring.outbox;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.PreparedSend;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.DelayQueueHealthContributorAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.DelayQueueOutboxAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.DelayQueueRedissonConfigCustomizer;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import io.github.delayqueue.spring.core.SendOutbox;
import io.github.delayqueue.testing.TestRedis;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The transactional outbox against a real database and a real Redis; each database runs the same contract
 * ({@link H2OutboxTests}, {@link PostgresOutboxTests}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OutboxContractTests {

    static final Duration DEADLINE = Duration.ofSeconds(30);

    final StoppableRedis redis = new StoppableRedis();
    final String prefix = TestRedis.uniquePrefix();
    RedissonClient redisson;
    DelayQueueClient client;

    /** The database: {@code spring.datasource.*} and {@code initialize-schema}. */
    abstract String[] databaseProperties();

    @BeforeAll
    void startRedis() {
        this.redis.start();
        Config config = new Config();
        config.useSingleServer().setAddress(this.redis.url()).setTimeout(2_000);
        this.redisson = Redisson.create(config);
        this.client = DelayQueueClient.create(this.redisson,
                io.github.delayqueue.core.ClientOptions.builder().keyPrefix(this.prefix).build());
    }

    @AfterAll
    void stopRedis() {
        this.redisson.shutdown();
        this.redis.close();
    }

    /** Fail a send in about a second while Redis is down, instead of Redisson's 4-6 s of retries. */
    @Configuration(proxyBeanMethods = false)
    static class FailFast {

        @Bean
        DelayQueueRedissonConfigCustomizer failFast() {
            return config -> config.useSingleServer().setConnectTimeout(300).setTimeout(500).setRetryAttempts(0);
        }
    }

    ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
                        TransactionAutoConfiguration.class, DelayQueueAutoConfiguration.class,
                        DelayQueueOutboxAutoConfiguration.class, DelayQueueHealthContributorAutoConfiguration.class))
                .withUserConfiguration(FailFast.class)
                .withPropertyValues("spring.data.redis.url=" + this.redis.url(), "delayqueue.key-prefix=" + this.prefix,
                        "delayqueue.scan-packages=" + OrderQueues.class.getPackageName(),
                        "delayqueue.producer.outbox.enabled=true", "delayqueue.producer.outbox.relay-after=2s",
                        "delayqueue.producer.outbox.relay-interval=100ms")
                .withPropertyValues(databaseProperties());
    }

    static long rows(AssertableApplicationContext context, String where) {
        return context.getBean(JdbcTemplate.class).queryForObject("select count(*) from delayqueue_outbox " + where, Long.class);
    }

    static void clear(AssertableApplicationContext context) {
        context.getBean(JdbcTemplate.class).update("delete from delayqueue_outbox");
        context.getBean(JdbcTemplate.class).execute("create table if not exists orders (id varchar(40) primary key)");
    }

    @Test
    void aCommittedSendReachesRedisAtOnceAndItsRowIsDeleted() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            clear(context);
            DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
            context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                context.getBean(JdbcTemplate.class).update("insert into orders (id) values ('commit-1')");
                template.send(OrderQueues.ORDER_TIMEOUT, "commit-1", Duration.ofHours(1), SendOptions.id("commit-1"));
            });
            // written before the commit returned, by the after-commit write, not by the relay
            assertThat(this.client.cancel("ORDER_TIMEOUT", "commit-1")).isTrue();
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0);
            assertThat(context.getBean(OutboxRelay.class).relayed()).isZero();
        });
    }

    @Test
    void aRolledBackSendLeavesNeitherARowNorAMessage() {
        runner().run(context -> {
            clear(context);
            DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
            context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                template.send(OrderQueues.ORDER_TIMEOUT, "rollback-1", Duration.ofHours(1), SendOptions.id("rollback-1"));
                status.setRollbackOnly();
            });
            assertThat(rows(context, "")).isZero();
            assertThat(this.client.cancel("ORDER_TIMEOUT", "rollback-1")).isFalse();
        });
    }

    @Test
    void badInputThrowsAtTheCallAndWritesNoRow() {
        runner().run(context -> {
            clear(context);
            DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
            TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
            transactions.executeWithoutResult(status -> {
                assertThatIllegalArgumentException()
                        .isThrownBy(() -> template.send(OrderQueues.ORDER_TIMEOUT, "bad", Duration.ofSeconds(-1)));
                assertThatIllegalArgumentException().isThrownBy(() -> template.send(OrderQueues.ORDER_TIMEOUT, null, Duration.ZERO));
                assertThatIllegalArgumentException().isThrownBy(() -> template.send(OrderQueues.ORDER_TIMEOUT, "bad",
                        Duration.ZERO, SendOptions.id(" ")));
            });
            TransactionTemplate readOnly = new TransactionTemplate(transactions.getTransactionManager());
            readOnly.setReadOnly(true);
            readOnly.executeWithoutResult(status -> assertThatIllegalStateException()
                    .isThrownBy(() -> template.send(OrderQueues.ORDER_TIMEOUT, "read-only", Duration.ZERO))
                    .withMessageContaining("read-only transaction"));
            assertThat(rows(context, "")).isZero();
            assertThat(this.client.stats("ORDER_TIMEOUT").pending()).isZero();
        });
    }

    @Test
    void aSendCommittedWhileRedisIsDownIsRelayedWhenItIsBackAndIsNeverEarly() throws Exception {
        List<MessageContext> received = new CopyOnWriteArrayList<>();
        runner().run(context -> {
            clear(context);
            DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
            this.redis.stop();
            Instant before = Instant.now();
            try {
                context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                    context.getBean(JdbcTemplate.class).update("insert into orders (id) values ('down-1')");
                    template.send(OrderQueues.REMINDER, "down-1", Duration.ofSeconds(8), SendOptions.id("down-1"));
                });
                // the commit returned normally; the message waits in the table
                assertThat(context.getBean(JdbcTemplate.class).queryForList("select id from orders", String.class))
                        .contains("down-1");
                assertThat(rows(context, "where message_id = 'down-1'")).isEqualTo(1);
                Thread.sleep(1_000); // Redis stays down a while: the relay must count this time in
            } finally {
                this.redis.start();
            }
            DelayQueueConsumer consumer = this.client.newConsumer("REMINDER", String.class,
                    (payload, ctx) -> received.add(ctx), ConsumerOptions.DEFAULTS);
            consumer.start();
            try {
                await().atMost(DEADLINE).until(() -> received.size() == 1);
                await().atMost(DEADLINE).until(() -> rows(context, "") == 0);
            } finally {
                consumer.stop();
            }
            MessageContext delivery = received.get(0);
            assertThat(delivery.id()).isEqualTo("down-1");
            assertThat(delivery.dueAt()).as("never early: due 8 s after the send, not 8 s after the relay (5 s later)")
                    .isAfterOrEqualTo(before.plusSeconds(8).minusMillis(5))
                    .isBefore(before.plusSeconds(8).plusMillis(3_000));
            assertThat(context.getBean(OutboxRelay.class).relayed()).isEqualTo(1);
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            context.getBean(OutboxMetrics.class).bindTo(meters);
            assertThat(meters.get("delayqueue.outbox.relayed").functionCounter().count()).isEqualTo(1.0);
        });
    }

    /**
     * A send's priority, and its queue's {@code default-priority} for a send without one, are part of the body the send
     * prepares at the call: the after-commit write and the relay (the rows of a commit while Redis was down) write them
     * as given.
     */
    @Test
    void aSendsPriorityAndItsQueuesDefaultReachRedisThroughTheOutboxAndTheRelay() {
        runner().withPropertyValues("delayqueue.queues.PRODUCER_ONLY.default-priority=1").run(context -> {
            assertThat(context).hasNotFailed();
            clear(context);
            DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
            TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
            transactions.executeWithoutResult(status -> {
                template.send(OrderQueues.PRODUCER_ONLY, "urgent", Duration.ofHours(1), SendOptions.id("prio-1").priority(8));
                template.send(OrderQueues.PRODUCER_ONLY, "routine", Duration.ofHours(1), SendOptions.id("prio-2"));
            });
            assertThat(priorityOf("prio-1")).isEqualTo(8);
            assertThat(priorityOf("prio-2")).as("the queue's default-priority").isEqualTo(1);
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0);

            long relayed = context.getBean(OutboxRelay.class).relayed();
            this.redis.stop();
            try {
                transactions.executeWithoutResult(status -> {
                    template.send(OrderQueues.PRODUCER_ONLY, "urgent", Duration.ofHours(1), SendOptions.id("prio-3").priority(9));
                    template.sendAll(OrderQueues.PRODUCER_ONLY, List.of(
                            SendRequest.of("routine", Duration.ofHours(1), SendOptions.id("prio-4")),
                            SendRequest.of("lowest", Duration.ofHours(1), SendOptions.id("prio-5").priority(0))));
                });
                assertThat(rows(context, "")).as("the after-commit write failed: the rows wait").isEqualTo(3);
            } finally {
                this.redis.start(); // empty: the first two are gone with the old process
            }
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0);
            assertThat(context.getBean(OutboxRelay.class).relayed()).isEqualTo(relayed + 3);
            assertThat(priorityOf("prio-3")).isEqualTo(9);
            assertThat(priorityOf("prio-4")).as("the queue's default-priority, relayed").isEqualTo(1);
            assertThat(priorityOf("prio-5")).isZero();
            for (String id : List.of("prio-3", "prio-4", "prio-5")) {
                assertThat(this.client.cancel("PRODUCER_ONLY", id)).isTrue();
            }
        });
    }

    int priorityOf(String id) {
        return this.client.message("PRODUCER_ONLY", id).orElseThrow(() -> new AssertionError("no message " + id)).priority();
    }

    /** Commits a send of {@code payload} under {@code id} with REPLACE, in a transaction of its own. */
    static void commitReplace(AssertableApplicationContext context, String id, String payload) {
        context.getBean(TransactionTemplate.class).executeWithoutResult(status -> context.getBean(DelayQueueTemplate.class)
                .send(OrderQueues.PRODUCER_ONLY, payload, Duration.ofHours(1), SendOptions.id(id).replaceExisting()));
    }

    String payloadOf(String id) {
        return this.client.message("PRODUCER_ONLY", id).map(m -> m.payload()).orElse(null);
    }

    /** Issue 31 1(a): the relay replays an older REPLACE whose after-commit write failed, after a newer one succeeded. */
    @Test
    void aRelayedOlderReplaceDoesNotOverwriteANewerSend() {
        runner().run(context -> {
            clear(context);
            this.redis.stop();
            try {
                commitReplace(context, "order-42", "v1"); // its after-commit write fails: the row stays
            } finally {
                this.redis.start();
            }
            commitReplace(context, "order-42", "v2"); // written at once
            assertThat(payloadOf("order-42")).isEqualTo("\"v2\"");
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0); // the relay took v1's row
            assertThat(payloadOf("order-42")).isEqualTo("\"v2\"");
            this.client.cancel("PRODUCER_ONLY", "order-42");
        });
    }

    /** Issue 31 1(a), two relays: the newer row is relayed first (the older one locked by another relay), then the older. */
    @Test
    void twoRelaysInEitherOrderLeaveTheNewerSend() throws Exception {
        runner().run(context -> {
            clear(context);
            this.redis.stop();
            try {
                commitReplace(context, "order-43", "v1");
                commitReplace(context, "order-43", "v2");
            } finally {
                this.redis.start();
            }
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            long older = jdbc.queryForObject("select min(id) from delayqueue_outbox", Long.class);
            CountDownLatch locked = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Thread otherRelay = new Thread(() -> context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                jdbc.queryForList("select id from delayqueue_outbox where id = ? for update", older);
                locked.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }), "other-relay");
            otherRelay.start();
            try {
                assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();
                await().atMost(DEADLINE).until(() -> rows(context, "where id <> " + older) == 0);
                assertThat(payloadOf("order-43")).isEqualTo("\"v2\"");
            } finally {
                release.countDown();
                otherRelay.join();
            }
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0);
            assertThat(payloadOf("order-43")).isEqualTo("\"v2\"");
            this.client.cancel("PRODUCER_ONLY", "order-43");
        });
    }

    /** Issue 31 1(b): a send's after-commit write failed, the order is paid and its timeout cancelled; the relay comes later. */
    @Test
    void aCancelledSendIsNotBroughtBackByTheRelay() {
        runner().run(context -> {
            clear(context);
            DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
            this.redis.stop();
            try {
                context.getBean(TransactionTemplate.class).executeWithoutResult(status -> template
                        .send(OrderQueues.PRODUCER_ONLY, "timeout", Duration.ofMinutes(15), SendOptions.id("order-44")));
            } finally {
                this.redis.start();
            }
            context.getBean(TransactionTemplate.class).executeWithoutResult(status -> template
                    .cancel(OrderQueues.PRODUCER_ONLY, "order-44")); // paid
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0);
            assertThat(this.client.message("PRODUCER_ONLY", "order-44")).isEmpty();
        });
    }

    /**
     * Issue 31 1(c): with wait-for-replicas required and no replica, every write of a REPLACE fails after it was
     * written; the relay's retries must not drop the delivery under way (redelivering a due message about once a
     * second).
     */
    @Test
    void relayRetriesOfAnUnreplicatedReplaceDoNotRedeliverIt() throws Exception {
        List<String> deliveries = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        runner().withPropertyValues("delayqueue.producer.wait-for-replicas=1",
                "delayqueue.producer.wait-for-replicas-timeout=20ms", "delayqueue.producer.wait-for-replicas-required=true",
                "delayqueue.producer.outbox.relay-after=200ms")
                .run(context -> {
                    clear(context);
                    DelayQueueConsumer consumer = this.client.newConsumer("PRODUCER_ONLY", String.class, (payload, ctx) -> {
                        deliveries.add(ctx.id() + "@" + ctx.attempt());
                        done.await(20, TimeUnit.SECONDS); // in flight while the relay retries
                    }, ConsumerOptions.DEFAULTS);
                    consumer.start();
                    try {
                        context.getBean(TransactionTemplate.class).executeWithoutResult(status -> context
                                .getBean(DelayQueueTemplate.class).send(OrderQueues.PRODUCER_ONLY, "due", Duration.ZERO,
                                        SendOptions.id("order-45").replaceExisting()));
                        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
                        await().atMost(DEADLINE).until(() -> !deliveries.isEmpty()
                                && jdbc.queryForObject("select coalesce(max(attempts), 0) from delayqueue_outbox", Integer.class) >= 3);
                        assertThat(deliveries).containsExactly("order-45@1");
                    } finally {
                        done.countDown();
                        consumer.stop();
                    }
                });
    }

    /**
     * Issue 31 item 9: with the starter's defaults (wait for 1 replica, not required) on a Redis whose master has no
     * replica, a REPLACE committed in a transaction is written once after the commit: its row goes, the relay never
     * retries it, and its one delivery under way is not dropped and redelivered as in 1(c).
     */
    @Test
    void withTheDefaultsAReplaceOnAMasterWithoutReplicaIsWrittenOnceAndDeliveredOnce() throws Exception {
        List<String> deliveries = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        runner().withPropertyValues("delayqueue.producer.outbox.relay-after=200ms").run(context -> {
            clear(context);
            DelayQueueConsumer consumer = this.client.newConsumer("PRODUCER_ONLY", String.class, (payload, ctx) -> {
                deliveries.add(ctx.id() + "@" + ctx.attempt());
                done.await(20, TimeUnit.SECONDS); // in flight while a relay would retry
            }, ConsumerOptions.DEFAULTS);
            consumer.start();
            try {
                context.getBean(TransactionTemplate.class).executeWithoutResult(status -> context
                        .getBean(DelayQueueTemplate.class).send(OrderQueues.PRODUCER_ONLY, "due", Duration.ZERO,
                                SendOptions.id("order-46").replaceExisting()));
                await().atMost(DEADLINE).until(() -> !deliveries.isEmpty() && rows(context, "") == 0);
                long relayed = context.getBean(OutboxRelay.class).relayed();
                // several relay passes (200 ms apart) later: nothing relayed, still the one delivery
                await().during(Duration.ofMillis(1_000)).atMost(Duration.ofSeconds(5))
                        .until(() -> rows(context, "") == 0 && deliveries.size() == 1);
                assertThat(deliveries).containsExactly("order-46@1");
                assertThat(context.getBean(OutboxRelay.class).relayed()).isEqualTo(relayed);
            } finally {
                done.countDown();
                consumer.stop();
            }
        });
    }

    /**
     * Issue 31 item 4: rows carry their application's namespace and a relay takes only its own, and the rows written
     * before rows had one (a NULL namespace) only for a queue it declares.
     */
    @Test
    void aRelayTakesOnlyItsOwnNamespaceAndOldRowsOfItsQueues() {
        runner().run(context -> {
            clear(context);
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            String body = this.client.prepare("PRODUCER_ONLY", List.of(SendRequest.of("x", Duration.ofHours(1))))
                    .messages().get(0).body();
            String insert = "insert into delayqueue_outbox (namespace, queue_code, message_id, send_mode, delay_ms, body,"
                    + " created_at, next_attempt_at, attempts) values (?, ?, ?, 'IF_ABSENT', 3600000, ?, current_timestamp,"
                    + " current_timestamp, 0)";
            context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                jdbc.update(insert, "another-app", "PRODUCER_ONLY", "theirs-1", body);
                jdbc.update(insert, null, "PRODUCER_ONLY", "legacy-1", body);
                jdbc.update(insert, null, "NOT_OURS", "legacy-2", body);
            });
            await().atMost(DEADLINE).until(() -> rows(context, "where message_id = 'legacy-1'") == 0);
            assertThat(this.client.cancel("PRODUCER_ONLY", "legacy-1")).as("an old row of a declared queue").isTrue();
            // a pass later, the other application's row and the old row of a queue not declared here are untouched
            long relayed = context.getBean(OutboxRelay.class).relayed();
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> rows(context,
                    "where message_id in ('theirs-1', 'legacy-2') and attempts = 0 and parked_at is null") == 2);
            assertThat(context.getBean(OutboxRelay.class).relayed()).isEqualTo(relayed);
            assertThat(this.client.message("PRODUCER_ONLY", "theirs-1")).isEmpty();
            assertThat(context.getBean(OutboxRelay.class).stats().pending()).as("health counts its own rows").isZero();
            // this application's rows carry its namespace (the key prefix: no spring.application.name here)
            PreparedSend mine = this.client.prepare("PRODUCER_ONLY",
                    List.of(SendRequest.of("mine", Duration.ofHours(1), SendOptions.id("mine-1"))));
            context.getBean(TransactionTemplate.class)
                    .executeWithoutResult(status -> context.getBean(SendOutbox.class).write(List.of(mine)));
            assertThat(rows(context, "where message_id = 'mine-1' and namespace = '" + this.prefix + "'")).isEqualTo(1);
            await().atMost(DEADLINE).until(() -> rows(context, "where message_id = 'mine-1'") == 0);
            this.client.cancel("PRODUCER_ONLY", "mine-1");
        });
    }

    @Test
    void rowsACrashLeftAreRelayedUnderTheirIdsAndAnIfAbsentReplayChangesNothing() {
        runner().run(context -> {
            clear(context);
            SendOutbox outbox = context.getBean(SendOutbox.class);
            PreparedSend sent = this.client.prepare("PRODUCER_ONLY",
                    List.of(SendRequest.of("replayed", Duration.ofHours(1), SendOptions.id("crash-1"))));
            PreparedSend unsent = this.client.prepare("PRODUCER_ONLY",
                    List.of(SendRequest.of("relayed", Duration.ofHours(1), SendOptions.id("crash-2"))));
            // committed rows whose after-commit write never ran (a crash): one of them did reach Redis first
            context.getBean(TransactionTemplate.class).executeWithoutResult(status -> outbox.write(List.of(sent, unsent)));
            this.client.send(sent);
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0);
            assertThat(context.getBean(OutboxRelay.class).relayed()).isEqualTo(2);
            assertThat(this.client.stats("PRODUCER_ONLY").pending()).isEqualTo(2);
            assertThat(this.client.cancel("PRODUCER_ONLY", "crash-1")).isTrue();
            assertThat(this.client.cancel("PRODUCER_ONLY", "crash-2")).isTrue();
        });
    }

    @Test
    void aRowThatCannotBeSentIsParkedWithItsReasonAndReported() {
        runner().withPropertyValues("delayqueue.producer.outbox.max-attempts=2").run(context -> {
            clear(context);
            String body = this.client.prepare("ORDER_TIMEOUT", List.of(SendRequest.of("x", Duration.ZERO))).messages().get(0).body();
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            // a queue this application no longer declares
            context.getBean(TransactionTemplate.class).executeWithoutResult(status -> jdbc.update(
                    "insert into delayqueue_outbox (namespace, queue_code, message_id, send_mode, delay_ms, body, created_at,"
                            + " next_attempt_at, attempts) values (?, 'GONE', 'gone-1', 'IF_ABSENT', 0, ?, current_timestamp,"
                            + " current_timestamp, 0)", this.prefix, body));
            await().atMost(DEADLINE).until(() -> rows(context, "where parked_at is not null") == 1);
            Map<String, Object> row = jdbc.queryForMap("select attempts, last_error from delayqueue_outbox");
            assertThat(((Number) row.get("attempts")).intValue()).isEqualTo(2);
            assertThat((String) row.get("last_error")).contains("queue 'GONE' is not declared");
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            context.getBean(OutboxMetrics.class).bindTo(meters);
            await().atMost(DEADLINE).untilAsserted(() -> {
                Health health = context.getBean("delayQueueOutboxHealthIndicator", HealthIndicator.class).health();
                assertThat(health.getDetails()).containsEntry("parked", 1L).containsEntry("pending", 0L);
                assertThat(meters.get("delayqueue.outbox.rows").tag("state", "parked").gauge().value()).isEqualTo(1.0);
                assertThat(meters.get("delayqueue.outbox.rows").tag("state", "pending").gauge().value()).isZero();
            });
            await().during(Duration.ofMillis(1_500)).atMost(Duration.ofSeconds(5))
                    .until(() -> jdbc.queryForObject("select attempts from delayqueue_outbox", Integer.class) == 2);
        });
    }
}
