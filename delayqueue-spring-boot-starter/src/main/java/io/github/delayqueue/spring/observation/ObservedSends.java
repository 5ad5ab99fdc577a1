package io.github.delayqueue.spring.observation;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.spring.core.SendObserver;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * The {@code delayqueue.send} observation around each send of the template. Once it started, its carrier holds
 * the trace context that Micrometer Tracing's propagating handler wrote; those headers are added to every
 * request of the send (a header the caller set under the same name wins), so they are stored with the message
 * and come back on every delivery of it.
 *
 * <p>Internal to the starter: public only so that the auto-configuration can create it.
 */
public final class ObservedSends implements SendObserver {

    private final ObservationRegistry registry;
    private final @Nullable DelayQueueSendObservationConvention convention;
    /** Whether a queue's sends are observed, by queue name ({@code observation-enabled}). */
    private final Predicate<String> observed;

    /** Observes the sends of every queue. */
    public ObservedSends(ObservationRegistry registry, @Nullable DelayQueueSendObservationConvention convention) {
        this(registry, convention, queue -> true);
    }

    /** Observes the sends of the queues {@code observed} accepts; the others are sent as asked. */
    public ObservedSends(ObservationRegistry registry, @Nullable DelayQueueSendObservationConvention convention,
            Predicate<String> observed) {
        this.registry = registry;
        this.convention = convention;
        this.observed = observed;
    }

    @Override
    public List<String> observe(String queue, List<SendRequest> requests, Function<List<SendRequest>, List<String>> send) {
        if (requests == null || requests.isEmpty() || !this.observed.test(queue)) {
            return send.apply(requests); // the send rejects it, with its own message
        }
        DelayQueueSendContext context = new DelayQueueSendContext(queue, requests.size());
        Observation observation = DelayQueueObservation.SEND.observation(convention,
                DefaultDelayQueueSendObservationConvention.INSTANCE, () -> context, registry).start();
        try (Observation.Scope scope = observation.openScope()) {
            List<String> ids = send.apply(withHeaders(requests, context.getCarrier()));
            context.setOutcome("success");
            return ids;
        } catch (RuntimeException e) {
            context.setOutcome("error");
            observation.error(e);
            throw e;
        } finally {
            observation.stop();
        }
    }

    private static List<SendRequest> withHeaders(List<SendRequest> requests, @Nullable Map<String, String> headers) {
        if (headers == null || headers.isEmpty()) {
            return requests; // no tracer, or nothing to propagate
        }
        Map<String, String> shared = Map.copyOf(headers); // one immutable map for every request without headers
        List<SendRequest> copies = new ArrayList<>(requests.size());
        for (SendRequest request : requests) {
            if (request == null) {
                copies.add(null); // rejected by the send, naming its index
                continue;
            }
            SendOptions options = request.options();
            Map<String, String> merged;
            if (options.headers().isEmpty()) {
                merged = shared;
            } else {
                merged = new LinkedHashMap<>(shared);
                merged.putAll(options.headers());
            }
            copies.add(request.withOptions(options.withHeaders(merged)));
        }
        return copies;
    }
}
