package io.github.delayqueue.spring.faults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.faults.FaultSupport;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import io.github.delayqueue.spring.outbox.OutboxProducerMain;
import io.github.delayqueue.spring.outbox.OutboxRelay;
import io.github.delayqueue.spring.outbox.TestPostgres;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue #19, producer killed between commit and Redis write: a producer in a JVM of its own
 * ({@link OutboxProducerMain}) commits 300 orders with their timeouts, the after-commit write of every tenth held,
 * and is SIGKILLed once all have committed. A second instance, started on the same PostgreSQL and Redis, relays
 * what the dead one left: every committed order's timeout is delivered, and none twice.
 */
class OutboxKilledProducerTest {

    private static final int COUNT = 300;
    private static final Duration DELAY = Duration.ofSeconds(15);

    @Test
    void everyCommittedOrdersTimeoutIsDeliveredOnceAfterTheProducerIsKilled() throws Exception {
        String prefix = TestRedis.uniquePrefix();
        String jdbcUrl = TestPostgres.newSchema();
        Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();
        RedissonClient redisson = TestRedis.newClient();
        Process producer = FaultSupport.startJava(OutboxProducerMain.class, "outbox-killed-producer.log",
                "--spring.main.banner-mode=off", "--spring.data.redis.url=" + TestRedis.url(), "--delayqueue.key-prefix=" + prefix,
                "--delayqueue.scan-packages=" + OrderQueues.class.getPackageName(), "--spring.datasource.url=" + jdbcUrl,
                "--delayqueue.producer.outbox.enabled=true", "--delayqueue.producer.outbox.initialize-schema=always",
                "--delayqueue.producer.outbox.relay-after=5s", "--delayqueue.producer.outbox.relay-enabled=false",
                "--spring.datasource.hikari.maximum-pool-size=40",
                "--orders.count=" + COUNT, "--orders.delay=" + DELAY);
        try {
            Path log = Path.of("target", "faults", "outbox-killed-producer.log");
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50)).until(() -> {
                assertThat(producer.isAlive()).as("producer running, see " + log).isTrue();
                return Files.exists(log) && Files.readString(log).contains("ALL COMMITTED " + COUNT);
            });
            producer.destroyForcibly(); // SIGKILL: held after-commit writes and queued row deletes die with it
            assertThat(producer.waitFor(30, TimeUnit.SECONDS)).isTrue();
            long killedAt = System.nanoTime();

            OutboxApps.runner(TestRedis.url(), prefix, jdbcUrl)
                    .withPropertyValues("delayqueue.producer.outbox.relay-after=1s", "delayqueue.producer.outbox.relay-interval=200ms")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
                        Set<String> committed = Set.copyOf(jdbc.queryForList("select id from orders", String.class));
                        assertThat(committed).hasSize(COUNT);
                        DelayQueueConsumer started = DelayQueueClient.create(redisson,
                                ClientOptions.builder().keyPrefix(prefix).build()).newConsumer("ORDER_TIMEOUT", String.class,
                                        (payload, ctx) -> handled.computeIfAbsent(ctx.id(), k -> new AtomicInteger())
                                                .incrementAndGet(), ConsumerOptions.DEFAULTS);
                        started.start();
                        try {
                            await().atMost(Duration.ofSeconds(90)).until(() -> handled.keySet().containsAll(committed));
                            long recoverMs = (System.nanoTime() - killedAt) / 1_000_000;
                            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);
                            long duplicates = handled.values().stream().mapToInt(AtomicInteger::get).filter(n -> n > 1)
                                    .map(n -> n - 1).sum();
                            long relayed = context.getBean(OutboxRelay.class).relayed();
                            FaultSupport.report("outbox-producer-killed", COUNT, handled.size(), COUNT - handled.size(),
                                    duplicates, recoverMs, "database=" + TestPostgres.mode() + " committed=" + committed.size()
                                            + " held_at_kill=" + COUNT / 10 + " relayed_after_kill=" + relayed + " delay_ms="
                                            + DELAY.toMillis() + " (recover_ms: kill to last delivery, includes the delay)");
                            assertThat(duplicates).isZero();
                            assertThat(relayed).as("at least the held ones were relayed").isGreaterThanOrEqualTo(COUNT / 10);
                            assertThat(jdbc.queryForObject("select count(*) from delayqueue_outbox", Long.class)).isZero();
                        } finally {
                            started.stop();
                        }
                    });
        } finally {
            if (producer.isAlive()) {
                producer.destroyForcibly();
            }
            redisson.shutdown();
            TestRedis.deleteKeys(prefix);
        }
    }
}
