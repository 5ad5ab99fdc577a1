package io.github.delayqueue.sample.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.client.RestClient;

import io.github.delayqueue.sample.orders.Order;
import io.github.delayqueue.sample.orders.OrderStatus;

/**
 * The sample's outbox: an order created while Redis is down commits, its payment timeout waits in the
 * outbox table, and once Redis is back the relay sends it and the unpaid order is cancelled. Runs on the
 * sample's embedded Redis, which it stops and starts (skipped when {@code DELAYQUEUE_REDIS_URL} names another).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sample.payment-timeout=2s", "delayqueue.producer.outbox.relay-after=3s",
                "delayqueue.producer.outbox.relay-interval=500ms" })
class OutboxIntegrationTest {

    @Value("${local.server.port}")
    int port;

    @Value("${" + EmbeddedRedisEnvironmentPostProcessor.PORT_PROPERTY + ":#{null}}")
    Integer redisPort;

    @Autowired
    JdbcTemplate jdbc;

    @Test
    void aTimeoutCommittedWhileRedisWasDownIsDeliveredOnceItIsBack() {
        assumeTrue(this.redisPort != null, "runs on the sample's embedded Redis only");
        RestClient http = RestClient.builder().baseUrl("http://localhost:" + this.port).build();
        EmbeddedRedisLifecycle.stop(this.redisPort);
        Order order;
        try {
            order = http.post().uri("/orders").contentType(MediaType.APPLICATION_JSON)
                    .body(Map.of("customer", "carol", "amountCents", 990)).retrieve().body(Order.class);
            assertThat(order.status()).isEqualTo(OrderStatus.PENDING_PAYMENT);
            // committed with the order; the after-commit write failed, so the timeout waits in the outbox
            assertThat(this.jdbc.queryForObject("select count(*) from delayqueue_outbox", Long.class)).isEqualTo(1);
        } finally {
            EmbeddedRedisLifecycle.start(this.redisPort);
        }
        long id = order.id();
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(
                http.get().uri("/orders/{id}", id).retrieve().body(Order.class).status()).isEqualTo(OrderStatus.CANCELLED));
        assertThat(this.jdbc.queryForObject("select count(*) from delayqueue_outbox", Long.class)).isZero();
    }
}
