package io.github.delayqueue.dashboard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
    final class Http {

        private final HttpClient client = HttpClient.newBuilder().cookieHandler(new CookieManager())
                .connectTimeout(Duration.ofSeconds(10)).build();
        private String csrfHeader;
        private String csrfToken;

        /** Opens the page, as the browser does first, and keeps its CSRF token. */
        Http open() {
            HttpResponse<String> page = get("");
            this.csrfHeader = meta(page.body(), "dq-csrf-header");
            this.csrfToken = meta(page.body(), "dq-csrf-token");
            return this;
        }

        HttpResponse<String> get(String path) {
            return send(HttpRequest.newBuilder(URI.create(base() + path)).GET());
        }

        HttpResponse<String> post(String path, String json) {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base() + path))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
            if (this.csrfToken != null) {
                request.header(this.csrfHeader, this.csrfToken);
            }
            return send(request);
        }

        HttpResponse<String> postWithoutToken(String path, String json) {
            return send(HttpRequest.newBuilder(URI.create(base() + path)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(json)));
        }

        private HttpResponse<String> send(HttpRequest.Builder request) {
            try {
                return this.client.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    static String meta(String html, String name) {
        Matcher m = Pattern.compile("<meta name=\"" + Pattern.quote(name) + "\" content=\"([^\"]*)\">").matcher(html);
        return m.find() ? m.group(1) : null;
    }
}
