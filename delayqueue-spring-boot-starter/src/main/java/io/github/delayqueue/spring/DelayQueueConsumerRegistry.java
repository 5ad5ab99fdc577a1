package io.github.delayqueue.spring;

import java.util.List;
import java.util.Optional;

import io.github.delayqueue.core.DelayQueueConsumer;
import org.jspecify.annotations.Nullable;

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

    /**
     * One line per {@link DelayHandler @DelayHandler} of this application, in the order they were registered:
     * its queue, whether this application consumes it, and its consumer's handlers now. A snapshot, for
     * dashboards and admin endpoints.
     */
    List<ConsumerStatus> status();

    /**
     * The consumer of one queue in this application.
     *
     * @param queue          the queue code
     * @param handler        the handler bean (and method) that {@code @DelayHandler} marks
     * @param enabled        whether this application consumes the queue ({@code consumer-enabled})
     * @param running        whether its consumer is running now (false before the application is ready,
     *                       after shutdown, and when not enabled)
     * @param concurrency    most handlers of the queue running at once in this application
     * @param activeHandlers handlers running right now
     * @param rateLimit      the queue's rate limit over every instance, such as {@code 200/1s} (with {@code burst N}
     *                       when not the default), or {@code null} for none
     * @param maxInFlight    the queue's cap on messages in flight over every instance, or {@code null} for none
     */
    record ConsumerStatus(String queue, String handler, boolean enabled, boolean running, int concurrency,
            int activeHandlers, @Nullable String rateLimit, @Nullable Integer maxInFlight) {

        /** Without flow limits. */
        public ConsumerStatus(String queue, String handler, boolean enabled, boolean running, int concurrency,
                int activeHandlers) {
            this(queue, handler, enabled, running, concurrency, activeHandlers, null, null);
        }
    }
}
