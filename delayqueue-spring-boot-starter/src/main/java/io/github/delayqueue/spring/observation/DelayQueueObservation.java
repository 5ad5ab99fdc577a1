package io.github.delayqueue.spring.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of delayqueue: {@link #SEND} around each send of the {@code DelayQueueTemplate}, whose trace
 * context travels in the message's headers, and {@link #PROCESS} around each handler call, continuing the
 * sender's trace. Replace their key values and names with a {@link DelayQueueSendObservationConvention} or
 * {@link DelayQueueProcessObservationConvention} bean; turn them off with
 * {@code management.observations.enable.delayqueue=false}.
 */
public enum DelayQueueObservation implements ObservationDocumentation {

    /** {@code delayqueue.send}: one send call of the template (one message, or a batch). */
    SEND {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultDelayQueueSendObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return SendKeys.values();
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return SendHighCardinalityKeys.values();
        }
    },

    /** {@code delayqueue.process}: one handler call, in the trace of the send that wrote the message. */
    PROCESS {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultDelayQueueProcessObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return ProcessKeys.values();
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return ProcessHighCardinalityKeys.values();
        }
    };

    /** Low-cardinality keys of {@link #SEND}. */
    public enum SendKeys implements KeyName {
        /** The queue code. */
        QUEUE {
            @Override
            public String asString() {
                return "queue";
            }
        },
        /** {@code success}, or {@code error} when the send threw. */
        OUTCOME {
            @Override
            public String asString() {
                return "outcome";
            }
        }
    }

    /** High-cardinality keys of {@link #SEND} (on spans, never on metrics). */
    public enum SendHighCardinalityKeys implements KeyName {
        /** How many messages the call sent. */
        MESSAGES {
            @Override
            public String asString() {
                return "delayqueue.messages";
            }
        }
    }

    /** Low-cardinality keys of {@link #PROCESS}. */
    public enum ProcessKeys implements KeyName {
        /** The queue code. */
        QUEUE {
            @Override
            public String asString() {
                return "queue";
            }
        },
        /**
         * What became of the delivery, in lower case: {@code acknowledged}, {@code retried}, {@code dead_lettered},
         * {@code retry_later}, {@code abandoned}, {@code cancelled}.
         */
        OUTCOME {
            @Override
            public String asString() {
                return "outcome";
            }
        }
    }

    /** High-cardinality keys of {@link #PROCESS} (on spans, never on metrics). */
    public enum ProcessHighCardinalityKeys implements KeyName {
        /** The message id. */
        MESSAGE_ID {
            @Override
            public String asString() {
                return "delayqueue.message.id";
            }
        },
        /** The delivery's attempt, from 1. */
        ATTEMPT {
            @Override
            public String asString() {
                return "delayqueue.attempt";
            }
        }
    }
}
