package io.github.delayqueue.spring.noretry;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayMessageHandler;
import io.github.delayqueue.spring.DelayQueueCode;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;

/**
 * The application of {@link NoRetryForIntegrationTests}: one queue per way of listing an exception that is
 * never retried. Each handler throws what its payload names and counts its calls per payload.
 */
@SpringBootApplication
public class NoRetryApp {

    /** The queues; only this application's package declares them. */
    public enum Queues implements DelayQueueCode {
        /** Lists exceptions in {@code delayqueue.queues.BY_PROPERTY.retry.no-retry-for}. */
        BY_PROPERTY,
        /** Lists an exception in {@code @DelayHandler(noRetryFor)}. */
        BY_ANNOTATION,
        /** Inherits {@code delayqueue.consumer.retry.no-retry-for}. */
        BY_GLOBAL_PROPERTY
    }

    /** An exception only the annotation lists. */
    static class AlreadyClosedException extends RuntimeException {

        AlreadyClosedException(String message) {
            super(message);
        }
    }

    /** Calls per payload, over all handlers. */
    static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();

    /** Throws the exception the payload names: "iae" (wrapped), "unsupported" or "closed". */
    static void fail(String payload) {
        CALLS.computeIfAbsent(payload, p -> new AtomicInteger()).incrementAndGet();
        if (payload.startsWith("iae")) {
            throw new IllegalStateException("wrapped", new NumberFormatException("bad number in " + payload));
        }
        if (payload.startsWith("unsupported")) {
            throw new UnsupportedOperationException("unsupported: " + payload);
        }
        throw new AlreadyClosedException("closed: " + payload);
    }

    @Component
    @DelayHandler("BY_PROPERTY")
    static class ByProperty implements DelayMessageHandler<String> {

        @Override
        public void handle(String payload) {
            fail(payload);
        }
    }

    @Component
    @DelayHandler(value = "BY_ANNOTATION", noRetryFor = AlreadyClosedException.class)
    static class ByAnnotation implements DelayMessageHandler<String> {

        @Override
        public void handle(String payload) {
            fail(payload);
        }
    }

    @Component
    @DelayHandler("BY_GLOBAL_PROPERTY")
    static class ByGlobalProperty implements DelayMessageHandler<String> {

        @Override
        public void handle(String payload) {
            fail(payload);
        }
    }
}
