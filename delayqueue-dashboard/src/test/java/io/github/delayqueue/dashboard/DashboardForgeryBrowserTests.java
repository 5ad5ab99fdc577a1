package io.github.delayqueue.dashboard;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import com.sun.net.httpserver.HttpServer;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.dashboard.app.DashApp;
import io.github.delayqueue.dashboard.app.DashApp.Email;
import io.github.delayqueue.dashboard.app.DashQueues;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Cross-site request forgery, tried in Chromium: an operator has the dashboard (actions on) and the actuator's
 * {@code delayqueue} endpoint (writes allowed) open to their browser, without Spring Security's CSRF protection,
 * and visits a page of another origin. The page sends every write it can without a CORS preflight: auto-submitted
 * HTML forms (form-encoded, multipart, and text/plain shaped as JSON) and {@code no-cors} fetches (no body, a
 * text body, and a JSON Blob, whose type the browser drops). Each reaches the application and is refused with 415: the queues
 * stay unpaused, the dead letter stays dead, the pending message keeps its due time.
 */
@SpringBootTest(classes = { DashApp.class, DashboardForgeryBrowserTests.Recorder.class },
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
                "delayqueue.dashboard.enabled=true", "delayqueue.dashboard.actions-enabled=true",
                "dash-app.csrf=false", "management.endpoints.web.exposure.include=delayqueue",
                "management.endpoint.delayqueue.access=unrestricted", "spring.main.banner-mode=off" })
class DashboardForgeryBrowserTests extends DashboardContext {

    /** Each POST the application answered: method, path, content type and status. */
    @Configuration(proxyBeanMethods = false)
    static class Recorder {

        final List<String> posts = new CopyOnWriteArrayList<>();

