package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.autoconfigure.DelayQueueAutoConfiguration;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The first send of an application that sends from an {@link ApplicationReadyEvent} listener, against the median of
 * the 20 sends that follow it (a warm send). One line per run; run it several times, each a new JVM:
 * {@code java -cp benchmarks/target/benchmarks.jar io.github.delayqueue.benchmarks.FirstSendAtReadiness wait|nowait}
 * against {@code DELAYQUEUE_REDIS_URL} (default {@code redis://127.0.0.1:6379}). {@code wait} has the starter's
 * defaults (readiness waits for the warm-up, at most {@code delayqueue.warm-up-wait}); {@code nowait} sets
 * {@code delayqueue.warm-up-wait=0}, which is how the starter behaved before readiness waited.
 */
public final class FirstSendAtReadiness {

    enum ReadinessQueues implements DelayQueueCode {
        READINESS_ORDERS
    }

    public record Order(String id, long cents, List<Line> lines, Instant placedAt) {
    }

    public record Line(String sku, int quantity) {
    }

    /** A handler of the queue, which declares its payload type (its consumer is off: the application only sends). */
    static class Handler {
        @DelayHandler("READINESS_ORDERS")
        void handle(Order order) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(DelayQueueAutoConfiguration.class)
    @Import(Handler.class)
    static class App {
    }

    private FirstSendAtReadiness() {
    }

    public static void main(String[] args) {
        boolean wait = args.length == 0 || !args[0].equals("nowait");
        String url = System.getenv().getOrDefault("DELAYQUEUE_REDIS_URL", "redis://127.0.0.1:6379");
        String prefix = "first-ready-" + System.nanoTime();
        ApplicationListener<ApplicationReadyEvent> sender = event -> {
            DelayQueueTemplate template = event.getApplicationContext().getBean(DelayQueueTemplate.class);
            long[] nanos = new long[21];
            for (int i = 0; i < nanos.length; i++) {
                long start = System.nanoTime();
                template.send(ReadinessQueues.READINESS_ORDERS, new Order("o-" + i, 100 + i,
                        List.of(new Line("sku-" + i, 1)), Instant.now()), Duration.ofMinutes(15));
                nanos[i] = System.nanoTime() - start;
            }
            long[] warm = Arrays.copyOfRange(nanos, 1, nanos.length);
            Arrays.sort(warm);
            double median = (warm[9] + warm[10]) / 2e6;
            System.out.printf("FIRST-SEND-AT-READINESS mode=%s first_ms=%.1f warm_median_ms=%.2f first_vs_warm=%.1f%n",
                    wait ? "wait" : "nowait", nanos[0] / 1e6, median, nanos[0] / 1e6 / median);
        };
        try (var context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE).logStartupInfo(false)
                .properties("spring.main.banner-mode=off", "spring.data.redis.url=" + url, "delayqueue.key-prefix=" + prefix,
                        "delayqueue.scan-packages=" + ReadinessQueues.class.getPackageName(),
                        "delayqueue.consumer.enabled=false", "logging.level.root=WARN")
                .properties(wait ? new String[0] : new String[] {"delayqueue.warm-up-wait=0"})
                .listeners(sender).run()) {
            context.getBean(org.redisson.api.RedissonClient.class).getKeys().deleteByPattern(prefix + ":*");
        }
    }
}
