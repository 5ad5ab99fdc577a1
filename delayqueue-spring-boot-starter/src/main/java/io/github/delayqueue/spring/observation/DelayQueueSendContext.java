package io.github.delayqueue.spring.observation;

import java.util.LinkedHashMap;
import java.util.Map;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import org.jspecify.annotations.Nullable;

/**
 * The context of a {@link DelayQueueObservation#SEND} observation. Its carrier is the headers every message of
 * the send gets: Micrometer Tracing's propagating handler writes the trace context into it (W3C
 * {@code traceparent} by default) when the observation starts.
 */
public class DelayQueueSendContext extends SenderContext<Map<String, String>> {

    private final String queue;
    private final int messages;
    private @Nullable String outcome;

    public DelayQueueSendContext(String queue, int messages) {
        super((carrier, key, value) -> {
            if (carrier != null) {
                carrier.put(key, value);
            }
        }, Kind.PRODUCER);
        this.queue = queue;
        this.messages = messages;
        setCarrier(new LinkedHashMap<>());
        setRemoteServiceName("delayqueue");
    }

    /** The queue code. */
    public String getQueue() {
        return this.queue;
    }

    /** How many messages the send carries. */
    public int getMessages() {
        return this.messages;
    }

    /** {@code success} or {@code error} once the send returned; {@code null} before. */
    public @Nullable String getOutcome() {
        return this.outcome;
    }

    void setOutcome(String outcome) {
        this.outcome = outcome;
    }
}