        @Bean
        FilterRegistrationBean<OncePerRequestFilter> recordPosts() {
            FilterRegistrationBean<OncePerRequestFilter> registration = new FilterRegistrationBean<>(new OncePerRequestFilter() {
                @Override
                protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response,
                        FilterChain chain) throws ServletException, IOException {
                    try {
                        chain.doFilter(request, response);
                    } finally {
                        if (request.getMethod().equals("POST")) {
                            posts.add(request.getRequestURI() + " [" + request.getContentType() + "] -> "
                                    + response.getStatus());
                        }
                    }
                }
            });
            registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
            return registration;
        }
    }

    @Autowired
    Recorder recorder;

    @Test
    void aPageOnAnotherOriginCannotPauseRequeueOrRunAnything() throws Exception {
        Browser.assumeInstalled();
        this.emails.failFor.add("victim@example.com");
        this.template.send(DashQueues.EMAILS, new Email("victim@example.com", "x"), Duration.ZERO, SendOptions.id("forged-dead"));
        this.template.send(DashQueues.REPORTS, Map.of("report", "r"), Duration.ofHours(1), SendOptions.id("forged-pending"));
        await().atMost(DEADLINE).until(() -> this.admin.deadLetters(DashQueues.EMAILS, 10).size() == 1);
        String key = this.admin.deadLetters(DashQueues.EMAILS, 10).get(0).key();
        Instant due = this.admin.message(DashQueues.REPORTS, "forged-pending").orElseThrow().dueAt();

        // every write of the endpoint and of the dashboard that could change these queues, with the body it wants
        String site = "http://localhost:" + this.port;
        Map<String, String> writes = Map.of(
                "/actuator/delayqueue/EMAILS/pause", "{}",
                "/actuator/delayqueue/EMAILS/requeue-dead-letters", "{}",
                "/actuator/delayqueue/EMAILS/dead-letters/" + key + "/requeue", "{}",
                "/actuator/delayqueue/REPORTS/messages/forged-pending/run-now", "{}",
                "/delayqueue/api/queues/EMAILS/pause", "{}",
                "/delayqueue/api/queues/EMAILS/dead-letters/requeue-all", "{}",
                "/delayqueue/api/queues/EMAILS/dead-letters/requeue", "{\"keys\":[\"" + key + "\"]}",
                "/delayqueue/api/queues/REPORTS/run-now", "{\"id\":\"forged-pending\"}",
                "/delayqueue/api/queues/REPORTS/cancel", "{\"id\":\"forged-pending\"}");
        HttpServer attacker = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        attacker.createContext("/", exchange -> {
            byte[] page = page(site, writes).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, page.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(page);
            }
        });
        attacker.start();
        int sent = writes.size() * 6; // three forms and three fetches each
        try (Browser browser = Browser.start()) {
            // another origin: another host name and port than the application's
            browser.open("http://127.0.0.1:" + attacker.getAddress().getPort() + "/");
            browser.wait.until(d -> "sent".equals(d.getTitle()));
            await().atMost(DEADLINE).until(() -> this.recorder.posts.size() >= sent); // the forms' answers too
            browser.screenshot("forgery-attacker-page");
        } finally {
            attacker.stop(0);
        }
        assertThat(this.recorder.posts).hasSize(sent).allSatisfy(post -> assertThat(post).endsWith("-> 415"));
        assertThat(this.recorder.posts).anySatisfy(post -> assertThat(post).contains("[text/plain"))
                .anySatisfy(post -> assertThat(post).contains("[application/x-www-form-urlencoded"))
                .anySatisfy(post -> assertThat(post).contains("[multipart/form-data"));
        assertThat(this.admin.isPaused(DashQueues.EMAILS)).isFalse();
        assertThat(this.admin.deadLetters(DashQueues.EMAILS, 10)).singleElement()
                .satisfies(d -> assertThat(d.key()).isEqualTo(key));
        assertThat(this.admin.message(DashQueues.REPORTS, "forged-pending")).hasValueSatisfying(m ->
                assertThat(m.dueAt()).isEqualTo(due));
        assertThat(this.emails.delivered).isEmpty();

        // the same writes as the page itself sends them (JSON) do work: the refusal was the content type's
        assertThat(http().post("/api/queues/EMAILS/pause", "{}").statusCode()).isEqualTo(200);
        assertThat(this.admin.isPaused(DashQueues.EMAILS)).isTrue();
        assertThat(http().post("/api/queues/EMAILS/resume", "{}").statusCode()).isEqualTo(200);
        this.admin.purgeAll(DashQueues.EMAILS);
        this.template.cancel(DashQueues.REPORTS, "forged-pending");
    }

    /**
     * The attacker's page: for each write, three auto-submitted forms (each into its own frame, so that all are
     * sent) and three {@code no-cors} fetches; the title becomes "sent" once every one has an answer.
     */
    private static String page(String site, Map<String, String> writes) {
        List<String> calls = new ArrayList<>();
        writes.forEach((path, json) -> calls.add("[" + js(site + path) + ", " + js(json) + "]"));
        return """
                <!doctype html>
                <html><head><title>a page on another site</title></head><body>
                <script>
                const writes = [%s];
                const pending = [];
                writes.forEach(([url, json], i) => {
                  // a form as text/plain whose body reads as JSON: {"id":"x","pad":"="}
                  const cut = json.length - 1;
                  const forms = [
                    ['application/x-www-form-urlencoded', 'note', 'forged'],
                    ['multipart/form-data', 'note', 'forged'],
                    ['text/plain', json.substring(0, cut) + (cut > 1 ? ',' : '') + '"pad":"', '"}']
                  ];
                  forms.forEach(([type, name, value], j) => {
                    const frame = document.createElement('iframe');
                    frame.name = 'f' + i + '_' + j;
                    pending.push(new Promise(done => frame.onload = done));
                    document.body.appendChild(frame);
                    const form = document.createElement('form');
                    form.method = 'POST';
                    form.action = url;
                    form.enctype = type;
                    form.target = frame.name;
                    const input = document.createElement('input');
                    input.type = 'hidden';
                    input.name = name;
                    input.value = value;
                    form.appendChild(input);
                    document.body.appendChild(form);
                    form.submit();
                  });
                  // no body and no Content-Type: what an endpoint operation without a body parameter accepted
                  pending.push(fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include' }).catch(e => e));
                  // asks for JSON; in no-cors mode the browser drops a Content-Type that is not CORS-safelisted
                  pending.push(fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include',
                      headers: { 'Content-Type': 'application/json' }, body: json }).catch(e => e));
                  pending.push(fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include',
                      body: new Blob([json], { type: 'application/json' }) }).catch(e => e));
                });
                Promise.all(pending).then(() => document.title = 'sent');
                </script>
                </body></html>
                """.formatted(String.join(", ", calls));
    }

    private static String js(String text) {
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
