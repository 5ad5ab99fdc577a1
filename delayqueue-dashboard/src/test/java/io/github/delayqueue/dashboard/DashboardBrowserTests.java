package io.github.delayqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.history.MessageStatus;
import io.github.delayqueue.core.schedule.ScheduleSpec;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.dashboard.app.DashApp.Email;
import io.github.delayqueue.dashboard.app.DashQueues;
import io.github.delayqueue.spring.schedule.DelayQueueSchedules;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard in headless Chromium, as an operator uses it during an incident: the overview's counts, a queue's
 * pending messages in due order, a dead letter's reason, and the actions, each confirmed, each reporting its result;
 * bad input shows its message on the page; the Schedules tab lists a schedule and pauses and resumes it. Screenshots of each page go to {@code target/screenshots}.
 */
class DashboardBrowserTests extends DashboardTestSupport {

    private static Browser browser;

    @Autowired
    MeterRegistry meters;

    @BeforeAll
    static void startBrowser() {
        if (Browser.installed()) {
            browser = Browser.start();
        }
    }

    @BeforeEach
    void needsTheBrowser() {
        Browser.assumeInstalled(); // each test reported as skipped, with the message, where there is no Chromium
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    private static By cell(String queue, String col) {
        return By.cssSelector("#queues tr[data-queue='" + queue + "'] td[data-col='" + col + "']");
    }

    private static By button(String id, String action) {
        return By.cssSelector("tr[data-id='" + id + "'] button[data-action='" + action + "']");
    }

    private static final By FLASH = By.id("flash");

    private List<String> rowIds(String table) {
        return browser.attributes(By.cssSelector("#" + table + " tbody tr[data-id]"), "data-id");
    }

    @Test
    void theOverviewCountsWhatWasSentAndTheQueuePageListsItInDueOrder() {
        this.template.send(DashQueues.REPORTS, Map.of("report", "weekly", "rows", 20), Duration.ofMinutes(20), SendOptions.id("rep-20"));
        this.template.send(DashQueues.REPORTS, Map.of("report", "daily", "rows", 10), Duration.ofMinutes(10), SendOptions.id("rep-10"));
        this.template.send(DashQueues.REPORTS, Map.of("report", "monthly", "rows", 30), Duration.ofMinutes(30), SendOptions.id("rep-30"));
        this.emails.failFor.add("full@example.com");
        this.template.send(DashQueues.EMAILS, new Email("full@example.com", "hello"), Duration.ZERO, SendOptions.id("bounce"));
        await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.EMAILS).dead() == 1);
        Timer handled = Timer.builder(MicrometerQueueMetrics.HANDLER_DURATION).tag("queue", "EMAILS").tag("outcome", "acknowledged")
                .register(this.meters);

        browser.open(base());
        browser.waitForText(cell("REPORTS", "pending"), "3");
        assertThat(browser.textOf(cell("REPORTS", "ready"))).isEqualTo("0");
        assertThat(browser.textOf(cell("REPORTS", "dead"))).isEqualTo("0");
        assertThat(browser.textOf(cell("REPORTS", "nextDue"))).matches("in (9m \\d+s|10m 0s)");
        // nothing handled: "—" until the page has two samples of the queue's timers, then a rate of 0
        assertThat(browser.textOf(cell("REPORTS", "handled"))).matches("—|0\\.0");
        assertThat(browser.textOf(cell("EMAILS", "dead"))).isEqualTo("1");
        // the starter's own lateness timer of the bounced email's deliveries, with the p99 the app's filter publishes
        assertThat(browser.textOf(cell("EMAILS", "lateness"))).matches("[0-9.]+ m?s \\(p99\\)");
        assertThat(browser.textOf(By.cssSelector("#consumers tr[data-queue='EMAILS'] td[data-col='state']"))).isEqualTo("running");
        assertThat(browser.textOf(By.cssSelector("#consumers tr[data-queue='EMAILS'] td[data-col='limits']"))).isEqualTo("—");
        assertThat(browser.textOf(By.id("mode"))).isEqualTo("actions enabled");
        // throughput: the page samples the timer at each refresh (every second here)
        for (int i = 0; i < 120; i++) {
            handled.record(2, TimeUnit.MILLISECONDS);
        }
        browser.wait.until(d -> d.findElement(cell("EMAILS", "handled")).getText().matches("[0-9.]+")
                && Double.parseDouble(d.findElement(cell("EMAILS", "handled")).getText()) > 0);
        browser.screenshot("dashboard-overview");

