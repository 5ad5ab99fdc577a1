package io.github.delayqueue.spring.autoconfigure;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;

import io.github.delayqueue.core.UnsupportedRedisException;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.embedded.RedisServer;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * On a Redis without ZMSCORE (older than 6.2; here a 6.2 with the command renamed away, which answers the
 * same) the application starts, health is DOWN with the reason, and a send at startup fails with an analysis.
 */
class OldRedisTests {

    private static RedisServer server;
    private static int port;

    @BeforeAll
    static void startServer() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        server = RedisServer.newRedisServer().port(port).bind("127.0.0.1").setting("save \"\"")
                .setting("appendonly no").setting("rename-command ZMSCORE \"\"").build();
        server.start();
    }

    @AfterAll
    static void stopServer() throws IOException {
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void healthIsDownWithTheReason() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class,
                        DelayQueueHealthContributorAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:" + port,
                        "delayqueue.scan-packages=" + OrderQueues.class.getPackageName())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    HealthIndicator health = context.getBean("delayQueueHealthIndicator", HealthIndicator.class);
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                        Health read = health.health();
                        assertThat(read.getStatus()).isEqualTo(Status.DOWN);
                        assertThat(read.getDetails()).extractingByKey("error").asString()
                                .contains("Redis 6.2 or newer");
                    });
                });
    }

    @Test
    void aStartupFailureCausedByItIsAnalysed() {
        UnsupportedRedisException cause = new UnsupportedRedisException("delayqueue needs Redis 6.2 or newer");
        FailureAnalysis analysis = new UnsupportedRedisFailureAnalyzer()
                .analyze(new IllegalStateException("Failed to execute ApplicationRunner", cause));
        assertThat(analysis.getDescription()).contains("Redis 6.2 or newer");
        assertThat(analysis.getAction()).contains("6.2");
        assertThat(analysis.getCause()).isSameAs(cause);
    }
}
