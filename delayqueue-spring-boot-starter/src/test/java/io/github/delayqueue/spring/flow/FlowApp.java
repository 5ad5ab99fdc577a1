package io.github.delayqueue.spring.flow;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayQueueCode;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;

/** The application of {@link FlowIntegrationTests}: one queue limited by properties, one by its handler's attributes. */
@SpringBootApplication
public class FlowApp {

    /** The queues; only this application's package declares them. */
    public enum Queues implements DelayQueueCode {
        /** Limited by {@code delayqueue.queues.LIMITED.rate-limit}. */
        LIMITED,
        /** Limited by {@code @DelayHandler(maxInFlight)}. */
        CAPPED
    }

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
