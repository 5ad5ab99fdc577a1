package io.github.delayqueue.spring.outbox;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 31 item 3: requests that commit an order (and its send) while Boot's graceful shutdown waits for them must
 * have their outbox rows deleted by this instance, not left for another instance to send again after
 * {@code relay-after}: the relay stops after the web server's graceful shutdown.
 */
class OutboxGracefulShutdownTests {

    /** Requests under way when the shutdown begins. */
    static final int REQUESTS = 20;
    /** The requests hold until the shutdown has begun. */
    static final CountDownLatch ARRIVED = new CountDownLatch(REQUESTS);
    static final CountDownLatch SHUTTING_DOWN = new CountDownLatch(1);

    @RestController
    static class Orders {

        private final TransactionTemplate transactions;
        private final JdbcTemplate jdbc;
        private final DelayQueueTemplate template;

        Orders(TransactionTemplate transactions, JdbcTemplate jdbc, DelayQueueTemplate template) {
            this.transactions = transactions;
            this.jdbc = jdbc;
            this.template = template;
        }

        @PostMapping("/orders/{id}")
        String create(@PathVariable String id) throws InterruptedException {
            ARRIVED.countDown();
            SHUTTING_DOWN.await(30, TimeUnit.SECONDS);
            this.transactions.executeWithoutResult(status -> {
                this.jdbc.update("insert into orders (id) values (?)", id);
                this.template.send(OrderQueues.REMINDER, id, Duration.ofHours(1), SendOptions.id(id));
            });
            return id;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(Orders.class)
    static class WebApp {

        /** Stops just before the graceful shutdown begins, which then waits for the held request. */
        @Bean
        SmartLifecycle shutdownProbe() {
            return new SmartLifecycle() {
                private volatile boolean running;

                @Override
                public void start() {
                    this.running = true;
                }

                @Override
                public void stop() {
                    this.running = false;
                    SHUTTING_DOWN.countDown();
                }

                @Override
                public boolean isRunning() {
                    return this.running;
                }

                @Override
                public int getPhase() {
                    return WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE + 1;
                }
            };
        }
    }

    @Test
    void theRelayStopsAfterTheWebServersGracefulShutdown() {
        assertThat(OutboxRelay.PHASE).isLessThan(WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE)
                .isLessThan(SmartLifecycle.DEFAULT_PHASE - 2048); // WebServerStartStopLifecycle's phase
    }

    @Test
    void rowsCommittedDuringGracefulShutdownAreDeletedByThisInstance() throws Exception {
        String prefix = TestRedis.uniquePrefix();
        String database = "jdbc:h2:mem:graceful-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
        ConfigurableApplicationContext app = new SpringApplicationBuilder(WebApp.class).web(WebApplicationType.SERVLET)
                .properties("server.port=0", "server.shutdown=graceful", "spring.main.banner-mode=off",
                        "spring.lifecycle.timeout-per-shutdown-phase=30s", "spring.datasource.url=" + database,
                        "spring.data.redis.url=" + TestRedis.url(), "delayqueue.key-prefix=" + prefix,
                        "delayqueue.scan-packages=" + OrderQueues.class.getPackageName(),
                        "delayqueue.producer.outbox.enabled=true", "delayqueue.producer.outbox.relay-after=1m",
                        "management.endpoints.enabled-by-default=false")
                .run();
        RedissonClient redisson = TestRedis.newClient();
        try {
            app.getBean(JdbcTemplate.class).execute("create table orders (id varchar(40) primary key)");
            int port = ((WebServerApplicationContext) app).getWebServer().getPort();
            HttpClient http = HttpClient.newHttpClient();
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                responses.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders/graceful-" + i))
                        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()));
            }
            assertThat(ARRIVED.await(60, TimeUnit.SECONDS)).isTrue();
            app.close(); // the requests commit while the graceful shutdown waits for them
            for (CompletableFuture<HttpResponse<String>> response : responses) {
                assertThat(response.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
            try (Connection connection = DriverManager.getConnection(database, "sa", "");
                    ResultSet orders = connection.createStatement().executeQuery("select count(*) from orders");
                    ResultSet rows = connection.createStatement().executeQuery("select count(*) from delayqueue_outbox")) {
                assertThat(orders.next() && orders.getLong(1) == REQUESTS).as("every order committed").isTrue();
                assertThat(rows.next()).isTrue();
                assertThat(rows.getLong(1)).as("no row left for another instance to send again").isZero();
            }
            DelayQueueClient client = DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix(prefix).build());
            for (int i = 0; i < REQUESTS; i++) {
                assertThat(client.cancel("REMINDER", "graceful-" + i)).as("written by the after-commit write").isTrue();
            }
        } finally {
            app.close();
            redisson.shutdown();
            TestRedis.deleteKeys(prefix);
        }
    }
}
