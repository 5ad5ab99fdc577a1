package io.github.delayqueue.spring.faults;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.faults.FaultSupport;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import io.github.delayqueue.spring.outbox.OutboxRelay;
import io.github.delayqueue.spring.outbox.StoppableRedis;
import io.github.delayqueue.spring.outbox.TestPostgres;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue #19, Redis down during the commits: an application commits 300 orders, each with its payment timeout
 * sent in the order's transaction, while Redis is down. Every commit succeeds (the after-commit write fails and
 * is logged), every timeout waits in the outbox table; once Redis is back the relay sends them and every
 * committed order's timeout is delivered, once.
 */
class OutboxRedisDownTest {

    private static final int COUNT = 300;

    @Test
    void timeoutsCommittedWhileRedisIsDownAreDeliveredOnceItIsBack() throws Exception {
        String prefix = TestRedis.uniquePrefix();
        String jdbcUrl = TestPostgres.newSchema();
        Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();
        try (StoppableRedis redis = new StoppableRedis()) {
            OutboxApps.runner(redis.url(), prefix, jdbcUrl)
                    .withPropertyValues("delayqueue.producer.outbox.relay-after=1s",
                            "delayqueue.producer.outbox.relay-interval=200ms")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
                        jdbc.execute("create table orders (id varchar(40) primary key)");
                        DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
                        TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
                        long commitsStarted = System.nanoTime();
                        for (int i = 0; i < COUNT; i++) {
                            String id = "order:" + i;
                            transactions.executeWithoutResult(status -> {
                                jdbc.update("insert into orders (id) values (?)", id);
                                template.send(OrderQueues.ORDER_TIMEOUT, id, Duration.ofMillis(500), SendOptions.id(id));
                            });
                        }
                        long commitMs = (System.nanoTime() - commitsStarted) / 1_000_000;
                        Set<String> committed = Set.copyOf(jdbc.queryForList("select id from orders", String.class));
                        long waiting = jdbc.queryForObject("select count(*) from delayqueue_outbox", Long.class);
                        assertThat(committed).hasSize(COUNT);
                        assertThat(waiting).as("every timeout waits in the outbox").isEqualTo(COUNT);

                        redis.start();
                        long back = System.nanoTime();
                        Config config = new Config();
                        config.useSingleServer().setAddress(redis.url());
                        RedissonClient redisson = Redisson.create(config);
                        DelayQueueConsumer consumer = DelayQueueClient.create(redisson,
                                ClientOptions.builder().keyPrefix(prefix).build()).newConsumer("ORDER_TIMEOUT", String.class,
                                        (payload, ctx) -> handled.computeIfAbsent(ctx.id(), k -> new AtomicInteger())
                                                .incrementAndGet(),
                                        ConsumerOptions.DEFAULTS);
                        consumer.start();
                        try {
                            await().atMost(Duration.ofSeconds(60)).until(() -> handled.keySet().containsAll(committed));
                            long recoverMs = (System.nanoTime() - back) / 1_000_000;
                            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> true);
                            long duplicates = handled.values().stream().mapToInt(AtomicInteger::get).filter(n -> n > 1)
                                    .map(n -> n - 1).sum();
                            long relayed = context.getBean(OutboxRelay.class).relayed();
                            FaultSupport.report("outbox-redis-down", COUNT, handled.size(), COUNT - handled.size(), duplicates,
                                    recoverMs, "redis=own-embedded-6.2(stopped_during_commits) database=" + TestPostgres.mode()
                                            + " committed=" + committed.size() + " waiting_in_outbox=" + waiting + " relayed="
                                            + relayed + " commits_ms=" + commitMs + " relay_after_ms=1000");
                            assertThat(duplicates).isZero();
                            assertThat(relayed).isEqualTo(COUNT);
                            assertThat(jdbc.queryForObject("select count(*) from delayqueue_outbox", Long.class)).isZero();
                        } finally {
                            consumer.stop();
                            redisson.shutdown();
                        }
                    });
        }
    }
}
