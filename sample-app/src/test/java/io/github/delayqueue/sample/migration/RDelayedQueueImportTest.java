package io.github.delayqueue.sample.migration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import io.github.delayqueue.core.ImportReport;
import io.github.delayqueue.sample.orders.Order;
import io.github.delayqueue.sample.orders.OrderStatus;

/**
 * The migration recipe in the sample: payment timeouts that an older version of the service offered to a
 * Redisson {@code RDelayedQueue} are imported by the {@link RDelayedQueueImport} runner and cancel their
 * unpaid order, while the order's own timeout is 10 minutes away.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sample.payment-timeout=10m", "sample.migration.rdelayedqueue.from=legacyPaymentTimeouts",
                "sample.migration.rdelayedqueue.dry-run=false" })
@SuppressWarnings("deprecation") // RDelayedQueue: what the older version of the service used
class RDelayedQueueImportTest {

    @Value("${local.server.port}")
    int port;

    @Autowired
    RDelayedQueueImport runner;

    @Autowired
    RedissonClient redisson;

    @Test
    void aPaymentTimeoutLeftInRedissonIsImportedAndCancelsItsOrder() {
        RestClient http = RestClient.builder().baseUrl("http://localhost:" + this.port).build();
        Order order = http.post().uri("/orders").contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("customer", "erin", "amountCents", 700)).retrieve().body(Order.class);
        // what the older version did, with Redisson's default codec; then it was stopped
        RDelayedQueue<Object> old = this.redisson.getDelayedQueue(this.redisson.getBlockingQueue("legacyPaymentTimeouts"));
        old.offer(order.reference(), 1, TimeUnit.SECONDS);
        old.destroy();

        ImportReport report = this.runner.report();

        assertThat(report.imported()).isEqualTo(1);
        assertThat(report.complete()).isTrue();
        await().atMost(Duration.ofSeconds(15)).until(() -> http.get().uri("/orders/{id}", order.id()).retrieve()
                .body(Order.class).status() == OrderStatus.CANCELLED);
    }
}
