package io.github.delayqueue.spring.observation;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.DeliveryOutcome;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the per-message paths of the observations keep while they build less: key values cached per queue and
 * outcome are the ones built per call before, every delivery's observation is stopped by its own
 * {@code afterDelivery}, and every request of a send carries the trace headers.
 */
class ObservationHotPathTests {

    private static MessageContext message(String queue, String id, int attempt) {
        return new MessageContext(queue, id, attempt, Instant.ofEpochMilli(1_000), Instant.ofEpochMilli(500),
                Map.of("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
    }

    @Test
    void processKeyValuesByQueueAndOutcomeAsBuiltPerCall() {
        DefaultDelayQueueProcessObservationConvention convention = new DefaultDelayQueueProcessObservationConvention();
        for (int q = 0; q < DefaultDelayQueueProcessObservationConvention.CACHED_QUEUES + 5; q++) { // past the cache too
            String queue = "queue-" + q;
            DelayQueueProcessContext context = new DelayQueueProcessContext(message(queue, "id-" + q, q % 40 + 1));
            assertThat(convention.getLowCardinalityKeyValues(context)).isEqualTo(KeyValues.of("outcome", "unknown", "queue", queue));
            for (DeliveryOutcome outcome : DeliveryOutcome.values()) {
                context.setOutcome(outcome);
                assertThat(convention.getLowCardinalityKeyValues(context))
                        .isEqualTo(KeyValues.of("outcome", outcome.name().toLowerCase(java.util.Locale.ROOT), "queue", queue));
            }
            assertThat(convention.getContextualName(context)).isEqualTo(queue + " process");
            assertThat(convention.getHighCardinalityKeyValues(context)).isEqualTo(
                    KeyValues.of("delayqueue.attempt", Integer.toString(q % 40 + 1), "delayqueue.message.id", "id-" + q));
        }
    }

    @Test
    void sendKeyValuesByQueueAndOutcomeAsBuiltPerCall() {
        DefaultDelayQueueSendObservationConvention convention = new DefaultDelayQueueSendObservationConvention();
        for (int q = 0; q < DefaultDelayQueueProcessObservationConvention.CACHED_QUEUES + 5; q++) {
            String queue = "queue-" + q;
            DelayQueueSendContext context = new DelayQueueSendContext(queue, 3);
            assertThat(convention.getLowCardinalityKeyValues(context)).isEqualTo(KeyValues.of("outcome", "unknown", "queue", queue));
            for (String outcome : List.of("success", "error", "other")) {
                context.setOutcome(outcome);
                assertThat(convention.getLowCardinalityKeyValues(context)).isEqualTo(KeyValues.of("outcome", outcome, "queue", queue));
            }
            assertThat(convention.getContextualName(context)).isEqualTo(queue + " send");
            assertThat(convention.getHighCardinalityKeyValues(context)).isEqualTo(KeyValues.of("delayqueue.messages", "3"));
        }
    }

    /** Records the observations started and stopped, and writes a trace header into a sender's carrier. */
    private static final class Recording implements ObservationHandler<Observation.Context> {
        final List<Observation.Context> started = new ArrayList<>();
        final List<Observation.Context> stopped = new ArrayList<>();

        @Override
        public void onStart(Observation.Context context) {
            started.add(context);
            if (context instanceof DelayQueueSendContext send) {
                send.getSetter().set(send.getCarrier(), "traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
            }
        }

        @Override
        public void onStop(Observation.Context context) {
            stopped.add(context);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    @Test
    void twoDeliveriesWithEqualContextsAreStoppedEachByItsOwnAfterDelivery() throws Exception {
        ObservationRegistry registry = ObservationRegistry.create();
        Recording recording = new Recording();
        registry.observationConfig().observationHandler(recording);
        ObservingDeliveryInterceptor interceptor = new ObservingDeliveryInterceptor(registry, null);
        MessageContext first = message("q", "m-1", 1);
        MessageContext second = message("q", "m-1", 1); // equal as a record: the same message, the same attempt

        interceptor.aroundHandle(first, "p", () -> {
            interceptor.aroundHandle(second, "p", () -> { });
            interceptor.afterDelivery(second, DeliveryOutcome.ACKNOWLEDGED, null, Duration.ZERO);
            assertThat(recording.stopped).hasSize(1);
            assertThat(((DelayQueueProcessContext) recording.stopped.get(0)).getMessage()).isSameAs(second);
        });
        interceptor.afterDelivery(first, DeliveryOutcome.RETRIED, null, Duration.ZERO);

        assertThat(recording.stopped).hasSize(2);
        DelayQueueProcessContext last = (DelayQueueProcessContext) recording.stopped.get(1);
        assertThat(last.getMessage()).isSameAs(first);
        assertThat(last.getOutcome()).isEqualTo(DeliveryOutcome.RETRIED);
        assertThat(last.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("retried");
    }

    @Test
    void everyRequestOfASendCarriesTheTraceHeadersAndKeepsItsOwn() {
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new Recording());
        ObservedSends sends = new ObservedSends(registry, null);
        List<SendRequest> requests = List.of(SendRequest.of("a", Duration.ZERO), SendRequest.of("b", Duration.ZERO),
                SendRequest.of("c", Duration.ZERO, SendOptions.none().withHeaders(Map.of("tenant", "acme",
                        "traceparent", "mine"))));
        List<SendRequest> seen = new ArrayList<>();

        sends.observe("q", requests, r -> {
            seen.addAll(r);
            return List.of("1", "2", "3");
        });

        String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        assertThat(seen).hasSize(3);
        assertThat(seen.get(0).options().headers()).isEqualTo(Map.of("traceparent", traceparent));
        assertThat(seen.get(1).options().headers()).isEqualTo(Map.of("traceparent", traceparent));
        assertThat(seen.get(2).options().headers()).isEqualTo(Map.of("tenant", "acme", "traceparent", "mine"));
        assertThat(seen.get(0).payload()).isEqualTo("a");
    }
}
