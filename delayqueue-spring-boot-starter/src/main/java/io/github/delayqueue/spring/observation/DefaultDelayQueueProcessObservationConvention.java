package io.github.delayqueue.spring.observation;

import java.util.Locale;

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

    @Override
    public String getName() {
        return "delayqueue.process";
    }

    @Override
    public String getContextualName(DelayQueueProcessContext context) {
        return context.getMessage().queue() + " process";
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(DelayQueueProcessContext context) {
        DeliveryOutcome outcome = context.getOutcome();
        return KeyValues.of(ProcessKeys.QUEUE.withValue(context.getMessage().queue()),
                ProcessKeys.OUTCOME.withValue(outcome != null ? outcome.name().toLowerCase(Locale.ROOT) : "unknown"));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(DelayQueueProcessContext context) {
        return KeyValues.of(ProcessHighCardinalityKeys.MESSAGE_ID.withValue(context.getMessage().id()),
                ProcessHighCardinalityKeys.ATTEMPT.withValue(Integer.toString(context.getMessage().attempt())));
    }
}
