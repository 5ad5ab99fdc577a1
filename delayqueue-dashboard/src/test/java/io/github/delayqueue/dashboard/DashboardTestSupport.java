package io.github.delayqueue.dashboard;

import java.time.Duration;

import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.history.MessageStatus;
import io.github.delayqueue.dashboard.app.DashApp;
import io.github.delayqueue.dashboard.app.DashQueues;
import io.github.delayqueue.spring.DelayQueueCode;
import org.junit.jupiter.api.BeforeEach;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.awaitility.Awaitility.await;

/**
 * The application with actions on, shared by the test classes that extend this one (one context), with every
 * queue emptied before each test. EMAILS keeps its history (never emptied: tests find their own records in it),
 * SLOW keeps its history too (its status in flight shows where it runs); REPORTS keeps none.
 */
@SpringBootTest(classes = DashApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "delayqueue.dashboard.enabled=true", "delayqueue.dashboard.actions-enabled=true",
        "delayqueue.dashboard.show-payloads=true", "delayqueue.dashboard.refresh-interval=1s",
        "delayqueue.queues.SLOW.visibility-timeout=2m", "delayqueue.queues.SLOW.max-in-flight=1",
        "delayqueue.queues.SLOW.rate-limit=100/1s", "delayqueue.queues.SLOW.history.max-count=100",
        "delayqueue.queues.EMAILS.history.max-count=1000",
        "spring.main.banner-mode=off" })
abstract class DashboardTestSupport extends DashboardContext {

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

    /** Sends an e-mail to EMAILS (which keeps its history) and waits until its record is there. */
    void settled(String id, String to, MessageStatus.State state) {
        this.template.send(DashQueues.EMAILS, new DashApp.Email(to, id), Duration.ZERO, SendOptions.id(id));
        await().atMost(DEADLINE).until(() -> this.admin.status(DashQueues.EMAILS, id).state() == state);
    }
}
