package io.github.delayqueue.spring.observation;

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

    @Override
    public String getName() {
        return "delayqueue.send";
    }

    @Override
    public String getContextualName(DelayQueueSendContext context) {
        return context.getQueue() + " send";
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(DelayQueueSendContext context) {
        String outcome = context.getOutcome();
        return KeyValues.of(SendKeys.QUEUE.withValue(context.getQueue()),
                SendKeys.OUTCOME.withValue(outcome != null ? outcome : "unknown"));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(DelayQueueSendContext context) {
        return KeyValues.of(SendHighCardinalityKeys.MESSAGES.withValue(Integer.toString(context.getMessages())));
    }
}
