package io.github.delayqueue.benchmarks;

import java.util.List;
import java.util.function.Function;
import java.util.concurrent.atomic.LongAdder;

import brave.Tracing;
import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.ThreadLocalCurrentTraceContext;
import brave.propagation.TraceContext;
import brave.sampler.Sampler;
import io.github.delayqueue.core.DelayQueueListener;
import io.github.delayqueue.core.DeliveryInterceptor;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.spring.metrics.DelayQueueMetrics;
import io.github.delayqueue.spring.observation.ObservedSends;
import io.github.delayqueue.spring.observation.ObservingDeliveryInterceptor;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.brave.bridge.BraveBaggageManager;
import io.micrometer.tracing.brave.bridge.BraveCurrentTraceContext;
import io.micrometer.tracing.brave.bridge.BravePropagator;
import io.micrometer.tracing.brave.bridge.BraveTracer;
import io.micrometer.tracing.brave.bridge.W3CPropagation;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import org.jspecify.annotations.Nullable;

/**
 * What {@code end-to-end-rate-observed} (with {@code --observe}: by default only the metrics, the starter's defaults)
 * and {@code observed-path-cost} run with, as a Boot application with the actuator and Micrometer Tracing (Brave) has
 * it: the starter's metrics listener on a real {@link SimpleMeterRegistry}, and its send and process
 * observations on an {@link ObservationRegistry} with Boot's handlers bound: timers from observations, and
 * tracing with W3C propagation, every span sampled (or the fraction {@code --trace-sampling} gives) and finished into a handler that counts it (no exporter: the
 * cost measured is ours and Micrometer's, not a network's).
 */
final class Observability implements AutoCloseable {

    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final ObservationRegistry observations = ObservationRegistry.create();
    final LongAdder spans = new LongAdder();
    private final Tracing tracing;
    private final ObservedSends sends;
    private final ObservingDeliveryInterceptor interceptor;
    private final DelayQueueListener listener;

    /**
     * {@code parts}: a comma-separated subset of {@code metrics,observations,tracing}; {@code sampling}: the fraction
     * of traces sampled (1: all).
     */
    Observability(String parts, float sampling) {
        List<String> bound = List.of(parts.split(","));
        BraveBaggageManager baggage = new BraveBaggageManager();
        tracing = Tracing.newBuilder().currentTraceContext(ThreadLocalCurrentTraceContext.create())
                .propagationFactory(new W3CPropagation(baggage, List.of())).sampler(sampling >= 1f ? Sampler.ALWAYS_SAMPLE : Sampler.create(sampling))
                .addSpanHandler(new SpanHandler() {
                    @Override
                    public boolean end(TraceContext context, MutableSpan span, Cause cause) {
                        spans.increment();
                        return true;
                    }
                }).build();
        BraveTracer tracer = new BraveTracer(tracing.tracer(),
                new BraveCurrentTraceContext(tracing.currentTraceContext()), baggage);
        BravePropagator propagator = new BravePropagator(tracing);
        if (bound.contains("observations")) {
            observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        }
        if (bound.contains("tracing")) {
            observations.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                    new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                    new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                    new DefaultTracingObservationHandler(tracer)));
        }
        boolean observing = bound.contains("observations") || bound.contains("tracing");
        sends = observing ? new ObservedSends(observations, null) : null;
        interceptor = observing ? new ObservingDeliveryInterceptor(observations, null) : null;
        listener = bound.contains("metrics") ? new DelayQueueMetrics(meters) : DelayQueueListener.NONE;
    }

    DelayQueueListener listener() {
        return listener;
    }

    /** The observing interceptor, or null when neither observations nor tracing are bound. */
    @Nullable DeliveryInterceptor interceptor() {
        return interceptor;
    }

    /** {@code send} inside a {@code delayqueue.send} observation (when observing), the trace context added to the headers. */
    List<String> send(String queue, List<SendRequest> requests, Function<List<SendRequest>, List<String>> send) {
        return sends == null ? send.apply(requests) : sends.observe(queue, requests, send);
    }

    /** The figures that show the instruments ran: meters registered, messages acknowledged, spans finished. */
    String summary() {
        double acked = meters.find("delayqueue.messages.acknowledged").counter() == null ? 0
                : meters.find("delayqueue.messages.acknowledged").counter().count();
        return "meters=" + meters.getMeters().size() + ",acked_counter=" + (long) acked + ",spans=" + spans.sum();
    }

    @Override
    public void close() {
        tracing.close();
        meters.close();
    }
}
