package io.github.delayqueue.spring.extension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.DeliveryErrorHandler;
import io.github.delayqueue.core.DeliveryInterceptor;
import io.github.delayqueue.core.DeliveryOutcome;
import io.github.delayqueue.core.FailureAction;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayQueueCode;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;

/**
 * The application of {@link DeliveryExtensionIntegrationTests}: two ordered {@link DeliveryInterceptor} beans
 * that record what they see, and a queue whose {@code @DelayHandler(errorHandler)} names a
 * {@link DeliveryErrorHandler} bean that dead-letters every failure.
 */
@SpringBootApplication
public class ExtensionApp {

    /** The queues; only this application's package declares them. */
    public enum Queues implements DelayQueueCode {
        /** Throws for a payload starting with "fail", with the default failure handling. */
        PLAIN,
        /** Throws for every payload; its error handler dead-letters at once. */
        DEAD_ON_FIRST_FAILURE
    }

    /** What the interceptors and handlers saw, in order: "first:before:id", "handler:payload", "second:ACKNOWLEDGED:id", … */
    static final List<String> EVENTS = new CopyOnWriteArrayList<>();

    /** Failures the error handler was asked about: "id:PROPOSED_KIND". */
    static final List<String> HANDLED_ERRORS = new CopyOnWriteArrayList<>();

    @Component
    static class Handlers {

        @DelayHandler("PLAIN")
        void plain(String payload) {
            EVENTS.add("handler:" + payload);
            if (payload.startsWith("fail")) {
                throw new IllegalStateException("failed: " + payload);
            }
        }

        @DelayHandler(value = "DEAD_ON_FIRST_FAILURE", errorHandler = "${extension.error-handler:deadLetterAtOnce}")
        void deadOnFirstFailure(String payload) {
            EVENTS.add("handler:" + payload);
            throw new IllegalStateException("failed: " + payload);
        }
    }

    @Bean
    DeliveryErrorHandler deadLetterAtOnce() {
        return (context, error, proposed) -> {
            HANDLED_ERRORS.add(context.id() + ":" + proposed.kind());
            return FailureAction.deadLetter();
        };
    }

    /** Registered second but ordered first: the outermost. */
    @Bean
    @Order(2)
    DeliveryInterceptor second() {
        return new Recording("second");
    }

    @Bean
    @Order(1)
    DeliveryInterceptor first() {
        return new Recording("first");
    }

    /** Records "name:before:id", "name:after:id" and "name:OUTCOME:id" in {@link #EVENTS}. */
    record Recording(String name) implements DeliveryInterceptor {

        @Override
        public void aroundHandle(MessageContext context, Object payload, Invocation invocation) throws Exception {
            EVENTS.add(this.name + ":before:" + context.id());
            try {
                invocation.proceed();
            } finally {
                EVENTS.add(this.name + ":after:" + context.id());
            }
        }

        @Override
        public void afterDelivery(MessageContext context, DeliveryOutcome outcome, @Nullable Throwable error,
                Duration handlerTime) {
            EVENTS.add(this.name + ":" + outcome + ":" + context.id());
        }
    }
}
