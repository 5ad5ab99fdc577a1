package io.github.delayqueue.spring.outbox;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.PreparedSend;
import io.github.delayqueue.core.PreparedSet;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.core.sets.SetStatus;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.DelayQueueOutboxAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.DelayQueueRedissonConfigCustomizer;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import io.github.delayqueue.spring.core.QueueCatalog;
import io.github.delayqueue.spring.core.SendOutbox;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.boot.autoconfigure.AutoConfigurations;
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
 * A job set sent inside a transaction through the outbox, against a real database and a real Redis
 * ({@link PostgresOutboxSetTests}, {@link H2OutboxSetTests}): its rows (opening, members, seal) commit or roll back
 * with the transaction, the write after the commit sends it, and the relay completes it after a crash, each callback
 * once and never before the set is whole.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OutboxSetContractTests {

    static final Duration DEADLINE = Duration.ofSeconds(30);
    static final String WORK = OrderQueues.REMINDER.code();
    static final String DONE = OrderQueues.ORDER_TIMEOUT.code();

    final StoppableRedis redis = new StoppableRedis();
    final String prefix = TestRedis.uniquePrefix();
    RedissonClient redisson;
    DelayQueueClient client;
    final List<DelayQueueConsumer> consumers = new ArrayList<>();

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

    @AfterEach
    void stopConsumers() {
        this.consumers.forEach(DelayQueueConsumer::stop);
        this.consumers.clear();
    }

    @AfterAll
    void stopRedis() {
        this.redisson.shutdown();
        this.redis.close();
    }

    /** Fail a write in about a second while Redis is down, instead of Redisson's 4-6 s of retries. */
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
                        DelayQueueOutboxAutoConfiguration.class))
                .withUserConfiguration(FailFast.class)
                .withPropertyValues("spring.data.redis.url=" + this.redis.url(), "delayqueue.key-prefix=" + this.prefix,
                        "delayqueue.scan-packages=" + OrderQueues.class.getPackageName(),
                        "delayqueue.producer.outbox.enabled=true", "delayqueue.producer.outbox.relay-after=2s",
                        "delayqueue.producer.outbox.relay-interval=100ms")
                .withPropertyValues(databaseProperties());
    }

    /** {@code template.sendSet(set)}, as an application writes it. */
    static String sendSet(AssertableApplicationContext context, JobSet set) {
        return context.getBean(DelayQueueTemplate.class).sendSet(set);
    }

    static long rows(AssertableApplicationContext context, String where) {
        return context.getBean(JdbcTemplate.class).queryForObject("select count(*) from delayqueue_outbox " + where, Long.class);
    }

    static void clear(AssertableApplicationContext context) {
        context.getBean(JdbcTemplate.class).update("delete from delayqueue_outbox");
        context.getBean(JdbcTemplate.class).execute("create table if not exists orders (id varchar(40) primary key)");
    }

    static List<String> orders(AssertableApplicationContext context) {
        return context.getBean(JdbcTemplate.class).queryForList("select id from orders", String.class);
    }

    static List<SendRequest> members(String prefix, int count) {
        List<SendRequest> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(SendRequest.of(prefix + i, Duration.ZERO, SendOptions.id(prefix + i)));
        }
        return out;
    }

    /** A set of {@code count} members due now on {@link #WORK}, whose success sends {@code "<id> ok"} on {@link #DONE}. */
    static JobSet set(String id, int count) {
        return JobSet.builder().id(id).add(WORK, members(id + "-", count))
                .onSuccess(DONE, SendRequest.of(id + " ok", Duration.ZERO)).build();
    }

    /** Acknowledges every message of {@link #WORK}; returns the ids handled. */
    Set<String> work() {
        Set<String> handled = ConcurrentHashMap.newKeySet();
        consume(WORK, (payload, context) -> handled.add(context.id()));
        return handled;
    }

    /** The payloads of the callbacks that reach {@link #DONE}. */
    List<String> callbacks() {
        List<String> seen = new CopyOnWriteArrayList<>();
        consume(DONE, (payload, context) -> seen.add(payload));
        return seen;
    }

    private void consume(String queue, io.github.delayqueue.core.MessageHandler<String> handler) {
        DelayQueueConsumer consumer = this.client.newConsumer(queue, String.class, handler, ConsumerOptions.DEFAULTS);
        this.consumers.add(consumer);
        consumer.start();
    }

    /** The Redis keys that name {@code text} (a set's keys carry its id in their hash tag). */
    long redisKeysNaming(String text) {
        return this.redisson.getKeys().getKeysStreamByPattern(this.prefix + "*" + text + "*").count();
    }

    /** Waits until {@code callbacks} holds {@code expected}, then a while more: it must stay the only one. */
    static void awaitOnly(List<String> callbacks, String expected) {
        await().atMost(DEADLINE).until(() -> !callbacks.isEmpty());
        await().during(Duration.ofMillis(1_000)).atMost(Duration.ofSeconds(5)).until(() -> callbacks.size() == 1);
        assertThat(callbacks).containsExactly(expected);
    }

    @Test
    void aSetInsideAnOutboxTransactionThatRollsBackLeavesNothing() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            clear(context);
            TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
            transactions.executeWithoutResult(status -> {
                context.getBean(JdbcTemplate.class).update("insert into orders (id) values ('rollback-set')");
                assertThat(sendSet(context, set("rb-set", 3))).isEqualTo("rb-set");
                status.setRollbackOnly();
            });
            // rolled back by an exception, after a plain send and a set
            assertThatIllegalStateException().isThrownBy(() -> transactions.executeWithoutResult(status -> {
                context.getBean(DelayQueueTemplate.class).send(OrderQueues.REMINDER, "plain", Duration.ZERO,
                        SendOptions.id("rb-plain"));
                sendSet(context, set("rb-set-2", 2));
                throw new IllegalStateException("rolled back");
            }));
            assertThat(orders(context)).doesNotContain("rollback-set");
            assertThat(rows(context, "")).as("no outbox row").isZero();
            for (String set : List.of("rb-set", "rb-set-2")) {
                assertThat(this.client.setStatus(set)).as("no set status").isEmpty();
                assertThat(redisKeysNaming("{" + set + "}")).as("no key of the set").isZero();
            }
            for (String id : List.of("rb-set-0", "rb-set-1", "rb-set-2", "rb-set-2-0", "rb-set-2-1", "rb-plain")) {
                assertThat(this.client.message(WORK, id)).as("no message " + id).isEmpty();
            }
            // after a while too: nothing was left for a relay
            await().during(Duration.ofMillis(2_500)).atMost(Duration.ofSeconds(6)).until(() -> this.client.setStatus("rb-set").isEmpty()
                    && this.client.stats(WORK).pending() == 0);
            assertThat(context.getBean(OutboxRelay.class).relayed()).isZero();
        });
    }

    @Test
    void aCommittedSetIsSentAtTheCommitAndCallsBackOnceWhenItsMembersAreHandled() {
        runner().run(context -> {
            clear(context);
            context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                context.getBean(JdbcTemplate.class).update("insert into orders (id) values ('commit-set')");
                sendSet(context, set("c-set", 5));
                assertThat(rows(context, "")).as("nothing written before the commit").isZero();
                assertThat(this.client.setStatus("c-set")).isEmpty();
            });
            // written by the write after the commit, before the commit returned, not by the relay
            SetStatus status = this.client.setStatus("c-set").orElseThrow();
            assertThat(status.sealed()).isTrue();
            assertThat(status.total()).isEqualTo(5);
            assertThat(this.client.stats(WORK).pending()).isEqualTo(5);
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0);
            List<String> done = callbacks();
            Set<String> handled = work();
            awaitOnly(done, "c-set ok");
            assertThat(handled).hasSize(5);
            assertThat(this.client.setStatus("c-set").orElseThrow().acknowledged()).isEqualTo(5);
            assertThat(context.getBean(OutboxRelay.class).relayed()).isZero();
        });
    }

    /**
     * A crash after the commit: the rows are there, the write after the commit never ran (or ran part way: the set
     * opened and its first batch sent). The relay replays them in order, in passes of two rows, the opening split
     * over several rows; the set calls back once.
     */
    @Test
    void aRelayReplayAfterACrashCompletesTheSetExactlyOnce() {
        runner().withPropertyValues("delayqueue.producer.outbox.relay-batch-size=2").run(context -> {
            clear(context);
            JdbcSendOutbox outbox = (JdbcSendOutbox) context.getBean(SendOutbox.class);
            outbox.openingRowChars = 300; // a few members per opening row
            DelayQueueClient producer = context.getBean(QueueCatalog.class).find(WORK).orElseThrow().client();
            PreparedSet untouched = producer.prepareSet(JobSet.builder().id("crash-set").add(WORK, members("crash-set-", 12))
                    .onSuccess(DONE, SendRequest.of("crash-set ok", Duration.ZERO))
                    .onComplete(DONE, SendRequest.of("crash-set closed", Duration.ZERO)).build());
            PreparedSet halfWay = producer.prepareSet(JobSet.builder().id("crash-set-2")
                    .add(WORK, members("crash-set-2-", 3)).add(OrderQueues.PRODUCER_ONLY.code(), members("crash-set-2-p", 1))
                    .onSuccess(DONE, SendRequest.of("crash-set-2 ok", Duration.ZERO)).build());
            TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
            transactions.executeWithoutResult(status -> {
                outbox.writeSet(WORK, untouched);
                outbox.writeSet(WORK, halfWay);
            });
            assertThat(rows(context, "where message_id = 'crash-set' and send_mode = 'SET_OPEN'")).isGreaterThan(1);
            assertThat(rows(context, "where message_id = 'crash-set' and send_mode = 'SET_SEAL'")).isEqualTo(1);
            producer.openSet(halfWay.opening());
            PreparedSend first = halfWay.sends().get(0);
            producer.send(producer.restore(first.queue(), first.messages()));
            List<String> done = callbacks();
            Set<String> handled = work();
            consume(OrderQueues.PRODUCER_ONLY.code(), (payload, ctx) -> handled.add(ctx.id()));
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0);
            await().atMost(DEADLINE).until(() -> done.size() == 3);
            await().during(Duration.ofMillis(1_000)).atMost(Duration.ofSeconds(5)).until(() -> done.size() == 3);
            assertThat(done).containsExactlyInAnyOrder("crash-set ok", "crash-set closed", "crash-set-2 ok");
            assertThat(this.client.setStatus("crash-set").orElseThrow().total()).isEqualTo(12);
            assertThat(this.client.setStatus("crash-set-2").orElseThrow().total()).isEqualTo(4);
            assertThat(handled).hasSize(16);
            assertThat(context.getBean(OutboxRelay.class).relayed()).as("member rows, not set steps").isEqualTo(16);
            // the rows replayed again (a relay whose deletes were lost): the complete set (which refuses new members
            // once its complete callback is sent) takes its opening as done, and nothing is sent twice
            transactions.executeWithoutResult(status -> outbox.writeSet(WORK, untouched));
            await().atMost(Duration.ofSeconds(10)).until(() -> rows(context, "") == 0);
            await().during(Duration.ofMillis(1_000)).atMost(Duration.ofSeconds(5)).until(() -> done.size() == 3);
            assertThat(handled).hasSize(16);
        });
    }

    /** Redis down at the commit: the commit succeeds, and the relay sends the set once Redis is back. */
    @Test
    void aSetCommittedWhileRedisIsDownIsCompletedByTheRelayWhenItIsBack() {
        runner().run(context -> {
            clear(context);
            this.redis.stop();
            try {
                context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                    context.getBean(JdbcTemplate.class).update("insert into orders (id) values ('down-set')");
                    sendSet(context, set("down-set", 3));
                });
                assertThat(orders(context)).contains("down-set");
                assertThat(rows(context, "")).isEqualTo(5); // opening, 3 members, seal
            } finally {
                this.redis.start();
            }
            List<String> done = callbacks();
            work();
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0);
            awaitOnly(done, "down-set ok");
        });
    }

    /**
     * The opening row fails (its parent set, there at the call, is gone by the commit): the members and the seal wait
     * for it, deferred without failing, and none reaches Redis before the set is opened; once the parent exists again,
     * the set completes.
     */
    @Test
    void membersAndSealWaitWhileTheSetsOpeningFails() {
        runner().run(context -> {
            clear(context);
            JobSet parent = JobSet.builder().id("late-parent")
                    .add(OrderQueues.PRODUCER_ONLY.code(), List.of(SendRequest.of("p", Duration.ofHours(1)))).build();
            this.client.sendSet(parent);
            context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                sendSet(context, JobSet.builder()
                        .id("child-set").parent("late-parent").add(WORK, members("child-set-", 2))
                        .onSuccess(DONE, SendRequest.of("child-set ok", Duration.ZERO)).build());
                // the parent expires between the call, which checked it, and the commit
                this.redisson.getKeys()
                        .unlinkByPattern(this.client.options().keyPrefix() + ":set:{late-parent}:*");
            });
            // the write after the commit could not open it: every row stays, and the relay's attempts fail
            await().atMost(DEADLINE).until(() -> rows(context, "where send_mode = 'SET_OPEN' and attempts >= 1") == 1);
            await().atMost(DEADLINE).until(() -> rows(context, "where last_error like '%waiting for the opening%'") == 3);
            assertThat(rows(context, "where send_mode <> 'SET_OPEN' and attempts > 0")).as("waiting is not failing").isZero();
            assertThat(context.getBean(JdbcTemplate.class).queryForObject(
                    "select last_error from delayqueue_outbox where send_mode = 'SET_OPEN'", String.class))
                    .contains("late-parent");
            assertThat(this.client.setStatus("child-set")).isEmpty();
            assertThat(this.client.message(WORK, "child-set-0")).as("no member before its set").isEmpty();
            assertThat(this.client.message(WORK, "child-set-1")).isEmpty();
            // the parent is sent again (its one member on a queue nobody consumes here)
            this.client.sendSet(parent);
            List<String> done = callbacks();
            work();
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0);
            awaitOnly(done, "child-set ok");
            assertThat(this.client.setStatus("late-parent").orElseThrow().total()).as("the child is its member").isEqualTo(2);
        });
    }

    @Test
    void anInvalidSetFailsItsTransactionWithAClearErrorAndWritesNothing() {
        runner().run(context -> {
            clear(context);
            TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
            assertThatIllegalArgumentException().isThrownBy(() -> transactions.executeWithoutResult(status -> {
                context.getBean(JdbcTemplate.class).update("insert into orders (id) values ('bad-set')");
                sendSet(context, JobSet.builder().id("bad-set").add(WORK, List.of(
                        SendRequest.of("a", Duration.ZERO, SendOptions.id("twice")),
                        SendRequest.of("b", Duration.ZERO, SendOptions.id("twice")))).build());
            })).withMessageContaining("twice");
            assertThatIllegalArgumentException().isThrownBy(() -> transactions.executeWithoutResult(status -> {
                context.getBean(JdbcTemplate.class).update("insert into orders (id) values ('bad-set')");
                sendSet(context, JobSet.builder().id("bad-set").add(WORK, List.of(SendRequest.of("a", Duration.ofSeconds(-1))))
                        .build());
            }));
            // a member on a queue this application does not declare: the relay could not send its row
            assertThatIllegalArgumentException().isThrownBy(() -> transactions.executeWithoutResult(status -> {
                context.getBean(JdbcTemplate.class).update("insert into orders (id) values ('bad-set')");
                sendSet(context, JobSet.builder().id("bad-set").add(WORK, members("bad-set-", 1))
                        .add("NOT_DECLARED", members("bad-set-x", 1)).build());
            })).withMessageContaining("queue 'NOT_DECLARED'").withMessageContaining("Unknown queue 'NOT_DECLARED'");
            TransactionTemplate readOnly = new TransactionTemplate(transactions.getTransactionManager());
            readOnly.setReadOnly(true);
            readOnly.executeWithoutResult(status -> assertThatIllegalStateException()
                    .isThrownBy(() -> sendSet(context, set("read-only-set", 1)))
                    .withMessageContaining("read-only transaction"));
            assertThat(orders(context)).doesNotContain("bad-set");
            assertThat(rows(context, "")).isZero();
            assertThat(this.client.setStatus("bad-set")).isEmpty();
            assertThat(this.client.setStatus("read-only-set")).isEmpty();
        });
    }

    /** A set and plain sends in one transaction: the rows keep the calls' order, and a later send of a member id wins. */
    @Test
    void rowsFollowTheCallsOrder() {
        runner().run(context -> {
            clear(context);
            this.redis.stop();
            try {
                context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                    DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
                    template.send(OrderQueues.PRODUCER_ONLY, "before", Duration.ofHours(1), SendOptions.id("order-before"));
                    sendSet(context, set("order-set", 1));
                    template.send(OrderQueues.REMINDER, "after", Duration.ofHours(1),
                            SendOptions.id("order-set-0").replaceExisting());
                });
            } finally {
                this.redis.start();
            }
            List<Map<String, Object>> written = context.getBean(JdbcTemplate.class)
                    .queryForList("select message_id, send_mode from delayqueue_outbox order by id");
            assertThat(written).extracting(r -> r.get("message_id") + " " + r.get("send_mode")).containsExactly(
                    "order-before IF_ABSENT", "order-set SET_OPEN", "order-set-0 IF_ABSENT", "order-set SET_SEAL",
                    "order-set-0 REPLACE");
            await().atMost(DEADLINE).until(() -> rows(context, "") == 0);
            assertThat(this.client.message(WORK, "order-set-0").orElseThrow().payload()).isEqualTo("\"after\"");
            this.client.cancel(WORK, "order-set-0");
            this.client.cancel(OrderQueues.PRODUCER_ONLY.code(), "order-before");
        });
    }
}
