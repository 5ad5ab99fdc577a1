package io.github.delayqueue.spring;

import java.util.List;
import java.util.Optional;

import io.github.delayqueue.core.DelayQueueConsumer;

/**
 * Owns the consumers of the application's {@link DelayHandler @DelayHandler} beans: one per queue
 * that has a handler and consumption enabled. Consumers start when the application is ready (not
 * when the context refreshes) and stop gracefully, in parallel, when the context closes. Inject it to
 * inspect them; the consumers themselves are not beans.
 */
public interface DelayQueueConsumerRegistry {

    /** The running consumers; empty before the application is ready, after shutdown, and in a producer-only application. */
    List<DelayQueueConsumer> consumers();

    /** The running consumer of the queue, if there is one. */
    Optional<DelayQueueConsumer> consumer(DelayQueueCode code);

    /** Whether the consumers have been started and not stopped. */
    boolean isRunning();
}
