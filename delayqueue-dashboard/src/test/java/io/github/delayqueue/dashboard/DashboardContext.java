package io.github.delayqueue.dashboard;

import java.time.Duration;

import io.github.delayqueue.dashboard.app.DashApp;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.testing.TestRedis;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * What every dashboard test class shares: the test application on a random port and the test Redis, the beans the
 * tests steer, and an HTTP client. Each subclass names its application and settings with its own
 * {@code @SpringBootTest}. Spring keeps the contexts it built running side by side (one per set of settings), so
 * each context gets a key prefix of its own, and its consumers never take another context's messages;
 * {@link DashApp} deletes the keys when its context closes.
 */
abstract class DashboardContext {

    static final Duration DEADLINE = Duration.ofSeconds(30);

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        String prefix = TestRedis.uniquePrefix(); // called once for each context Spring builds
        registry.add("spring.data.redis.url", TestRedis::url);
        registry.add("delayqueue.key-prefix", () -> prefix);
    }

    @LocalServerPort
    int port;

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    DelayQueueAdmin admin;

    @Autowired
    DashApp.EmailHandler emails;

    String base() {
        return "http://localhost:" + this.port + "/delayqueue";
    }

    /** An HTTP client with its own session, as one browser tab. */
    Http http() {
        return new Http(base());
    }
}
