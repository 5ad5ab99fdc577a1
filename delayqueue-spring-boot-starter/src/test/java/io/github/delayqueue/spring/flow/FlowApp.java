package io.github.delayqueue.spring.flow;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayQueueCode;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;

/**
 * The application of {@link FlowIntegrationTests}: queues limited by properties, one by its handler's attributes, one
 * whose handler slows its queue down.
 */
@SpringBootApplication
public class FlowApp {

    /** The queues; only this application's package declares them. */
    public enum Queues implements DelayQueueCode {
        /** Limited by {@code delayqueue.queues.LIMITED.rate-limit}. */
        LIMITED,
        /** Limited by {@code @DelayHandler(maxInFlight)}. */
        CAPPED,
        /** Limited by properties (rate and cap); its handler says "slow down" for the payload {@code slow}, once. */
        VIEWED
    }

    /** How long VIEWED's handler asks its queue to hold. */
    static final java.time.Duration VIEWED_HOLD = java.time.Duration.ofSeconds(4);

    /** VIEWED payloads handled, "slow" when it was asked again after the hold. */
    static final List<String> VIEWED_HANDLED = new CopyOnWriteArrayList<>();
    static final AtomicInteger VIEWED_SLOW_DOWNS = new AtomicInteger();

    /** When each LIMITED handler started ({@link System#nanoTime()}). */
    static final List<Long> LIMITED_STARTS = new CopyOnWriteArrayList<>();

    /** Most CAPPED handlers seen running at once. */
    static final AtomicInteger CAPPED_MOST = new AtomicInteger();
    static final AtomicInteger CAPPED_RUNNING = new AtomicInteger();
    static final AtomicInteger CAPPED_DONE = new AtomicInteger();

    @Component
    static class Handlers {

        @DelayHandler("LIMITED")
        void limited(String payload) {
            LIMITED_STARTS.add(System.nanoTime());
        }

        @DelayHandler("VIEWED")
        void viewed(String payload) {
            if (payload.equals("slow") && VIEWED_SLOW_DOWNS.getAndIncrement() == 0) {
                throw new io.github.delayqueue.core.SlowDownException(VIEWED_HOLD, "429 from the downstream");
            }
            VIEWED_HANDLED.add(payload);
        }

        @DelayHandler(value = "CAPPED", maxInFlight = "2", concurrency = "8")
        void capped(String payload) throws InterruptedException {
            CAPPED_MOST.accumulateAndGet(CAPPED_RUNNING.incrementAndGet(), Math::max);
            try {
                Thread.sleep(30);
            } finally {
                CAPPED_RUNNING.decrementAndGet();
                CAPPED_DONE.incrementAndGet();
            }
        }
    }
}
