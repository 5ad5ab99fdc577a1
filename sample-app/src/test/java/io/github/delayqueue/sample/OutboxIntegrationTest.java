package io.github.delayqueue.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

import io.github.delayqueue.sample.orders.Order;
import io.github.delayqueue.sample.orders.OrderStatus;
import redis.embedded.RedisServer;

/**
 * The sample's outbox: an order created while Redis is down commits, its payment timeout waits in the
 * outbox table, and once Redis is back the relay sends it and the unpaid order is cancelled. The test runs on a
 * Redis of its own (an embedded server on a free port), which it stops and starts; its context is closed after
 * the class, and that Redis with it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sample.payment-timeout=2s", "delayqueue.producer.outbox.relay-after=3s",
                "delayqueue.producer.outbox.relay-interval=500ms" })
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class OutboxIntegrationTest {

    private static final OwnRedis REDIS = new OwnRedis();

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        REDIS.start();
        registry.add("spring.data.redis.url", () -> "redis://127.0.0.1:" + REDIS.port);
    }

    /** Stops the test's Redis when the context closes, after the consumers have stopped. */
    @TestConfiguration
    static class StopRedisOnClose {
        @Bean
        DisposableBean stopOwnRedis() {
            return REDIS::stop;
        }
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    JdbcTemplate jdbc;

    @Test
    void aTimeoutCommittedWhileRedisWasDownIsDeliveredOnceItIsBack() {
        RestClient http = RestClient.builder().baseUrl("http://localhost:" + this.port).build();
        REDIS.stop();
        Order order;
        try {
            order = http.post().uri("/orders").contentType(MediaType.APPLICATION_JSON)
                    .body(Map.of("customer", "carol", "amountCents", 990)).retrieve().body(Order.class);
            assertThat(order.status()).isEqualTo(OrderStatus.PENDING_PAYMENT);
            // committed with the order; the after-commit write failed, so the timeout waits in the outbox
            assertThat(this.jdbc.queryForObject("select count(*) from delayqueue_outbox", Long.class)).isEqualTo(1);
        } finally {
            REDIS.start();
        }
        long id = order.id();
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(
                http.get().uri("/orders/{id}", id).retrieve().body(Order.class).status()).isEqualTo(OrderStatus.CANCELLED));
        assertThat(this.jdbc.queryForObject("select count(*) from delayqueue_outbox", Long.class)).isZero();
    }

    /** An embedded Redis on a free port that can be stopped and started again on the same port. */
    static final class OwnRedis {
        final int port = freePort();
        private RedisServer server;

        synchronized void start() {
            if (this.server != null) {
                return;
            }
            try {
                this.server = RedisServer.newRedisServer().port(this.port).bind("127.0.0.1").setting("save \"\"")
                        .setting("appendonly no").build();
                this.server.start();
            } catch (IOException e) {
                throw new UncheckedIOException("could not start a Redis on port " + this.port, e);
            }
        }

        synchronized void stop() {
            if (this.server == null) {
                return;
            }
            try {
                this.server.stop();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                this.server = null;
            }
        }

        private static int freePort() {
            try (ServerSocket socket = new ServerSocket(0)) {
                return socket.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
