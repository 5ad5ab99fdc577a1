package io.github.delayqueue.spring.runtime;

import java.lang.reflect.Type;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;

import io.github.delayqueue.core.JacksonPayloadCodec;
import io.github.delayqueue.core.PayloadCodec;
import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayQueueCode;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Component;

/**
 * The application of the runtime tests (readiness, the warm-up, virtual threads, partition counts at startup): one
 * queue whose handler records the thread it ran on, and a codec that records the types it was prepared for.
 */
@SpringBootApplication
public class RuntimeApp {

    /** A queue name unique to this application. */
    public enum Queues implements DelayQueueCode {
        RUNTIME_ORDERS
    }

    /** A payload with the shapes applications send: nested records, a list, a time. */
    public record Order(String id, long cents, List<Line> lines, Instant placedAt) {
    }

    public record Line(String sku, int quantity) {
    }

    /** Every test's properties: no web server (several applications may run at once on one machine). */
    static final String[] PROPERTIES = {"spring.main.banner-mode=off", "spring.main.web-application-type=none"};

    /** The threads the handler ran on, in order. */
    static final BlockingQueue<Thread> HANDLER_THREADS = new LinkedBlockingQueue<>();

    /** The types the codec was prepared for. */
    static final Set<Type> PREPARED = ConcurrentHashMap.newKeySet();

    @Bean
    PayloadCodec recordingCodec() {
        JacksonPayloadCodec jackson = new JacksonPayloadCodec();
        return new PayloadCodec() {
            @Override
            public String encode(Object payload) {
                return jackson.encode(payload);
            }

            @Override
            public Object decode(String json, Type type) {
                return jackson.decode(json, type);
            }

            @Override
            public void checkDecodable(Type type) {
                jackson.checkDecodable(type);
            }

            @Override
            public void prepare(Type type) {
                PREPARED.add(type);
                jackson.prepare(type);
            }
        };
    }

    @Component
    static class Handler {

        @DelayHandler("RUNTIME_ORDERS")
        void handle(Order order) {
            HANDLER_THREADS.add(Thread.currentThread());
        }
    }
}
