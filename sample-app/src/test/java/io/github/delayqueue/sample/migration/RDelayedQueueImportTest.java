package io.github.delayqueue.sample.migration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import io.github.delayqueue.core.ImportReport;
import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.sample.SampleQueues;
import io.github.delayqueue.sample.orders.Order;
import io.github.delayqueue.sample.orders.OrderStatus;
import io.github.delayqueue.spring.DelayQueueAdmin;

/**
 * The migration recipe in the sample: JSON strings that an older version of the service offered to two Redisson
 * {@code RDelayedQueue}s are imported by the {@link RDelayedQueueImport} runner into the two queues, mapped to the
 * payload records (fields the records dropped are gone from the imported messages); the imported payment timeout
 * cancels its unpaid order while the order's own timeout is 10 minutes away. The runner ran at startup before the
 * consumers had started.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sample.payment-timeout=10m", "sample.migration.rdelayedqueue.enabled=true",
                "sample.migration.rdelayedqueue.dry-run=false",
                "sample.migration.rdelayedqueue.payment-timeouts=" + RDelayedQueueImportTest.PAYMENTS,
                "sample.migration.rdelayedqueue.meeting-reminders=" + RDelayedQueueImportTest.REMINDERS })
@SuppressWarnings("deprecation") // RDelayedQueue: what the older version of the service used
class RDelayedQueueImportTest {

    static final String PAYMENTS = "legacyPaymentTimeouts";

    static final String REMINDERS = "legacyMeetingReminders";

    @Value("${local.server.port}")
    int port;

    @Autowired
    RDelayedQueueImport runner;

    @Autowired
    RedissonClient redisson;

    @Autowired
    DelayQueueAdmin admin;

    @AfterEach
    void deleteRedissonKeys() {
        for (String name : List.of(PAYMENTS, REMINDERS)) {
            this.redisson.getKeys().delete(name, "redisson_delay_queue:{" + name + "}",
                    "redisson_delay_queue_timeout:{" + name + "}");
        }
    }

    @Test
    void jsonJobsLeftInTwoRDelayedQueuesAreImportedIntoTheirQueuesAsThePayloadRecords() {
        assertThat(this.runner.consumersRunningAtStartup()).as("consumers had started before the import").isFalse();
        RestClient http = RestClient.builder().baseUrl("http://localhost:" + this.port).build();
        Order order = http.post().uri("/orders").contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("customer", "erin", "amountCents", 700)).retrieve().body(Order.class);
        // what the older version did, JSON strings with Redisson's default codec, with fields the records dropped;
        // then it was stopped
        RDelayedQueue<Object> payments = this.redisson.getDelayedQueue(this.redisson.getBlockingQueue(PAYMENTS));
        payments.offer("{\"orderReference\":\"" + order.reference() + "\",\"customerEmail\":\"erin@example.com\"}", 1,
                TimeUnit.SECONDS);
        payments.destroy();
        RDelayedQueue<Object> reminders = this.redisson.getDelayedQueue(this.redisson.getBlockingQueue(REMINDERS));
        reminders.offer("{\"meetingReference\":\"mtg-legacy-1\",\"title\":\"Budget review\","
                + "\"startsAt\":\"2030-01-07T10:00:00Z\",\"room\":\"4B\"}", 30, TimeUnit.MINUTES);
        reminders.destroy();

        List<ImportReport> reports = this.runner.importAll();

        assertThat(reports).extracting(ImportReport::target).containsExactly("ORDER_PAYMENT_TIMEOUT", "MEETING_REMINDER");
        assertThat(reports).allSatisfy(report -> {
            assertThat(report.imported()).isEqualTo(1);
            assertThat(report.complete()).isTrue();
        });
        List<QueuedMessage> pending = this.admin.pending(SampleQueues.MEETING_REMINDER, 0, 10).messages();
        assertThat(pending).hasSize(1);
        assertThat(pending.get(0).payload()).contains("\"title\":\"Budget review\"").doesNotContain("room");
        await().atMost(Duration.ofSeconds(15)).until(() -> http.get().uri("/orders/{id}", order.id()).retrieve()
                .body(Order.class).status() == OrderStatus.CANCELLED);
    }
}
