package io.github.delayqueue.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The naming and key values of {@link DelayQueueObservation#SEND}. Define a bean of this type to replace
 * {@link DefaultDelayQueueSendObservationConvention} (extend it to add to its key values).
 */
public interface DelayQueueSendObservationConvention extends ObservationConvention<DelayQueueSendContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof DelayQueueSendContext;
    }
}
