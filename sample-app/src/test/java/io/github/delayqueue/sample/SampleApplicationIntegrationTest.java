package io.github.delayqueue.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.sample.meetings.Meeting;
import io.github.delayqueue.sample.orders.Order;
import io.github.delayqueue.sample.orders.OrderStatus;
import io.github.delayqueue.sample.orders.PaymentTimeout;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueTemplate;

/**
 * Boots the sample on its defaults (an embedded Redis, unless {@code DELAYQUEUE_REDIS_URL} names one)
 * with a 2-second payment window, and drives it over HTTP as the README's curl session does.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sample.payment-timeout=2s", "sample.reminder-lead=10m", "sample.max-order-cents=100000" })
class SampleApplicationIntegrationTest {

    private static final Duration PATIENCE = Duration.ofSeconds(15);

    @Value("${local.server.port}")
    int port;

    @Autowired
    DelayQueueAdmin admin;

    @Autowired
    DelayQueueTemplate template;

    RestClient http;

    @BeforeEach
    void client() {
        this.http = RestClient.builder().baseUrl("http://localhost:" + this.port).build();
    }

    @Test
    void unpaidOrderIsCancelledAfterItsTimeoutAndPaidOrderStaysPaid() {
        Order unpaid = createOrder("alice", 4200);
        Order paid = createOrder("bob", 1500);
        assertThat(unpaid.status()).isEqualTo(OrderStatus.PENDING_PAYMENT);

        assertThat(pay(paid.id()).status()).isEqualTo(OrderStatus.PAID);

        await().atMost(PATIENCE).untilAsserted(() -> assertThat(order(unpaid.id()).status()).isEqualTo(OrderStatus.CANCELLED));
        Order cancelled = order(unpaid.id());
        assertThat(cancelled.closedAt()).isAfterOrEqualTo(unpaid.paymentDueAt());
        // the paid order's timeout was withdrawn; once its window has passed it is still paid
        await().atMost(PATIENCE).until(() -> Instant.now().isAfter(paid.paymentDueAt().plusMillis(500)));
        assertThat(order(paid.id()).status()).isEqualTo(OrderStatus.PAID);
        assertThatThrownBy(() -> pay(unpaid.id())).isInstanceOf(HttpClientErrorException.BadRequest.class);
    }

    @Test
    void prometheusShowsTheDelayQueueMetersAsTheReadmeSays() {
        Order unpaid = createOrder("erin", 1200);
        await().atMost(PATIENCE).until(() -> order(unpaid.id()).status() == OrderStatus.CANCELLED);

        await().atMost(PATIENCE).untilAsserted(() -> {
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
        this.template.send(SampleQueues.ORDER_PAYMENT_TIMEOUT, new PaymentTimeout(order.reference()), Duration.ZERO);

        await().atMost(PATIENCE).until(() -> queueIsEmpty(SampleQueues.ORDER_PAYMENT_TIMEOUT));
        assertThat(order(order.id()).status()).isEqualTo(OrderStatus.PAID);
        assertThat(this.admin.stats(SampleQueues.ORDER_PAYMENT_TIMEOUT).dead()).isZero();
    }

    @Test
    void aRejectedOrderRollsBackAndSchedulesNoTimeout() {
        await().atMost(PATIENCE).until(() -> queueIsEmpty(SampleQueues.ORDER_PAYMENT_TIMEOUT));

        // the order row and its timeout are written in one transaction; the over-limit rule rolls both back
        assertThatThrownBy(() -> createOrder("dave", 100_001)).isInstanceOf(HttpClientErrorException.BadRequest.class);

        assertThat(queueIsEmpty(SampleQueues.ORDER_PAYMENT_TIMEOUT)).isTrue();
        assertThatThrownBy(() -> createOrder(" ", 100)).isInstanceOf(HttpClientErrorException.BadRequest.class);
        assertThatThrownBy(() -> order(999_999)).isInstanceOf(HttpClientErrorException.NotFound.class);
    }

    @Test
    void meetingAttendeesAreRemindedTheLeadTimeBeforeTheStart() {
        Instant startsAt = Instant.now().plus(Duration.ofMinutes(10)).plusSeconds(1);
        Meeting meeting = this.http.post().uri("/meetings").contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("title", "Standup", "startsAt", startsAt.toString(),
                        "attendees", List.of("alice@example.com", "bob@example.com")))
                .retrieve().body(Meeting.class);
        assertThat(meeting.remindedAt()).isNull();

        await().atMost(PATIENCE).untilAsserted(() -> assertThat(meeting(meeting.id()).remindedAt()).isNotNull());
        assertThat(meeting(meeting.id()).remindedAt()).isAfterOrEqualTo(meeting.remindAt());
    }

    @Test
    void queuesEndpointListsEveryDeclaredQueue() {
        List<QueueStats> stats = this.http.get().uri("/queues").retrieve()
                .body(new ParameterizedTypeReference<List<QueueStats>>() { });
        assertThat(stats).extracting(QueueStats::queue).containsExactly("MEETING_REMINDER", "ORDER_PAYMENT_TIMEOUT");
        assertThat(this.http.get().uri("/queues/ORDER_PAYMENT_TIMEOUT/dead-letters").retrieve().body(List.class)).isEmpty();
        assertThatThrownBy(() -> this.http.get().uri("/queues/NOPE/dead-letters").retrieve().body(List.class))
                .isInstanceOf(HttpClientErrorException.NotFound.class);
    }

    private boolean queueIsEmpty(SampleQueues queue) {
        QueueStats stats = this.admin.stats(queue);
        return stats.pending() == 0 && stats.inFlight() == 0;
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
}
