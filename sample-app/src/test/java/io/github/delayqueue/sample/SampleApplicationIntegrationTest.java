package io.github.delayqueue.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import io.github.delayqueue.core.schedule.ScheduleInfo;
import io.github.delayqueue.sample.reports.NightlyReportJob;
import io.github.delayqueue.spring.schedule.DelayQueueSchedules;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.sample.campaigns.CampaignReport;
import io.github.delayqueue.sample.meetings.Meeting;
import io.github.delayqueue.sample.meetings.MeetingReminder;
import io.github.delayqueue.sample.meetings.MeetingService;
import io.github.delayqueue.sample.orders.Order;
import io.github.delayqueue.sample.orders.OrderStatus;
import io.github.delayqueue.sample.orders.PaymentTimeout;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.test.DelayQueueTester;
import io.github.delayqueue.test.ScheduledMessage;

/**
 * Boots the sample on its defaults (its 30-second payment window; an embedded Redis from delayqueue-test, unless
 * {@code DELAYQUEUE_REDIS_URL} names one) and drives it over HTTP as the README's curl session does. Delayed
 * messages go through Redis, the consumers and the real handlers, but the tests do not wait for their due times:
 * {@link DelayQueueTester} shows what was scheduled and runs it now.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sample.reminder-lead=10m", "sample.max-order-cents=100000" })
class SampleApplicationIntegrationTest {

    @Value("${local.server.port}")
    int port;

    @Autowired
    DelayQueueAdmin admin;

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    DelayQueueTester delayQueue;

    @Autowired
    CampaignReport reports;

    RestClient http;

    @BeforeEach
    void client() {
        this.http = RestClient.builder().baseUrl("http://localhost:" + this.port).build();
    }

    @BeforeEach
    void noMessagesOfOtherTests() {
        this.delayQueue.awaitIdle();
        this.delayQueue.reset();
    }

    @Test
    void unpaidOrderIsCancelledWhenItsTimeoutRunsAndPaidOrderStaysPaid() {
        Order unpaid = createOrder("alice", 4200);
        Order paid = createOrder("bob", 1500);
        assertThat(unpaid.status()).isEqualTo(OrderStatus.PENDING_PAYMENT);

        // creating an order scheduled its payment timeout, due in the sample's 30 seconds (by the Redis clock)
        List<ScheduledMessage<PaymentTimeout>> timeouts = this.delayQueue.pending(SampleQueues.ORDER_PAYMENT_TIMEOUT,
                PaymentTimeout.class);
        assertThat(timeouts).extracting(ScheduledMessage::id)
                .containsExactly("order-" + unpaid.reference(), "order-" + paid.reference());
        assertThat(timeouts.get(0).payload()).isEqualTo(new PaymentTimeout(unpaid.reference()));
        assertThat(timeouts.get(0).dueIn()).isCloseTo(Duration.ofSeconds(30), Duration.ofSeconds(10));

        // paying withdraws the paid order's timeout
        assertThat(pay(paid.id()).status()).isEqualTo(OrderStatus.PAID);
        assertThat(this.delayQueue.pending(SampleQueues.ORDER_PAYMENT_TIMEOUT)).extracting(ScheduledMessage::id)
                .containsExactly("order-" + unpaid.reference());

        // 30 seconds pass, at once: the timeout is handled by PaymentTimeoutHandler, through Redis
        assertThat(this.delayQueue.runDueWithin(SampleQueues.ORDER_PAYMENT_TIMEOUT, Duration.ofSeconds(30)))
                .containsExactly("order-" + unpaid.reference());

        assertThat(order(unpaid.id()).status()).isEqualTo(OrderStatus.CANCELLED);
        assertThat(order(paid.id()).status()).isEqualTo(OrderStatus.PAID);
        // what became of the timeout, from the queue's history, as the README's walk-through reads it
        Map<?, ?> timeout = this.http.get().uri("/orders/{id}/timeout", unpaid.id()).retrieve().body(Map.class);
        assertThat(timeout.get("state")).isEqualTo("COMPLETED");
        assertThat(timeout.get("attempts")).isEqualTo(1);
        assertThat((String) timeout.get("instance")).contains("@");
        assertThatThrownBy(() -> pay(unpaid.id())).isInstanceOf(HttpClientErrorException.BadRequest.class);
    }

    @Test
    void prometheusShowsTheDelayQueueMetersAsTheReadmeSays() {
        Order unpaid = createOrder("erin", 1200);
        this.delayQueue.run(SampleQueues.ORDER_PAYMENT_TIMEOUT, "order-" + unpaid.reference());
        assertThat(order(unpaid.id()).status()).isEqualTo(OrderStatus.CANCELLED);

        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            String scrape = this.http.get().uri("/actuator/prometheus").retrieve().body(String.class);
            assertThat(scrape).contains("delayqueue_messages_sent_total{batch=\"false\",mode=\"if_absent\",queue=\"ORDER_PAYMENT_TIMEOUT\"}")
                    .contains("delayqueue_messages_acknowledged_total{queue=\"ORDER_PAYMENT_TIMEOUT\"}")
                    .contains("delayqueue_handler_duration_seconds_count{outcome=\"acknowledged\",queue=\"ORDER_PAYMENT_TIMEOUT\"}")
                    .contains("delayqueue_lateness_seconds_count{queue=\"ORDER_PAYMENT_TIMEOUT\"}")
                    .contains("delayqueue_queue_ready{queue=\"MEETING_REMINDER\"}");
        });
    }

    @Test
    void aTimeoutArrivingForAPaidOrderChangesNothing() {
        Order order = createOrder("carol", 990);
        pay(order.id());
        // as if the cancel had been lost, or the message redelivered: the handler checks the order's state
        String id = this.template.send(SampleQueues.ORDER_PAYMENT_TIMEOUT, new PaymentTimeout(order.reference()),
                Duration.ofMinutes(30), SendOptions.id("redelivered-" + order.reference()));

        this.delayQueue.run(SampleQueues.ORDER_PAYMENT_TIMEOUT, id);   // fails if the handler's attempts end dead

        assertThat(order(order.id()).status()).isEqualTo(OrderStatus.PAID);
        assertThat(this.delayQueue.deadLetters(SampleQueues.ORDER_PAYMENT_TIMEOUT)).isEmpty();
    }

    @Test
    void aRejectedOrderRollsBackAndSchedulesNoTimeout() {
        // the order row and its timeout are written in one transaction; the over-limit rule rolls both back
        assertThatThrownBy(() -> createOrder("dave", 100_001)).isInstanceOf(HttpClientErrorException.BadRequest.class);

        assertThat(this.delayQueue.pending(SampleQueues.ORDER_PAYMENT_TIMEOUT)).isEmpty();
        assertThatThrownBy(() -> createOrder(" ", 100)).isInstanceOf(HttpClientErrorException.BadRequest.class);
        assertThatThrownBy(() -> order(999_999)).isInstanceOf(HttpClientErrorException.NotFound.class);
    }

    @Test
    void meetingAttendeesAreRemindedTheLeadTimeBeforeTheStart() {
        Instant startsAt = Instant.now().plus(Duration.ofHours(2));
        Meeting meeting = this.http.post().uri("/meetings").contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("title", "Standup", "startsAt", startsAt.toString(),
                        "attendees", List.of("alice@example.com", "bob@example.com")))
                .retrieve().body(Meeting.class);
        assertThat(meeting.remindedAt()).isNull();

        // the reminder is due 10 minutes (the lead) before the start
        ScheduledMessage<MeetingReminder> reminder = this.delayQueue.pending(SampleQueues.MEETING_REMINDER,
                MeetingReminder.class).get(0);
        assertThat(reminder.payload().meetingReference()).isEqualTo(meeting.reference());
        assertThat(reminder.dueAt()).isCloseTo(meeting.remindAt(), within(1, ChronoUnit.MILLIS));
        assertThat(this.delayQueue.runDueWithin(SampleQueues.MEETING_REMINDER, Duration.ofMinutes(100))).isEmpty();

        assertThat(this.delayQueue.runDueWithin(SampleQueues.MEETING_REMINDER, Duration.ofMinutes(111))).hasSize(1);
        assertThat(meeting(meeting.id()).remindedAt()).isNotNull();
    }

    /**
     * A meeting starting sooner than the lead time is reminded at once, with a higher priority than the reminders of
     * the other meetings (docs/guides/priorities.md). The queue is paused to read the reminder before it is handled.
     */
    @Test
    void aShortNoticeMeetingsReminderIsDueAtOnceAheadOfTheOthers() {
        this.admin.pause(SampleQueues.MEETING_REMINDER);
        Meeting soon;
        try {
            Meeting later = createMeeting("Planning", Instant.now().plus(Duration.ofHours(2)));
            soon = createMeeting("Incident call", Instant.now().plus(Duration.ofMinutes(5)));

            List<ScheduledMessage<MeetingReminder>> reminders = this.delayQueue.pending(SampleQueues.MEETING_REMINDER,
                    MeetingReminder.class);
            assertThat(reminders).extracting(r -> r.payload().meetingReference())
                    .containsExactly(soon.reference(), later.reference());
            assertThat(reminders.get(0).dueIn()).isNegative(); // the lead time before its start: past
            assertThat(reminders).extracting(ScheduledMessage::priority)
                    .containsExactly(MeetingService.SHORT_NOTICE_PRIORITY, SendOptions.DEFAULT_PRIORITY);
        } finally {
            this.admin.resume(SampleQueues.MEETING_REMINDER);
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> meeting(soon.id()).remindedAt() != null);
    }

    private Meeting createMeeting(String title, Instant startsAt) {
        return this.http.post().uri("/meetings").contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("title", title, "startsAt", startsAt.toString(), "attendees", List.of("alice@example.com")))
                .retrieve().body(Meeting.class);
    }

    @Test
    void aCampaignsEmailsGoOutAsOneJobSetAndItsReportRunsOnceAllAreSent() {
        Map<?, ?> created = this.http.post().uri("/campaigns").contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("name", "spring-sale", "recipients", List.of("ann@example.com", "bob@example.com",
                        "cyd@example.com")))
                .retrieve().body(Map.class);
        String id = (String) created.get("id");
        assertThat(created.get("emails")).isEqualTo(3);

        await().atMost(Duration.ofSeconds(30)).until(() -> this.reports.reported().contains(id));
        Map<?, ?> status = this.http.get().uri("/campaigns/{id}", id).retrieve().body(Map.class);
        assertThat(status.get("emails")).isEqualTo(3);
        assertThat(status.get("sent")).isEqualTo(3);
        assertThat(status.get("reported")).isEqualTo(true);

        // a recipient without a mailbox: that e-mail dies at once, the campaign completes without its report
        String bounced = (String) this.http.post().uri("/campaigns").contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("name", "autumn-sale", "recipients", List.of("ann@example.com", "nobody@bounce.example")))
                .retrieve().body(Map.class).get("id");
        await().atMost(Duration.ofSeconds(30)).until(() -> Boolean.TRUE.equals(
                this.http.get().uri("/campaigns/{id}", bounced).retrieve().body(Map.class).get("complete")));
        Map<?, ?> done = this.http.get().uri("/campaigns/{id}", bounced).retrieve().body(Map.class);
        assertThat(done.get("dead")).isEqualTo(1);
        assertThat(done.get("sent")).isEqualTo(1);
        assertThat(done.get("reported")).isEqualTo(false);
        assertThat((List<?>) done.get("deadEmails")).hasSize(1);
        assertThat(this.reports.reported()).doesNotContain(bounced);

        assertThatThrownBy(() -> this.http.get().uri("/campaigns/{id}", "never-sent").retrieve().body(Map.class))
                .isInstanceOf(HttpClientErrorException.NotFound.class);
        assertThatThrownBy(() -> this.http.get().uri("/campaigns/{id}", "bad{id}").retrieve().body(Map.class))
                .isInstanceOf(HttpClientErrorException.BadRequest.class);
    }

    @Test
    void queuesEndpointListsEveryDeclaredQueue() {
        List<QueueStats> stats = this.http.get().uri("/queues").retrieve()
                .body(new ParameterizedTypeReference<List<QueueStats>>() { });
        assertThat(stats).extracting(QueueStats::queue).containsExactly("CAMPAIGN_EMAIL", "CAMPAIGN_REPORT",
                "MEETING_REMINDER", "NIGHTLY_REPORT", "ORDER_PAYMENT_TIMEOUT");
        assertThat(this.http.get().uri("/queues/ORDER_PAYMENT_TIMEOUT/dead-letters").retrieve().body(List.class)).isEmpty();
        assertThatThrownBy(() -> this.http.get().uri("/queues/NOPE/dead-letters").retrieve().body(List.class))
                .isInstanceOf(HttpClientErrorException.NotFound.class);
    }

    @Test
    void theDelayqueueEndpointIsExposedAndPausesAndResumesAQueue() {
        Map<String, Map<String, Object>> read = this.http.get().uri("/actuator/delayqueue").retrieve()
                .body(new ParameterizedTypeReference<Map<String, Map<String, Object>>>() { });
        assertThat(read.get("queues")).containsKeys("ORDER_PAYMENT_TIMEOUT", "MEETING_REMINDER");
        assertThat(read.get("consumers")).containsKeys("ORDER_PAYMENT_TIMEOUT", "MEETING_REMINDER");

        // as the README's walk-through: a write takes JSON (the sample's application.yml allows the writes)
        Map<String, Object> paused = this.http.post().uri("/actuator/delayqueue/MEETING_REMINDER/pause")
                .contentType(MediaType.APPLICATION_JSON).body(Map.of("note", "the sample's test")).retrieve()
                .body(new ParameterizedTypeReference<Map<String, Object>>() { });
        assertThat(paused).containsEntry("paused", true);
        assertThat(this.admin.isPaused(SampleQueues.MEETING_REMINDER)).isTrue();
        this.http.post().uri("/actuator/delayqueue/MEETING_REMINDER/resume").contentType(MediaType.APPLICATION_JSON)
                .retrieve().toBodilessEntity();
        assertThat(this.admin.isPaused(SampleQueues.MEETING_REMINDER)).isFalse();
    }

    @Test
    void theDashboardIsServedWithItsActions() {
        String page = this.http.get().uri("/delayqueue").retrieve().body(String.class);
        assertThat(page).contains("<meta name=\"dq-base\" content=\"/delayqueue\">");
        String overview = this.http.get().uri("/delayqueue/api/overview").retrieve().body(String.class);
        assertThat(overview).contains("\"actionsEnabled\":true", "\"code\":\"ORDER_PAYMENT_TIMEOUT\"");
    }

    private Order createOrder(String customer, long amountCents) {
        return this.http.post().uri("/orders").contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("customer", customer, "amountCents", amountCents)).retrieve().body(Order.class);
    }

    private Order pay(long id) {
        return this.http.post().uri("/orders/{id}/pay", id).retrieve().body(Order.class);
    }

    private Order order(long id) {
        return this.http.get().uri("/orders/{id}", id).retrieve().body(Order.class);
    }

    private Meeting meeting(long id) {
        return this.http.get().uri("/meetings/{id}", id).retrieve().body(Meeting.class);
    }

    @Autowired
    DelayQueueSchedules schedules;

    @Autowired
    NightlyReportJob nightlyReport;

    @Test
    void theReportScheduleOfTheYamlIsDeclaredAndItsTicksRunTheJob() {
        await().atMost(Duration.ofSeconds(30)).until(() -> this.schedules.get("NIGHTLY_REPORT", "nightly-report").isPresent());
        ScheduleInfo info = this.schedules.get("NIGHTLY_REPORT", "nightly-report").orElseThrow(); // declared at startup
        assertThat(info.spec().expression()).isEqualTo("*/30 * * * * *");
        assertThat(info.declared()).isTrue();
        long before = this.nightlyReport.runs();
        this.schedules.trigger("NIGHTLY_REPORT", "nightly-report"); // a tick now, rather than waiting up to 30 s
        await().atMost(Duration.ofSeconds(30)).until(() -> this.nightlyReport.runs() > before);
        Map<?, ?> page = this.http.get().uri("/actuator/delayqueue/NIGHTLY_REPORT/schedules").retrieve().body(Map.class);
        assertThat(page.get("total")).isEqualTo(1);
    }
}
