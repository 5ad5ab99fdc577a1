package io.github.delayqueue.spring.observation;

import java.util.Map;

import io.github.delayqueue.core.DeliveryOutcome;
import io.github.delayqueue.core.MessageContext;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import org.jspecify.annotations.Nullable;

/**
 * The context of a {@link DelayQueueObservation#PROCESS} observation. Its carrier is the message's headers, from
 * which Micrometer Tracing's propagating handler reads the sender's trace context, so the handler's span joins
 * the trace of the request that sent the message, on every attempt.
 */
public class DelayQueueProcessContext extends ReceiverContext<Map<String, String>> {

    private final MessageContext message;
    private @Nullable DeliveryOutcome outcome;

    public DelayQueueProcessContext(MessageContext message) {
        super((carrier, key) -> carrier.get(key), Kind.CONSUMER);
        this.message = message;
        setCarrier(message.headers());
        setRemoteServiceName("delayqueue");
    }

    /** The delivery: queue, id, attempt, due time, headers. */
    public MessageContext getMessage() {
        return this.message;
    }

    /** What became of the delivery, once decided; {@code null} before. */
    public @Nullable DeliveryOutcome getOutcome() {
        return this.outcome;
    }

    void setOutcome(DeliveryOutcome outcome) {
        this.outcome = outcome;
    }
}
