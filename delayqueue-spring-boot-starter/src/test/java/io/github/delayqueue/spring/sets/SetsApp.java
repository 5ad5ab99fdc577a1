package io.github.delayqueue.spring.sets;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueTemplate;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;

/**
 * The application of {@link JobSetTemplateIntegrationTests}: queues for a set's members, its callbacks and a chain's
 * steps, and one under another key prefix.
 */
@SpringBootApplication
public class SetsApp {

    public enum Queues implements DelayQueueCode {
        /** Members: a payload starting with "fail" dies at once, one starting with "grow" (not a child) adds two children to its set. */
        MAILS,
        /** Callbacks: their headers are kept. */
        REPORT,
        /** A chain's steps: their payloads are kept in order. */
        STEPS,
        /** Under a key prefix of its own (the test's properties); no handler. */
        ELSEWHERE
    }

    /** Payload → the set header it was handled with ("" for none). */
    static final Map<String, String> HANDLED = new ConcurrentHashMap<>();

    static final List<Map<String, String>> CALLBACKS = new CopyOnWriteArrayList<>();

    static final List<String> STEPS = new CopyOnWriteArrayList<>();

    @Component
    static class Handlers {

        private final DelayQueueTemplate template;

        Handlers(DelayQueueTemplate template) {
            this.template = template;
        }

        @DelayHandler("MAILS")
        void mail(String payload, MessageContext context) {
            if (payload.startsWith("fail")) {
                throw new IllegalStateException("cannot send " + payload);
            }
            String set = JobSet.setOf(context);
            if (payload.startsWith("grow") && !payload.contains("-child") && set != null) {
                // ids derived from the running member's: a retried handler adds the same ones again
                this.template.addToSet(set, Queues.MAILS, List.of(
                        SendRequest.of(payload + "-child-1", Duration.ZERO, SendOptions.id(context.id() + "-1")),
                        SendRequest.of(payload + "-child-2", Duration.ZERO, SendOptions.id(context.id() + "-2"))));
            }
            HANDLED.put(payload, set == null ? "" : set);
        }

        @DelayHandler("REPORT")
        void report(String payload, MessageContext context) {
            CALLBACKS.add(context.headers());
        }

        @DelayHandler("STEPS")
        void step(String payload) {
            STEPS.add(payload);
        }
    }
}
