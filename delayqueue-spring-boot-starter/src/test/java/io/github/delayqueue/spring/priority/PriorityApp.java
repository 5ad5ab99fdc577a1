package io.github.delayqueue.spring.priority;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayQueueCode;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;

/**
 * The application of {@link PriorityIntegrationTests}: a queue with a default priority and strict priority, one with
 * the shortest aging, and one that is only sent to, all set by properties; handlers that record the order they run in,
 * one at a time.
 */
@SpringBootApplication
public class PriorityApp {

    /** The queues; only this application's package declares them. */
    public enum Queues implements DelayQueueCode {
        /** {@code default-priority: 2}, {@code strict-priority: true}. */
        MAIL,
        /** {@code priority-aging: 1ms}: due order all but decides. */
        AGED,
        /** No priority setting and no handler: only sent to. */
        PLAIN
    }

    /** MAIL payloads in the order their handler ran. */
    static final List<String> MAIL_HANDLED = new CopyOnWriteArrayList<>();

    /** AGED payloads in the order their handler ran. */
    static final List<String> AGED_HANDLED = new CopyOnWriteArrayList<>();

    @Component
    static class Handlers {

        @DelayHandler(value = "MAIL", concurrency = "1")
        void mail(String payload) {
            MAIL_HANDLED.add(payload);
        }

        @DelayHandler(value = "AGED", concurrency = "1")
        void aged(String payload) {
            AGED_HANDLED.add(payload);
        }
    }
}