        browser.click(By.linkText("REPORTS"));
        browser.wait.until(d -> rowIds("messages").size() == 3);
        assertThat(rowIds("messages")).containsExactly("rep-10", "rep-20", "rep-30");
        assertThat(browser.textOf(By.cssSelector("#messages tr[data-id='rep-10'] td[data-col='dueIn']")))
                .matches("in (9m \\d+s|10m 0s)");
        assertThat(browser.textOf(By.id("page-info"))).isEqualTo("1–3 of 3");
        browser.click(button("rep-10", "payload"));
        assertThat(browser.textOf(By.id("payload-body"))).contains("\"report\": \"daily\"").contains("\n");
        browser.screenshot("dashboard-queue");
    }

    @Test
    void theQueuePageShowsTheFlowOfEveryInstanceFromRedis() {
        this.slow.hold();
        this.template.send(DashQueues.SLOW, "hold", Duration.ZERO, SendOptions.id("held"));
        try {
            await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.SLOW).inFlight() == 1);
            this.template.send(DashQueues.SLOW, "wait", Duration.ZERO, SendOptions.id("wait-1"));
            this.template.send(DashQueues.SLOW, "wait", Duration.ZERO, SendOptions.id("wait-2"));

            browser.open(base());
            browser.waitForText(cell("SLOW", "throttled"), "2");
            assertThat(browser.textOf(cell("REPORTS", "throttled"))).isEqualTo("—"); // no flow control

            browser.open(base() + "#/queues/SLOW/pending");
            By stat = By.cssSelector("#flow .stat[data-col='flowThrottled'] b");
            browser.waitForText(stat, "2");
            assertThat(browser.textOf(By.cssSelector("#flow .stat[data-col='flowRate'] b"))).isEqualTo("100/1s");
            assertThat(browser.textOf(By.cssSelector("#flow .stat[data-col='flowCap'] b"))).startsWith("1 / 1");
            assertThat(browser.textOf(By.id("at-cap"))).isEqualTo("at cap");
            assertThat(browser.textOf(By.cssSelector("#flow .stat[data-col='flowClaims'] b"))).matches("[0-9.]+/s");
            assertThat(browser.textOf(By.cssSelector("#flow .stat[data-col='flowHold'] b"))).isEqualTo("none");
            browser.screenshot("dashboard-flow");

            browser.open(base() + "#/queues/REPORTS/pending");
            browser.waitForText(By.id("view-title"), "Queue REPORTS");
            assertThat(browser.driver.findElements(By.id("flow"))).isEmpty();
            // no flow panel leaves nothing in its place (the page once showed the word "null" there)
            assertThat(browser.textOf(By.id("view"))).doesNotContainPattern("(?m)^null$");
        } finally {
            this.slow.release();
        }
    }

    @Test
    void aDeadLettersReasonIsShownAndRequeueDeliversIt() {
        this.emails.failFor.add("full@example.com");
        this.template.send(DashQueues.EMAILS, new Email("full@example.com", "first"), Duration.ZERO, SendOptions.id("dl-1"));
        this.template.send(DashQueues.EMAILS, new Email("full@example.com", "second"), Duration.ZERO, SendOptions.id("dl-2"));
        await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.EMAILS).dead() == 2);

        browser.open(base() + "#/queues/EMAILS/dead");
        By reason = By.cssSelector("#dead-letters tr[data-id='dl-1'] td[data-col='reason']");
        // the reason is text, never markup: "<full@example.com>" shows as written
        browser.waitForText(reason, "java.lang.IllegalStateException: mailbox <full@example.com> is full");
        assertThat(browser.driver.findElements(By.tagName("full@example.com"))).isEmpty();
        assertThat(browser.textOf(By.cssSelector("#dead-letters tr[data-id='dl-1'] td[data-col='attempts']"))).isEqualTo("1");
        browser.screenshot("dashboard-dead-letters");

        this.emails.failFor.clear();
        browser.click(button("dl-1", "requeue"));
        assertThat(browser.confirm(true)).startsWith("Requeue dead letter dl-1?");
        browser.waitForText(FLASH, "Requeued 1 dead letter");
        await().atMost(DEADLINE).until(() -> this.emails.delivered.contains(new Email("full@example.com", "first")));

        browser.click(button("dl-2", "delete"));
        browser.confirm(false);
        assertThat(this.admin.stats(DashQueues.EMAILS).dead()).as("a dismissed confirmation does nothing").isEqualTo(1);
        browser.click(button("dl-2", "delete"));
        browser.confirm(true);
        browser.waitForText(FLASH, "Deleted 1 dead letter");
        assertThat(this.admin.stats(DashQueues.EMAILS).dead()).isZero();
        browser.wait.until(d -> rowIds("dead-letters").isEmpty());
        assertThat(this.emails.delivered).doesNotContain(new Email("full@example.com", "second"));
    }

    /**
     * A grouped message's group (SendOptions.group) shows in the In flight and Dead letters rows, as text: a group
     * that looks like markup shows as written and adds no element. An ungrouped message's group shows "—".
     */
    @Test
    void theGroupOfAMessageInFlightAndOfADeadLetterIsShownAsText() {
        this.slow.hold();
        try {
            this.template.send(DashQueues.SLOW, "hold", Duration.ZERO, SendOptions.id("held-g").group("<b>tenant-42</b>"));
            await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.SLOW).inFlight() == 1);
            browser.open(base() + "#/queues/SLOW/in-flight");
            browser.waitForText(By.cssSelector("#messages tr[data-id='held-g'] td[data-col='group']"), "<b>tenant-42</b>");
            assertThat(browser.driver.findElements(By.cssSelector("#messages td b"))).isEmpty();
            assertThat(browser.textOf(By.cssSelector("#messages thead th:nth-child(2)"))).isEqualToIgnoringCase("Group");
        } finally {
            this.slow.release();
        }

        this.emails.failFor.add("full@example.com");
        this.template.send(DashQueues.EMAILS, new Email("full@example.com", "grouped"), Duration.ZERO,
                SendOptions.id("dl-g").group("<i>tenant-7</i>"));
        this.template.send(DashQueues.EMAILS, new Email("full@example.com", "plain"), Duration.ZERO, SendOptions.id("dl-u"));
        await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.EMAILS).dead() == 2);
        browser.open(base() + "#/queues/EMAILS/dead");
        browser.waitForText(By.cssSelector("#dead-letters tr[data-id='dl-g'] td[data-col='group']"), "<i>tenant-7</i>");
        assertThat(browser.textOf(By.cssSelector("#dead-letters tr[data-id='dl-u'] td[data-col='group']"))).isEqualTo("—");
        assertThat(browser.driver.findElements(By.cssSelector("#dead-letters td i"))).isEmpty();
        assertThat(browser.textOf(By.cssSelector("#dead-letters thead th:nth-child(2)"))).isEqualToIgnoringCase("Group");
    }

    /**
     * A message's priority (SendOptions.priority) is a column of the Pending and In flight tabs, one other than the
     * default (4) marked; it shows beside a payload and in the id search; and the queue's due messages are counted per
     * priority, the highest first, on the overview and the queue page. Run now keeps it.
     */
    @Test
    void aPrioritizedMessagesPriorityIsShownAndDueNowIsCountedPerPriority() {
        this.template.send(DashQueues.REPORTS, Map.of("report", "rush"), Duration.ZERO, SendOptions.id("rush").priority(9));
        this.template.send(DashQueues.REPORTS, Map.of("report", "bulk"), Duration.ZERO, SendOptions.id("bulk").priority(1));
        this.template.send(DashQueues.REPORTS, Map.of("report", "plain"), Duration.ZERO, SendOptions.id("plain"));
        this.template.send(DashQueues.REPORTS, Map.of("report", "later"), Duration.ofHours(1), SendOptions.id("later").priority(7));
        await().atMost(DEADLINE).until(() -> this.admin.stats(DashQueues.REPORTS).ready() == 3);

        browser.open(base());
        browser.waitForText(cell("REPORTS", "ready"), "3 (9: 1, 4: 1, 1: 1)");
        assertThat(browser.textOf(cell("REPORTS", "pending"))).isEqualTo("4");
        assertThat(browser.textOf(cell("EMAILS", "ready"))).as("no priorities: the count alone").isEqualTo("0");

        browser.open(base() + "#/queues/REPORTS/pending");
        browser.waitForText(priorityCell("rush"), "9");
        assertThat(browser.textOf(By.cssSelector("#messages thead th:nth-child(4)"))).isEqualToIgnoringCase("Priority");
        assertThat(browser.textOf(priorityCell("bulk"))).isEqualTo("1");
        assertThat(browser.textOf(priorityCell("plain"))).isEqualTo("4");
        assertThat(browser.textOf(priorityCell("later"))).isEqualTo("7");
        assertThat(browser.attributes(priorityCell("rush"), "class")).containsExactly("num prio-high");
        assertThat(browser.attributes(priorityCell("bulk"), "class")).containsExactly("num prio-low");
        assertThat(browser.attributes(priorityCell("plain"), "class")).containsExactly("num");
        assertThat(browser.textOf(By.cssSelector(".stat[data-col='ready'] b"))).isEqualTo("3 (9: 1, 4: 1, 1: 1)");
        browser.screenshot("dashboard-priorities");

        browser.click(button("later", "payload"));
        browser.waitForText(By.id("payload-priority"), "priority 7");
        lookUp("REPORTS", "bulk");
        browser.textOf(lookupState("pending"));
        assertThat(browser.textOf(lookupField("priority"))).isEqualTo("1");

        browser.click(button("later", "run-now"));
        browser.confirm(true);
        browser.waitForText(FLASH, "Message later is due now");
        assertThat(this.admin.message(DashQueues.REPORTS, "later").map(QueuedMessage::priority)).contains(7);
        browser.waitForText(By.cssSelector(".stat[data-col='ready'] b"), "4 (9: 1, 7: 1, 4: 1, 1: 1)");
    }

    private static By priorityCell(String id) {
        return By.cssSelector("#messages tr[data-id='" + id + "'] td[data-col='priority']");
    }

    @Test
    void actionsOnPendingMessagesReportTheirResultAndBadInputItsMessage() {
        this.template.send(DashQueues.REPORTS, Map.of("report", "late"), Duration.ofHours(1), SendOptions.id("move-me"));
        this.template.send(DashQueues.REPORTS, Map.of("report", "gone"), Duration.ofHours(2), SendOptions.id("gone-soon"));
        this.template.send(DashQueues.EMAILS, new Email("bob@example.com", "now please"), Duration.ofHours(1), SendOptions.id("mail-now"));
        Instant due = this.admin.message(DashQueues.REPORTS, "move-me").map(QueuedMessage::dueAt).orElseThrow();

        // reschedule: a bad time is refused on the page and changes nothing; a good one moves the message
        browser.open(base() + "#/queues/REPORTS/pending");
        browser.click(button("move-me", "reschedule"));
        WebElement input = browser.wait.until(d -> d.findElement(By.id("reschedule-at")));
        input.clear();
        input.sendKeys("next tuesday");
        browser.click(By.id("reschedule-submit"));
        browser.confirm(true);
        browser.waitForTextContaining(FLASH, "400 Bad Request: dueAt must be an ISO-8601 instant");
        assertThat(this.admin.message(DashQueues.REPORTS, "move-me").map(QueuedMessage::dueAt)).contains(due);
        Instant later = due.plus(Duration.ofHours(5)).truncatedTo(ChronoUnit.SECONDS);
        browser.click(button("move-me", "reschedule"));
        input = browser.wait.until(d -> d.findElement(By.id("reschedule-at")));
        input.clear();
        input.sendKeys(later.toString());
        browser.click(By.id("reschedule-submit"));
        browser.confirm(true);
        browser.waitForText(FLASH, "Message move-me is due at " + later);
        assertThat(this.admin.message(DashQueues.REPORTS, "move-me").map(QueuedMessage::dueAt)).contains(later);
        browser.wait.until(d -> rowIds("messages").equals(List.of("gone-soon", "move-me")));

        // cancel a message that is gone by the time the action is confirmed: the page says so. It goes while the
        // confirmation is open (the dialog holds the page's refresh, which would otherwise drop its row first)
        browser.click(button("gone-soon", "cancel"));
        this.template.cancel(DashQueues.REPORTS, "gone-soon");
        browser.confirm(true);
        browser.waitForTextContaining(FLASH, "404 Not Found: no live message 'gone-soon' in queue 'REPORTS'");

        // run now: the handler gets it at once
        browser.open(base() + "#/queues/EMAILS/pending");
        browser.click(button("mail-now", "run-now"));
        assertThat(browser.confirm(true)).isEqualTo("Run message mail-now now?");
        browser.waitForText(FLASH, "Message mail-now is due now");
        await().atMost(DEADLINE).until(() -> this.emails.delivered.contains(new Email("bob@example.com", "now please")));

        // cancel
        browser.open(base() + "#/queues/REPORTS/pending");
        browser.click(button("move-me", "cancel"));
        browser.confirm(true);
        browser.waitForText(FLASH, "Cancelled message move-me");
        assertThat(this.admin.message(DashQueues.REPORTS, "move-me")).isEmpty();

        // an unknown queue, and a page past the end, from a typed or stale URL
        browser.open(base() + "#/queues/NOPE/pending");
        browser.waitForTextContaining(FLASH, "404 Not Found: no queue 'NOPE'; declared queues: [EMAILS, REPORTS, SLOW]");
        this.template.send(DashQueues.REPORTS, Map.of("report", "one"), Duration.ofHours(1), SendOptions.id("only"));
        browser.open(base() + "#/queues/REPORTS/pending?offset=50");
        browser.waitForTextContaining(FLASH, "page past the end: queue 'REPORTS' has 1 pending messages");
    }

    @Test
    void aPausedQueueDeliversNothingUntilResumed() {
        browser.open(base() + "#/queues/EMAILS/pending");
        browser.click(By.cssSelector("button[data-action='pause']"));
        browser.confirm(true);
        browser.waitForText(FLASH, "Paused queue EMAILS");
        browser.textOf(By.id("paused"));
        this.template.send(DashQueues.EMAILS, new Email("carl@example.com", "held"), Duration.ZERO, SendOptions.id("paused-1"));
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> this.emails.delivered.isEmpty());
        browser.click(By.cssSelector("button[data-action='resume']"));
        browser.confirm(true);
        browser.waitForText(FLASH, "Resumed queue EMAILS");
        await().atMost(DEADLINE).until(() -> this.emails.delivered.contains(new Email("carl@example.com", "held")));
    }

    /**
     * Types {@code id} in the id search of {@code queue}'s page and submits it (the search is built for each queue:
     * right after a navigation the previous queue's may still be there).
     */
    private static void lookUp(String queue, String id) {
        WebElement input = browser.wait.until(d -> d.findElement(By.cssSelector("#lookup[data-queue='" + queue + "'] #lookup-id")));
        input.clear();
        input.sendKeys(id);
        browser.click(By.id("lookup-submit"));
    }

    private static By lookupState(String state) {
        return By.cssSelector("#lookup-status[data-state='" + state + "']");
    }

    private static By lookupField(String col) {
        return By.cssSelector("#lookup-fields td[data-col='" + col + "']");
    }

    @Test
    void theIdSearchTellsWhereAMessageStandsAndSaysSoWhenItKnowsNothing() {
        this.template.send(DashQueues.REPORTS, Map.of("report", "find"), Duration.ofHours(1), SendOptions.id("find-me"));
        browser.open(base() + "#/queues/REPORTS/pending");
        lookUp("REPORTS", "find-me");
        browser.textOf(lookupState("pending"));
        assertThat(browser.textOf(By.id("lookup-summary"))).startsWith("Pending find-me: due ").contains("(in ");
        assertThat(browser.textOf(lookupField("attempts"))).isEqualTo("0");
        // the answer and the typed id outlive the page's refresh (every second here): the view is rendered again
        WebElement title = browser.driver.findElement(By.id("view-title"));
        browser.wait.until(ExpectedConditions.stalenessOf(title));
        assertThat(browser.driver.findElements(lookupState("pending"))).hasSize(1);
        assertThat(browser.driver.findElement(By.id("lookup-id")).getDomProperty("value")).isEqualTo("find-me");

        lookUp("REPORTS", "nobody-sent-this");
        browser.textOf(lookupState("unknown"));
        assertThat(browser.textOf(By.id("lookup-summary"))).startsWith("Unknown nobody-sent-this: no message")
                .contains("history holds no record").contains("kept no history").contains("trimmed");
        assertThat(browser.driver.findElements(By.id("lookup-fields"))).isEmpty();
        browser.screenshot("dashboard-lookup-unknown");

        lookUp("REPORTS", "x".repeat(257));
        browser.waitForTextContaining(By.id("lookup-error"), "400 Bad Request: id must be at most 256 characters");
        lookUp("REPORTS", "");
        browser.waitForTextContaining(By.id("lookup-error"), "400 Bad Request: a message id is required");
        assertThat(browser.driver.findElements(By.id("lookup-status"))).isEmpty();

        settled("found-later", "ann@example.com", MessageStatus.State.COMPLETED);
        this.emails.failFor.add("full@example.com");
        settled("found-dead", "full@example.com", MessageStatus.State.DEAD_LETTERED);
        browser.open(base() + "#/queues/EMAILS/pending");
        assertThat(browser.wait.until(d -> d.findElement(By.cssSelector("#lookup[data-queue='EMAILS'] #lookup-id")))
                .getDomProperty("value"))
                .as("another queue's search starts empty").isEmpty();
        lookUp("EMAILS", "found-later");
        browser.textOf(lookupState("completed"));
        assertThat(browser.textOf(By.id("lookup-summary"))).matches("Completed found-later: acknowledged (.+ ago|just now)");
        assertThat(browser.textOf(lookupField("outcome"))).isEqualTo("completed");
        assertThat(browser.textOf(lookupField("attempts"))).isEqualTo("1");
        assertThat(browser.textOf(lookupField("instance"))).contains("@");
        assertThat(browser.textOf(lookupField("took"))).matches("\\d+ ms|[0-9.]+ s");
        assertThat(browser.textOf(lookupField("reason"))).isEqualTo("—");
        browser.screenshot("dashboard-lookup-completed");
        lookUp("EMAILS", "found-dead");
        browser.textOf(lookupState("dead-lettered"));
        // the reason is text, never markup
        assertThat(browser.textOf(lookupField("reason"))).contains("mailbox <full@example.com> is full");
        assertThat(browser.driver.findElements(By.tagName("full@example.com"))).isEmpty();

        browser.open(base() + "#/queues/NOPE/pending");
        browser.waitForTextContaining(FLASH, "404 Not Found: no queue 'NOPE'");
        assertThat(browser.driver.findElements(By.id("lookup-id"))).as("no search on a queue that is not there").isEmpty();
        browser.open(base() + "#/");
        browser.waitForText(By.id("view-title"), "Queues");
        assertThat(browser.driver.findElements(By.id("lookup-id"))).as("no search on the overview").isEmpty();
    }

    /** Types {@code id} in the Sets page's search and submits it. */
    private static void lookUpSet(String id) {
        WebElement input = browser.wait.until(d -> d.findElement(By.cssSelector("#lookup[data-sets] #set-id")));
        input.clear();
        input.sendKeys(id);
        browser.click(By.id("set-submit"));
    }

    @Test
    void theSetsPageShowsASetsCountsStateAndDeadMembersLinkedToTheirDeadLetters() {
        this.emails.failFor.add("full@example.com");
        String set = this.template.sendSet(JobSet.builder().id("campaign/spring " + System.nanoTime())
                .add(DashQueues.EMAILS.code(), List.of(
                        SendRequest.of(new Email("ann@example.com", "s-1"), Duration.ZERO, SendOptions.id("camp-ann")),
                        SendRequest.of(new Email("bob@example.com", "s-2"), Duration.ZERO, SendOptions.id("camp-bob")),
                        SendRequest.of(new Email("full@example.com", "s-3"), Duration.ZERO, SendOptions.id("camp-full"))))
                .build());
        await().atMost(DEADLINE).until(() -> this.admin.setStatus(set).orElseThrow().complete());

        browser.open(base() + "#/");
        browser.waitForText(By.id("view-title"), "Queues");
        browser.click(By.id("nav-sets"));
        browser.waitForTextContaining(By.id("set-help"), "Type a set's id above");
        lookUpSet(set); // an id with '/' and ' ': the address keeps it whole
        browser.waitForText(By.id("set-state"), "Completed with failures");
        assertThat(browser.textOf(By.id("view-title"))).startsWith("Job set " + set);
        assertThat(browser.textOf(By.cssSelector("#set-stat-total b"))).isEqualTo("3");
        assertThat(browser.textOf(By.cssSelector("#set-stat-acknowledged b"))).isEqualTo("2");
        assertThat(browser.textOf(By.cssSelector("#set-stat-dead b"))).isEqualTo("1");
        assertThat(browser.textOf(By.cssSelector("#set-stat-pending b"))).isEqualTo("0");
        assertThat(browser.textOf(By.cssSelector("#set-fields td[data-col='sealed']"))).isEqualTo("yes");
        assertThat(browser.textOf(By.cssSelector("#set-fields td[data-col='successSent']"))).isEqualTo("no");
        assertThat(rowIds("set-dead")).containsExactly("camp-full");
        browser.screenshot("dashboard-set");
        // the typed id outlives the page's refresh (every second here)
        WebElement title = browser.driver.findElement(By.id("view-title"));
        browser.wait.until(ExpectedConditions.stalenessOf(title));
        assertThat(browser.driver.findElement(By.id("set-id")).getDomProperty("value")).isEqualTo(set);

        browser.click(By.cssSelector("#set-dead tr[data-id='camp-full'] td[data-col='queue'] a"));
        browser.waitForText(By.id("view-title"), "Queue EMAILS");
        assertThat(rowIds("dead-letters")).contains("camp-full");

        browser.click(By.id("nav-sets"));
        lookUpSet("never-sent");
        browser.waitForTextContaining(By.id("set-error"), "404 Not Found: no job set 'never-sent'");
        lookUpSet("bad{id}");
        browser.waitForTextContaining(By.id("set-error"), "400 Bad Request: set id must be printable ASCII");
        browser.screenshot("dashboard-set-error");
    }

    @Test
    void theCompletedTabListsTheHistoryLatestFirstAndTellsHowToTurnItOn() {
        settled("c-1", "ann@example.com", MessageStatus.State.COMPLETED);
        settled("c-2", "bob@example.com", MessageStatus.State.COMPLETED);
        this.emails.failFor.add("full@example.com");
        settled("c-3", "full@example.com", MessageStatus.State.DEAD_LETTERED);

        browser.open(base() + "#/queues/EMAILS/pending");
        browser.click(By.id("tab-completed"));
        browser.wait.until(d -> rowIds("history").containsAll(List.of("c-1", "c-2", "c-3")));
        assertThat(browser.driver.findElement(By.id("tab-completed")).getDomAttribute("class")).isEqualTo("active");
        List<String> ids = rowIds("history");
        // other tests settle e-mails too (the history is never emptied): only these three's order is asserted
        assertThat(ids.indexOf("c-3")).isLessThan(ids.indexOf("c-2"));
        assertThat(ids.indexOf("c-2")).isLessThan(ids.indexOf("c-1"));
        assertThat(browser.textOf(historyCell("c-3", "outcome"))).isEqualTo("dead-lettered");
        assertThat(browser.textOf(historyCell("c-3", "reason"))).isEqualTo("java.lang.IllegalStateException: mailbox <full@example.com> is full");
        assertThat(browser.textOf(historyCell("c-1", "outcome"))).isEqualTo("completed");
        assertThat(browser.textOf(historyCell("c-1", "reason"))).isEqualTo("—");
        assertThat(browser.textOf(historyCell("c-1", "attempts"))).isEqualTo("1");
        assertThat(browser.textOf(historyCell("c-1", "instance"))).contains("@");
        assertThat(browser.textOf(historyCell("c-1", "group"))).isEqualTo("—");
        assertThat(browser.textOf(historyCell("c-1", "took"))).matches("\\d+ ms|[0-9.]+ s");
        assertThat(browser.textOf(historyCell("c-1", "settledAt"))).matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ \\((.+ ago|just now)\\)");
        assertThat(browser.textOf(By.id("page-info"))).matches("1–\\d+ of \\d+");
        browser.screenshot("dashboard-completed");

        browser.open(base() + "#/queues/REPORTS/completed");
        browser.waitForTextContaining(By.id("history-empty"), "No records in this queue's history");
        assertThat(browser.textOf(By.id("history-empty"))).contains("delayqueue.queues.REPORTS.history.max-age");
        assertThat(browser.textOf(By.id("page-info"))).isEqualTo("0–0 of 0");
    }

    private static By historyCell(String id, String col) {
        return By.cssSelector("#history tr[data-id='" + id + "'] td[data-col='" + col + "']");
    }

    @Autowired
    DelayQueueSchedules schedules;

    @Test
    void theSchedulesTabListsASchedulePausesItForRedisAndResumesIt() {
        this.schedules.put(ScheduleSpec.cron("REPORTS", "nightly-tab", "0 0 2 * * *").zone(ZoneId.of("Europe/Berlin"))
                .payload(Map.of("report", "nightly")).build());
        try {
            browser.open(base() + "#/queues/REPORTS/schedules");
            browser.waitForText(scheduleCell("nightly-tab", "spec"), "cron 0 0 2 * * *");
            assertThat(browser.textOf(scheduleCell("nightly-tab", "zone"))).isEqualTo("Europe/Berlin");
            assertThat(browser.textOf(scheduleCell("nightly-tab", "origin"))).isEqualTo("API");
            assertThat(browser.textOf(scheduleCell("nightly-tab", "policy"))).isEqualTo("misfire fire-once, overlap allow");
            assertThat(browser.textOf(scheduleCell("nightly-tab", "nextTickAt"))).isNotEqualTo("paused");

            // a dismissed confirmation does nothing; a confirmed one pauses the schedule for every instance (Redis)
            browser.click(button("nightly-tab", "schedule-pause"));
            assertThat(browser.confirm(false)).isEqualTo("Pause schedule nightly-tab? No tick runs until it is resumed.");
            assertThat(this.schedules.get("REPORTS", "nightly-tab").orElseThrow().paused()).isFalse();
            browser.click(button("nightly-tab", "schedule-pause"));
            browser.confirm(true);
            browser.waitForText(FLASH, "Paused schedule nightly-tab");
            assertThat(this.schedules.get("REPORTS", "nightly-tab").orElseThrow().paused()).isTrue();
            browser.waitForText(scheduleCell("nightly-tab", "nextTickAt"), "paused");
            browser.screenshot("dashboard-schedules");

            browser.click(button("nightly-tab", "schedule-resume"));
            assertThat(browser.confirm(true)).isEqualTo("Resume schedule nightly-tab?");
            browser.waitForText(FLASH, "Resumed schedule nightly-tab");
            assertThat(this.schedules.get("REPORTS", "nightly-tab").orElseThrow().paused()).isFalse();
            browser.wait.until(d -> !d.findElement(scheduleCell("nightly-tab", "nextTickAt")).getText().equals("paused"));
        } finally {
            this.schedules.remove("REPORTS", "nightly-tab");
        }
    }

    private static By scheduleCell(String id, String col) {
        return By.cssSelector("#schedules tr[data-id='" + id + "'] td[data-col='" + col + "']");
    }

    /**
     * The queue page's three charts of the last hour, inline SVG: a bar per minute with what the API reads from the
     * activity counts in Redis, axis labels, and a tooltip per minute naming its values.
     */
    @Test
    void theQueuePageChartsTheLastHourHandledFailedAndLateness() {
        this.emails.failFor.add("bounce@example.com");
        this.template.send(DashQueues.EMAILS, new Email("ok@example.com", "chart-1"), Duration.ZERO);
        this.template.send(DashQueues.EMAILS, new Email("ok@example.com", "chart-2"), Duration.ZERO);
        this.template.send(DashQueues.EMAILS, new Email("bounce@example.com", "chart-3"), Duration.ZERO);
        await().atMost(DEADLINE).until(() -> this.emails.delivered.size() == 2 && this.admin.stats(DashQueues.EMAILS).dead() == 1
                && this.admin.stats(DashQueues.EMAILS).inFlight() == 0);
        this.admin.client(DashQueues.EMAILS).flushActivity(); // rather than at the next minute
        Map<String, Long> handled = new java.util.TreeMap<>();
        Map<String, Long> dead = new java.util.TreeMap<>();
        long maxLateness = 0;
        for (io.github.delayqueue.core.activity.ActivityMinute m : this.admin.activity(DashQueues.EMAILS)) {
            if (m.handled() > 0) {
                handled.put(m.minute().toString(), m.handled());
            }
            if (m.deadLettered() > 0) {
                dead.put(m.minute().toString(), m.deadLettered());
            }
            maxLateness = Math.max(maxLateness, m.maxLateness().toMillis());
        }
        assertThat(handled.values().stream().mapToLong(Long::longValue).sum()).isGreaterThanOrEqualTo(2);

        browser.open(base() + "#/queues/EMAILS/pending");
        By handledBars = By.cssSelector("svg[data-chart='handled'] rect.bar");
        browser.wait.until(d -> !d.findElements(handledBars).isEmpty());
        assertThat(barValues(handledBars)).isEqualTo(handled);
        assertThat(barValues(By.cssSelector("svg[data-chart='failed'] rect.bar[data-series='deadLettered']"))).isEqualTo(dead);
        assertThat(browser.attributes(By.cssSelector("svg[data-chart='lateness']"), "data-max"))
                .containsExactly(Long.toString(maxLateness));
        for (String chart : List.of("handled", "failed", "lateness")) {
            assertThat(browser.driver.findElements(By.cssSelector("svg[data-chart='" + chart + "'] rect.hit"))).hasSize(60);
            assertThat(browser.textOf(By.cssSelector("#chart-" + chart + " .chart-title")))
                    .isEqualToIgnoringCase(chart + " per minute"); // shown in capitals
        }
        // the y axis's top is a round number at least the largest bar; the x axis names the first and last minute
        long top = Long.parseLong(textContent(By.cssSelector("svg[data-chart='handled'] text.y-top")));
        assertThat(top).isGreaterThanOrEqualTo(java.util.Collections.max(handled.values()));
        assertThat(textContent(By.cssSelector("svg[data-chart='handled'] text.x-last"))).matches("\\d\\d:\\d\\d");
        // the tooltip of a minute with handled messages names its count
        Map.Entry<String, Long> busy = handled.entrySet().iterator().next();
        assertThat(textContent(By.cssSelector("svg[data-chart='handled'] rect.hit[data-minute='" + busy.getKey() + "'] title")))
                .isEqualTo(busy.getKey().substring(11, 16) + " UTC — handled " + busy.getValue());
        assertThat(textContent(By.cssSelector("svg[data-chart='lateness'] rect.hit[data-minute='" + busy.getKey() + "'] title")))
                .matches(".* UTC — max [0-9.]+ m?s, average [0-9.]+ m?s");
        browser.screenshot("dashboard-activity");
    }

    /** Minute → value of the bars found, read from their data attributes. */
    private Map<String, Long> barValues(By bars) {
        List<String> minutes = browser.attributes(bars, "data-minute");
        List<String> values = browser.attributes(bars, "data-value");
        Map<String, Long> out = new java.util.TreeMap<>();
        for (int i = 0; i < minutes.size(); i++) {
            out.put(minutes.get(i), Long.parseLong(values.get(i)));
        }
        return out;
    }

    private String textContent(By by) {
        return browser.wait.until(d -> {
            List<WebElement> found = d.findElements(by);
            return found.isEmpty() ? null : found.get(0).getDomProperty("textContent");
        });
    }
}
