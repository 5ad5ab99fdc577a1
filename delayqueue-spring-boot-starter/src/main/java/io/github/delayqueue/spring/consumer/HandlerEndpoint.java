package io.github.delayqueue.spring.consumer;

import java.lang.reflect.Type;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.BatchMessageHandler;
import io.github.delayqueue.core.MessageHandler;
import io.github.delayqueue.spring.core.HandlerOverrides;

/**
 * One {@code @DelayHandler} found on a bean, ready to become a consumer.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 *
 * @param code        the queue code, placeholders resolved
 * @param source      the bean and class or method, for log and error messages
 * @param payloadType the type the payload JSON binds to
 * @param handler     calls the bean (through its proxy, if any)
 * @param overrides   the settings the annotation sets itself
 * @param batchHandler the batch handler, for a batch handler ({@code handler} then refuses single messages); else null
 */
public record HandlerEndpoint(String code, String source, Type payloadType, MessageHandler<Object> handler,
        HandlerOverrides overrides, @Nullable BatchMessageHandler<Object> batchHandler) {

    /** A handler of one message at a time. */
    public HandlerEndpoint(String code, String source, Type payloadType, MessageHandler<Object> handler,
            HandlerOverrides overrides) {
        this(code, source, payloadType, handler, overrides, null);
    }

    /** A batch handler. */
    public static HandlerEndpoint batch(String code, String source, Type payloadType,
            BatchMessageHandler<Object> batchHandler, HandlerOverrides overrides) {
        return new HandlerEndpoint(code, source, payloadType, (payload, context) -> {
            throw new IllegalStateException("a batch handler takes batches");
        }, overrides, batchHandler);
    }
}
