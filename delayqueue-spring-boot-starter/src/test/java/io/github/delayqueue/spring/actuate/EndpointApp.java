package io.github.delayqueue.spring.actuate;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayQueueCode;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;

/**
 * The application of {@link EndpointHttpIntegrationTests}, run twice on one Redis and key prefix: a web
 * application with the endpoint exposed, and a second instance without a web server. Each instance records
 * what it handled, tagged with {@code endpoint-test.instance}.
 */
@SpringBootApplication
public class EndpointApp {

    /** The queues; only this application's package declares them. */
    public enum Queues implements DelayQueueCode {
        /** Records every payload. */
        WORK,
        /** Throws for every payload: dead-lettered after two attempts. */
        FAILING,
        /** Declared, never consumed: only sent to. */
        OUTBOX,
        /** Handled as {@link Charge}: a payload that is not one is dead-lettered at once. */
        CHARGES
    }

    /** The payload of {@link Queues#CHARGES}. */
    public record Charge(String customer, int amountCents) {
    }

    /** "instance:payload" for every WORK message handled, by either instance. */
    static final List<String> HANDLED = new CopyOnWriteArrayList<>();

    @Component
    static class Handlers {

        private final String instance;

        Handlers(@Value("${endpoint-test.instance}") String instance) {
            this.instance = instance;
        }

        /** What a WORK handler returns: kept in the message's history record as its result. */
        record Receipt(int length, @Nullable String note) {
        }

        @DelayHandler(value = "WORK", concurrency = "2")
        Receipt work(String payload, MessageContext context) throws InterruptedException {
            context.progress(Map.of("started", true));
            HANDLED.add(this.instance + ":" + payload);
            if (payload.startsWith("held-")) {
                // the pause test's 20 messages: each waits until both instances have started one (30 s at most), so
                // both get some whatever the load. With 100 ms of work alone, an instance whose poller ran a second
                // late on a loaded machine found the other had handled all 20
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!(HANDLED.stream().anyMatch(h -> h.startsWith("first:held-"))
                        && HANDLED.stream().anyMatch(h -> h.startsWith("second:held-"))) && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
            }
            Thread.sleep(100); // some work
            if (payload.startsWith("huge-")) {
                return new Receipt(payload.length(), "x".repeat(MessageContext.MAX_RESULT_BYTES)); // not kept: logged
            }
            return new Receipt(payload.length(), null);
        }

        @DelayHandler("CHARGES")
        void charge(Charge charge) {
            HANDLED.add(this.instance + ":" + charge.customer());
        }

        @DelayHandler(value = "FAILING", maxAttempts = "2")
        void failing(String payload) {
            throw new IllegalStateException("boom"); // not the payload: reasons are shown, payloads are not
        }
    }
}
