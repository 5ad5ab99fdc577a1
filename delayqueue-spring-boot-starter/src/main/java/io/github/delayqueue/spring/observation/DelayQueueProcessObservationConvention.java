package io.github.delayqueue.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The naming and key values of {@link DelayQueueObservation#PROCESS}. Define a bean of this type to replace
 * {@link DefaultDelayQueueProcessObservationConvention} (extend it to add to its key values).
 */
public interface DelayQueueProcessObservationConvention extends ObservationConvention<DelayQueueProcessContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof DelayQueueProcessContext;
    }
}
