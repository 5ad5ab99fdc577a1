package io.github.delayqueue.dashboard;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.dashboard.app.DashApp;
import io.github.delayqueue.dashboard.app.DashApp.Email;
import io.github.delayqueue.dashboard.app.DashQueues;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard as configured by default once enabled: read-only, payloads hidden. Every action is refused with
 * 403 and changes nothing, even with a valid CSRF token; the page offers no action at all.
 */
@SpringBootTest(classes = DashApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "delayqueue.dashboard.enabled=true", "spring.main.banner-mode=off" })
class DashboardReadOnlyTests extends DashboardContext {

    @Test
    void everyActionIsRefusedAndTheQueuesStayAsTheyWere() {
        this.template.send(DashQueues.REPORTS, Map.of("report", "r"), Duration.ofHours(1), SendOptions.id("ro-1"));
        this.emails.failFor.add("ro@example.com");
        this.template.send(DashQueues.EMAILS, new Email("ro@example.com", "x"), Duration.ZERO, SendOptions.id("ro-dead"));
        await().atMost(DEADLINE).until(() -> this.admin.deadLetters(DashQueues.EMAILS, 100).stream()
                .anyMatch(d -> d.id().equals("ro-dead")));
        QueuedMessage pending = this.admin.message(DashQueues.REPORTS, "ro-1").orElseThrow();
        List<DeadLetter> dead = this.admin.deadLetters(DashQueues.EMAILS, 100);
        String key = dead.stream().filter(d -> d.id().equals("ro-dead")).findFirst().orElseThrow().key();
        Http http = new Http(base()).open();

        Map<String, String> actions = Map.of("/api/queues/REPORTS/cancel", "{\"id\":\"ro-1\"}",
                "/api/queues/REPORTS/run-now", "{\"id\":\"ro-1\"}",
                "/api/queues/REPORTS/reschedule", "{\"id\":\"ro-1\",\"dueAt\":\"2030-01-01T00:00:00Z\"}",
                "/api/queues/EMAILS/dead-letters/requeue", "{\"keys\":[\"" + key + "\"]}",
                "/api/queues/EMAILS/dead-letters/requeue-all", "{}",
                "/api/queues/EMAILS/dead-letters/delete", "{\"keys\":[\"" + key + "\"]}",
                "/api/queues/EMAILS/pause", "{}", "/api/queues/EMAILS/resume", "{}");
        actions.forEach((path, body) -> {
            HttpResponse<String> response = http.post(path, body);
            assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(403);
            assertThat(response.body()).as(path).contains(
                    "the dashboard is read-only: set delayqueue.dashboard.actions-enabled=true to allow actions");
        });
        HttpResponse<String> payload = http.get("/api/queues/REPORTS/message?id=ro-1");
        assertThat(payload.statusCode()).isEqualTo(403);
        assertThat(payload.body()).contains("payloads are hidden: set delayqueue.dashboard.show-payloads=true");
        // the reason is listed, the payload (its subject) is not
        String deadLetters = http.get("/api/queues/EMAILS/dead-letters").body();
        assertThat(deadLetters).contains("is full").doesNotContain("subject").contains("\"content\":null");

        assertThat(this.admin.message(DashQueues.REPORTS, "ro-1")).contains(pending);
        assertThat(this.admin.deadLetters(DashQueues.EMAILS, 100)).isEqualTo(dead);
        assertThat(this.emails.delivered).isEmpty();
    }

    @Test
    void thePageSaysReadOnlyAndOffersNoAction() {
        this.emails.failFor.add("page@example.com");
        this.template.send(DashQueues.EMAILS, new Email("page@example.com", "x"), Duration.ZERO, SendOptions.id("ro-page"));
        this.template.send(DashQueues.REPORTS, Map.of("report", "r"), Duration.ofHours(1), SendOptions.id("ro-pending"));
        await().atMost(DEADLINE).until(() -> this.admin.deadLetters(DashQueues.EMAILS, 100).stream()
                .anyMatch(d -> d.id().equals("ro-page")));
        try (Browser browser = Browser.start()) {
            browser.open(base() + "#/queues/EMAILS/dead");
            browser.waitForTextContaining(By.cssSelector("#dead-letters tr[data-id='ro-page'] td[data-col='reason']"),
                    "mailbox <page@example.com> is full");
            assertThat(browser.textOf(By.id("mode"))).isEqualTo("read-only");
            assertThat(browser.driver.findElements(By.cssSelector("button[data-action]"))).isEmpty();
            browser.open(base() + "#/queues/REPORTS/pending");
            browser.wait.until(d -> !d.findElements(By.cssSelector("#messages tr[data-id='ro-pending']")).isEmpty());
            assertThat(browser.driver.findElements(By.cssSelector("button[data-action]"))).isEmpty();
        }
    }
}
