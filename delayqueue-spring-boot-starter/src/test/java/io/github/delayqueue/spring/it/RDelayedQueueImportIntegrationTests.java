package io.github.delayqueue.spring.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.codec.Kryo5Codec;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.github.delayqueue.core.ImportReport;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.testing.TestRedis;

/**
 * Issue 22 through the starter: {@link DelayQueueAdmin#importFromRDelayedQueue} imports what a Redisson
 * {@code RDelayedQueue} (written by Redisson itself, with its default codec) still holds into a declared queue,
 * whose handler receives it; values that do not bind to the handler's payload type are reported and left in
 * Redisson instead of becoming dead letters.
 */
@SpringBootTest(classes = TestApplication.class)
@SuppressWarnings("deprecation") // RDelayedQueue: the old application being migrated uses it
class RDelayedQueueImportIntegrationTests {

    private static final String PREFIX = TestRedis.uniquePrefix();
    private static final String LEGACY = PREFIX + "-legacyOrderTimeouts";

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", TestRedis::url);
        registry.add("delayqueue.key-prefix", () -> PREFIX);
    }

    @AfterAll
    static void deleteKeys() {
        TestRedis.deleteKeys(PREFIX);
        RedissonClient redisson = TestRedis.newClient();
        try {
            redisson.getKeys().delete(LEGACY, "redisson_delay_queue:{" + LEGACY + "}",
                    "redisson_delay_queue_timeout:{" + LEGACY + "}");
        } finally {
            redisson.shutdown();
        }
    }

    @Autowired
    DelayQueueAdmin admin;

    @Autowired
    Inbox inbox;

    @Autowired
    RedissonClient redisson;

    @Test
    void pendingOrderTimeoutsAreImportedAndHandledAndUnbindableValuesStayInRedisson() {
        // the old application: order ids offered with Redisson's default codec, then stopped
        RedissonClient old = TestRedis.newClient();
        try {
            RBlockingQueue<Object> queue = old.getBlockingQueue(LEGACY);
            RDelayedQueue<Object> delayed = old.getDelayedQueue(queue);
            delayed.offer("order-1", 500, TimeUnit.MILLISECONDS);
            delayed.offer("order-2", 800, TimeUnit.MILLISECONDS);
            delayed.destroy();
        } finally {
            old.shutdown();
        }

        // identity mapping: a String does not bind to the handler's OrderTimeout record
        ImportReport dry = this.admin.importFromRDelayedQueue(ItQueues.ORDER_TIMEOUT, LEGACY, new Kryo5Codec(), true);
        assertThat(dry.found()).isEqualTo(2);
        assertThat(dry.failed()).isEqualTo(2);
        assertThat(dry.failures()).allSatisfy(f -> assertThat(f.reason())
                .contains("does not bind to the queue's payload type").contains("OrderTimeout"));
        ImportReport refused = this.admin.importFromRDelayedQueue(ItQueues.ORDER_TIMEOUT, LEGACY, new Kryo5Codec(),
                false);
        assertThat(refused.imported()).isZero();
        assertThat(refused.remaining()).as("nothing is dropped").isEqualTo(2);

        ImportReport report = this.admin.importFromRDelayedQueue(ItQueues.ORDER_TIMEOUT, LEGACY, new Kryo5Codec(),
                false, value -> new Payloads.OrderTimeout((String) value, 0, Instant.EPOCH));

        assertThat(report.imported()).isEqualTo(2);
        assertThat(report.removed()).isEqualTo(2);
        assertThat(report.complete()).isTrue();
        for (String order : new String[] { "order-1", "order-2" }) {
            Inbox.Delivery delivery = await().atMost(Duration.ofSeconds(30))
                    .until(() -> this.inbox.find(ItQueues.ORDER_TIMEOUT,
                            p -> p instanceof Payloads.OrderTimeout t && t.orderId().equals(order)),
                            java.util.Optional::isPresent)
                    .orElseThrow();
            assertThat(delivery.context().id()).startsWith("rdq-");
        }
        assertThat(this.redisson.getKeys().countExists(LEGACY, "redisson_delay_queue:{" + LEGACY + "}",
                "redisson_delay_queue_timeout:{" + LEGACY + "}")).isZero();
    }
}
