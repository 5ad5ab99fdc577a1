package io.github.delayqueue.spring.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.PreparedSend;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.faults.FaultSupport;
import io.github.delayqueue.spring.core.SendOutbox;
import io.github.delayqueue.spring.outbox.OutboxRelay;
import io.github.delayqueue.spring.outbox.TestPostgres;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue #19, two relays at once: two application instances on one PostgreSQL and one Redis find the same
 * 2,000 committed outbox rows that no after-commit write sent (as a crash leaves them) and relay them
 * concurrently, in small batches. {@code FOR UPDATE SKIP LOCKED} gives each row to one relay: every message
 * is in Redis once, and the two relays together sent exactly 2,000 (none twice).
 */
class OutboxTwoRelaysTest {

    private static final int COUNT = 2_000;

    @Test
    void twoRelaysShareTheRowsAndSendNoneTwice() {
        String prefix = TestRedis.uniquePrefix();
        String jdbcUrl = TestPostgres.newSchema();
        RedissonClient redisson = TestRedis.newClient();
        try {
            DelayQueueClient client = DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix(prefix).build());
            String[] relay = { "delayqueue.producer.outbox.relay-after=0s", "delayqueue.producer.outbox.relay-interval=20ms",
                    "delayqueue.producer.outbox.relay-batch-size=50" };
            OutboxApps.runner(TestRedis.url(), prefix, jdbcUrl).withPropertyValues(relay).run(first ->
                OutboxApps.runner(TestRedis.url(), prefix, jdbcUrl).withPropertyValues(relay).run(second -> {
                    assertThat(first).hasNotFailed();
                    assertThat(second).hasNotFailed();
                    long started = System.nanoTime();
                    SendOutbox outbox = first.getBean(SendOutbox.class);
                    TransactionTemplate transactions = first.getBean(TransactionTemplate.class);
                    for (int batch = 0; batch < COUNT / 200; batch++) {
                        List<SendRequest> requests = new ArrayList<>(200);
                        for (int i = batch * 200; i < (batch + 1) * 200; i++) {
                            requests.add(SendRequest.of("order " + i, Duration.ofHours(1), SendOptions.id("order:" + i)));
                        }
                        PreparedSend prepared = client.prepare("ORDER_TIMEOUT", requests);
                        // committed rows whose after-commit write never ran
                        transactions.executeWithoutResult(status -> outbox.write(List.of(prepared)));
                    }
                    JdbcTemplate jdbc = first.getBean(JdbcTemplate.class);
                    await().atMost(Duration.ofSeconds(120))
                            .until(() -> jdbc.queryForObject("select count(*) from delayqueue_outbox", Long.class) == 0);
                    long tookMs = (System.nanoTime() - started) / 1_000_000;
                    long byFirst = first.getBean(OutboxRelay.class).relayed();
                    long bySecond = second.getBean(OutboxRelay.class).relayed();
                    long inRedis = client.stats("ORDER_TIMEOUT").pending();
                    FaultSupport.report("outbox-two-relays", COUNT, inRedis, COUNT - inRedis, byFirst + bySecond - COUNT, tookMs,
                            "database=" + TestPostgres.mode() + " relayed_by_first=" + byFirst + " relayed_by_second="
                                    + bySecond + " batch=50 interval_ms=20");
                    assertThat(inRedis).isEqualTo(COUNT);
                    assertThat(byFirst + bySecond).as("no row sent twice").isEqualTo(COUNT);
                    assertThat(byFirst).as("both relays took part").isPositive();
                    assertThat(bySecond).as("both relays took part").isPositive();
                }));
        } finally {
            redisson.shutdown();
            TestRedis.deleteKeys(prefix);
        }
    }
}
