package io.github.delayqueue.dashboard;

import java.time.Duration;

import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.dashboard.app.DashApp;
import io.github.delayqueue.dashboard.app.DashQueues;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The application with actions on, on a random port and the test Redis, shared by the test classes that extend
 * this one (one context), and an HTTP client that keeps the session cookie and sends Spring Security's CSRF token
 * the way the page does.
 */
@SpringBootTest(classes = DashApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "delayqueue.dashboard.enabled=true", "delayqueue.dashboard.actions-enabled=true",
        "delayqueue.dashboard.show-payloads=true", "delayqueue.dashboard.refresh-interval=1s",
        "delayqueue.queues.SLOW.visibility-timeout=2m", "spring.main.banner-mode=off" })
abstract class DashboardTestSupport {

    static final String PREFIX = TestRedis.uniquePrefix();
    static final Duration DEADLINE = Duration.ofSeconds(30);

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", TestRedis::url);
        registry.add("delayqueue.key-prefix", () -> PREFIX);
    }

    @AfterAll
    static void deleteKeys() {
        TestRedis.deleteKeys(PREFIX);
    }

    @LocalServerPort
    int port;

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    DelayQueueAdmin admin;

    @Autowired
    DashApp.EmailHandler emails;

    @Autowired
    DashApp.SlowHandler slow;

    @BeforeEach
    void emptyTheQueues() {
        for (DelayQueueCode code : DashQueues.values()) {
            this.admin.purgeAll(code);
            for (QueuedMessage m : this.admin.pending(code, 0, 1000).messages()) {
                this.template.cancel(code, m.id());
            }
        }
        this.emails.delivered.clear();
        this.emails.failFor.clear();
    }

    String base() {
        return "http://localhost:" + this.port + "/delayqueue";
    }

    /** An HTTP client with its own session, as one browser tab. */
    Http http() {
        return new Http(base());
    }
}
