package io.github.delayqueue.spring.observability;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayQueueCode;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.exporter.FinishedSpan;
import io.micrometer.tracing.exporter.SpanReporter;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Component;

/**
 * The application of {@link ObservabilityIntegrationTests}: Boot's metrics, observation and tracing (Brave, W3C
 * propagation) auto-configuration, a handler that fails for "fail" payloads and records the trace it runs in,
 * and a span reporter that keeps every finished span.
 */
@SpringBootApplication
public class ObservabilityApp {

    /** The queues; only this application's package declares them. */
    public enum Queues implements DelayQueueCode {
        /** For the metric counts. */
        COUNTED,
        /** For the traces. */
        TRACED,
        /** Keeps a history bounded by count (the test's properties). */
        KEPT,
        /** Keeps a history bounded by age (the test's properties). */
        AGED
    }

    /** A payload; a JSON string cannot be bound to it (an undecodable message). */
    public record Job(String name) {
    }

    /** "id#attempt" → the trace id the handler ran in. */
    static final Map<String, String> HANDLER_TRACES = new ConcurrentHashMap<>();

    static final List<FinishedSpan> SPANS = new CopyOnWriteArrayList<>();

    @Component
    static class Handlers {

        private final Tracer tracer;

        Handlers(Tracer tracer) {
            this.tracer = tracer;
        }

        @DelayHandler("COUNTED")
        void counted(Job job) {
            if (job.name().startsWith("fail")) {
                throw new IllegalStateException("failed: " + job.name());
            }
        }

        @DelayHandler("KEPT")
        void kept(Job job) {
        }

        @DelayHandler("AGED")
        void aged(Job job) {
        }

        @DelayHandler("TRACED")
        void traced(Job job, MessageContext context) {
            Span span = this.tracer.currentSpan();
            HANDLER_TRACES.put(context.id() + "#" + context.attempt(), span == null ? "none" : span.context().traceId());
            if (job.name().startsWith("fail")) {
                throw new IllegalStateException("failed: " + job.name());
            }
        }
    }

    @Bean
    SpanReporter keepSpans() {
        return SPANS::add;
    }
}
