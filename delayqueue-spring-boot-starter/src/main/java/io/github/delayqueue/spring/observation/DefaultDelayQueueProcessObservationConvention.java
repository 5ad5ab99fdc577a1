package io.github.delayqueue.spring.observation;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.DeliveryOutcome;
import io.github.delayqueue.spring.observation.DelayQueueObservation.ProcessHighCardinalityKeys;
import io.github.delayqueue.spring.observation.DelayQueueObservation.ProcessKeys;
import io.micrometer.common.KeyValues;

/**
 * The default {@link DelayQueueProcessObservationConvention}: name {@code delayqueue.process}, contextual name
 * {@code <queue> process}, low-cardinality {@code queue} and {@code outcome} (lower case, as the
 * {@code delayqueue.handler.duration} timer tags it), high-cardinality {@code delayqueue.message.id} and
 * {@code delayqueue.attempt}.
 */
public class DefaultDelayQueueProcessObservationConvention implements DelayQueueProcessObservationConvention {

    /** A shared instance. */
    public static final DefaultDelayQueueProcessObservationConvention INSTANCE = new DefaultDelayQueueProcessObservationConvention();

    /** Queues whose names and key values are kept; beyond, they are built per call. */
    static final int CACHED_QUEUES = 1_000;

    private static final DeliveryOutcome[] OUTCOMES = DeliveryOutcome.values();
    private static final String[] ATTEMPTS = new String[33];

    static {
        for (int attempt = 0; attempt < ATTEMPTS.length; attempt++) {
            ATTEMPTS[attempt] = Integer.toString(attempt);
        }
    }

    /**
     * The contextual name and low-cardinality key values of each queue, built once: the observation asks for
     * them on start and on stop of every handler call.
     */
    private final Map<String, QueueValues> queues = new ConcurrentHashMap<>();

    @Override
    public String getName() {
        return "delayqueue.process";
    }

    @Override
    public String getContextualName(DelayQueueProcessContext context) {
        return values(context.getMessage().queue()).contextualName;
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(DelayQueueProcessContext context) {
        DeliveryOutcome outcome = context.getOutcome();
        return values(context.getMessage().queue()).lowCardinality[outcome != null ? outcome.ordinal() : OUTCOMES.length];
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(DelayQueueProcessContext context) {
        int attempt = context.getMessage().attempt();
        return KeyValues.of(ProcessHighCardinalityKeys.MESSAGE_ID.withValue(context.getMessage().id()),
                ProcessHighCardinalityKeys.ATTEMPT.withValue(attempt >= 0 && attempt < ATTEMPTS.length
                        ? ATTEMPTS[attempt] : Integer.toString(attempt)));
    }

    private QueueValues values(String queue) {
        QueueValues values = queues.get(queue);
        if (values != null) {
            return values;
        }
        return queues.size() < CACHED_QUEUES ? queues.computeIfAbsent(queue, QueueValues::new) : new QueueValues(queue);
    }

    /** One queue's contextual name and low-cardinality key values, by outcome ({@code unknown} last). */
    private static final class QueueValues {
        final String contextualName;
        final KeyValues[] lowCardinality = new KeyValues[OUTCOMES.length + 1];

        QueueValues(String queue) {
            contextualName = queue + " process";
            for (int i = 0; i <= OUTCOMES.length; i++) {
                lowCardinality[i] = KeyValues.of(ProcessKeys.QUEUE.withValue(queue), ProcessKeys.OUTCOME.withValue(
                        i < OUTCOMES.length ? OUTCOMES[i].name().toLowerCase(Locale.ROOT) : "unknown"));
            }
        }
    }
}
