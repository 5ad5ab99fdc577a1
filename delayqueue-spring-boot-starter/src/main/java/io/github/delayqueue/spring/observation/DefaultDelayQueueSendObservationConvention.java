package io.github.delayqueue.spring.observation;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.spring.observation.DelayQueueObservation.SendHighCardinalityKeys;
import io.github.delayqueue.spring.observation.DelayQueueObservation.SendKeys;
import io.micrometer.common.KeyValues;

/**
 * The default {@link DelayQueueSendObservationConvention}: name {@code delayqueue.send}, contextual name
 * {@code <queue> send}, low-cardinality {@code queue} and {@code outcome}, high-cardinality
 * {@code delayqueue.messages}.
 */
public class DefaultDelayQueueSendObservationConvention implements DelayQueueSendObservationConvention {

    /** A shared instance. */
    public static final DefaultDelayQueueSendObservationConvention INSTANCE = new DefaultDelayQueueSendObservationConvention();

    /** The contextual name and low-cardinality key values of each queue, built once (at most this many queues). */
    private final Map<String, QueueValues> queues = new ConcurrentHashMap<>();

    @Override
    public String getName() {
        return "delayqueue.send";
    }

    @Override
    public String getContextualName(DelayQueueSendContext context) {
        return values(context.getQueue()).contextualName;
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(DelayQueueSendContext context) {
        String outcome = context.getOutcome();
        QueueValues values = values(context.getQueue());
        if (outcome == null) {
            return values.unknown;
        }
        return switch (outcome) {
            case "success" -> values.success;
            case "error" -> values.error;
            default -> QueueValues.of(context.getQueue(), outcome);
        };
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(DelayQueueSendContext context) {
        return KeyValues.of(SendHighCardinalityKeys.MESSAGES.withValue(Integer.toString(context.getMessages())));
    }

    private QueueValues values(String queue) {
        QueueValues values = queues.get(queue);
        if (values != null) {
            return values;
        }
        return queues.size() < DefaultDelayQueueProcessObservationConvention.CACHED_QUEUES
                ? queues.computeIfAbsent(queue, QueueValues::new) : new QueueValues(queue);
    }

    /** One queue's contextual name and low-cardinality key values, by outcome. */
    private static final class QueueValues {
        final String contextualName;
        final KeyValues success;
        final KeyValues error;
        final KeyValues unknown;

        QueueValues(String queue) {
            contextualName = queue + " send";
            success = of(queue, "success");
            error = of(queue, "error");
            unknown = of(queue, "unknown");
        }

        static KeyValues of(String queue, String outcome) {
            return KeyValues.of(SendKeys.QUEUE.withValue(queue), SendKeys.OUTCOME.withValue(outcome));
        }
    }
}
