package io.github.delayqueue.benchmarks;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.delayqueue.core.DelayQueueListener;
import io.github.delayqueue.core.DeliveryOutcome;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.SendMode;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.protocol.Envelope;
import io.github.delayqueue.spring.observation.ObservedSends;
import io.github.delayqueue.spring.observation.ObservingDeliveryInterceptor;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;

/**
 * The JVM CPU that observing costs per message, without Redis, the network or the other threads of
 * {@code end-to-end-rate-observed}, whose wall-clock rate a shared box makes too noisy to compare small changes
 * with. One thread runs what the engine and the template run for a message, in batches of 100 as the scenario
 * sends, with more bound each time; the variants alternate for 7 rounds and the median CPU time per message of
 * each is printed:
 *
 * <ul>
 * <li>{@code plain}: the stored envelope written (no headers) and read, the delivery's context, the clock reads;</li>
 * <li>{@code metrics}: plus the starter's metrics listener on a {@code SimpleMeterRegistry};</li>
 * <li>{@code observations}: plus the starter's send and process observations with Boot's meter handler;</li>
 * <li>{@code tracing}: plus Brave tracing, W3C, every trace sampled: {@code end-to-end-rate-observed}'s set, the
 * {@code traceparent} header written with each message and read with each delivery;</li>
 * <li>{@code micrometer-floor}: {@code tracing}'s instruments with the starter's classes replaced by the least any
 * caller of Micrometer writes (a bare {@code SenderContext} per send and {@code ReceiverContext} per message, no
 * key values): what Micrometer and Brave cost whoever observes, against which {@code tracing} shows the
 * starter's own part.</li>
 * </ul>
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.github.delayqueue.benchmarks.ObservedPathCost}
 * (no arguments; about a minute).
 */
public final class ObservedPathCost {

    static final int BATCH = 100;
    private static final int BATCHES = 400;
    private static final int ROUNDS = 7;
    private static final String QUEUE = "q";
    private static final String PAYLOAD = "\"" + "x".repeat(100) + "\"";
    static final List<String> VARIANTS = List.of("plain", "metrics", "observations", "tracing", "micrometer-floor");

    // The stored form is core's internal protocol.Envelope, called directly as the engine calls it: this
    // harness measures the engine's path, so it is the one place outside core that may use a core internal.
    private ObservedPathCost() {
    }

    public static void main(String[] args) throws Exception {
        int status = run(args, System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    /** Measures and prints to {@code out}; 2 (and why, on {@code err}) when given arguments, which it takes none of. */
    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        if (args.length > 0) {
            err.println("ObservedPathCost takes no arguments (it got " + Arrays.toString(args)
                    + "); run it as: java -cp benchmarks/target/benchmarks.jar " + ObservedPathCost.class.getName());
            return 2;
        }
        new ObservedPathCost().measure(out);
        return 0;
    }

    private void measure(PrintStream out) throws Exception {
        Map<String, List<Double>> nanosPerMessage = rounds(ROUNDS, BATCHES);
        out.println("# JVM CPU per message, one thread, batches of " + BATCH + ", median of " + ROUNDS + " rounds");
        double plain = median(nanosPerMessage.get("plain"));
        for (Map.Entry<String, List<Double>> e : nanosPerMessage.entrySet()) {
            double median = median(e.getValue());
            out.printf(Locale.ROOT, "%-17s %6.2f us/msg  (+%5.2f over plain)  rounds: %s%n", e.getKey(), median / 1000,
                    (median - plain) / 1000, e.getValue().stream().map(n -> String.format(Locale.ROOT, "%.2f", n / 1000)).toList());
        }
    }

    /**
     * Nanoseconds of this thread's CPU per message of every variant (in {@link #VARIANTS} order), one value per
     * round: {@code rounds} rounds after two of warm-up, each variant {@code batches} batches of {@value #BATCH} in
     * turn. {@link Benchmarks}' {@code observed-path-cost} scenario runs it too.
     */
    static Map<String, List<Double>> rounds(int rounds, int batches) throws Exception {
        ObservedPathCost cost = new ObservedPathCost();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<String, List<Double>> nanosPerMessage = new LinkedHashMap<>();
        for (int round = -2; round < rounds; round++) { // two rounds of warm-up for the JIT
            for (String variant : VARIANTS) {
                try (Observability bound = variant.equals("plain") ? null
                        : new Observability(switch (variant) {
                            case "metrics" -> "metrics";
                            case "observations" -> "metrics,observations";
                            default -> "metrics,observations,tracing";
                        }, 1f)) {
                    long cpu = threads.getCurrentThreadCpuTime();
                    long messages = cost.messages(variant, bound, batches);
                    double nanos = (threads.getCurrentThreadCpuTime() - cpu) / (double) messages;
                    if (round >= 0) {
                        nanosPerMessage.computeIfAbsent(variant, v -> new ArrayList<>()).add(nanos);
                    }
                }
            }
        }
        return nanosPerMessage;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    /** Sends and delivers {@code batches * BATCH} messages as the variant binds; returns how many. */
    private long messages(String variant, Observability bound, int batches) throws Exception {
        DelayQueueListener listener = bound == null ? DelayQueueListener.NONE : bound.listener();
        boolean floor = variant.equals("micrometer-floor");
        ObservingDeliveryInterceptor interceptor = bound == null || floor ? null
                : (ObservingDeliveryInterceptor) bound.interceptor();
        long n = 0;
        for (int b = 0; b < batches; b++) {
            List<SendRequest> requests = new ArrayList<>(BATCH);
            for (int i = 0; i < BATCH; i++) {
                requests.add(SendRequest.of(PAYLOAD, Duration.ZERO));
            }
            List<String> stored = new ArrayList<>(BATCH);
            long sendStart = System.nanoTime();
            if (bound == null || variant.equals("metrics")) {
                write(requests, stored);
            } else if (floor) {
                bareSend(bound.observations, requests, stored);
            } else {
                bound.send(QUEUE, requests, r -> write(r, stored));
            }
            listener.sent(QUEUE, SendMode.values()[0], true, BATCH, Duration.ofNanos(System.nanoTime() - sendStart));
            listener.claimed(QUEUE, BATCH);
            for (String s : stored) {
                Envelope envelope = Envelope.parse(s);
                Map<String, String> headers = envelope.headers();
                MessageContext context = new MessageContext(QUEUE, "id-" + n++, 1, Instant.ofEpochMilli(1_000),
                        envelope.enqueuedAt(), headers);
                long start = System.nanoTime();
                if (listener != DelayQueueListener.NONE) {
                    listener.handlerStarted(context, Duration.ofNanos(start & 0xFFFF));
                }
                if (interceptor != null) {
                    interceptor.aroundHandle(context, PAYLOAD, () -> { });
                } else if (floor) {
                    bareProcess(bound.observations, headers);
                }
                if (listener != DelayQueueListener.NONE) {
                    listener.handlerFinished(context, DeliveryOutcome.ACKNOWLEDGED, Duration.ofNanos(System.nanoTime() - start), null);
                }
                if (interceptor != null) {
                    interceptor.afterDelivery(context, DeliveryOutcome.ACKNOWLEDGED, null, Duration.ofNanos(System.nanoTime() - start));
                }
            }
            listener.acknowledged(QUEUE, BATCH);
        }
        return n;
    }

    /** The stored form of each request, as the client writes it and the scripts complete it. */
    private List<String> write(List<SendRequest> requests, List<String> stored) {
        for (SendRequest r : requests) {
            stored.add("2-------0-------0" + Envelope.body(r.options().headers(), PAYLOAD));
        }
        return List.of();
    }

    /** The least a caller of Micrometer does to propagate a send's trace: a bare sender observation. */
    private void bareSend(ObservationRegistry registry, List<SendRequest> requests, List<String> stored) {
        SenderContext<Map<String, String>> context = new SenderContext<>((c, k, v) -> c.put(k, v), Kind.PRODUCER);
        context.setCarrier(new LinkedHashMap<>());
        Observation observation = Observation.createNotStarted("delayqueue.send", () -> context, registry).start();
        try (Observation.Scope scope = observation.openScope()) {
            List<SendRequest> traced = new ArrayList<>(requests.size());
            Map<String, String> headers = Map.copyOf(context.getCarrier());
            for (SendRequest r : requests) {
                traced.add(r.withOptions(r.options().withHeaders(headers)));
            }
            write(traced, stored);
        } finally {
            observation.stop();
        }
    }

    /** The least a caller of Micrometer does to continue a trace around a handler: a bare receiver observation. */
    private static void bareProcess(ObservationRegistry registry, Map<String, String> headers) {
        ReceiverContext<Map<String, String>> context = new ReceiverContext<>((c, k) -> c.get(k), Kind.CONSUMER);
        context.setCarrier(headers);
        Observation observation = Observation.createNotStarted("delayqueue.process", () -> context, registry).start();
        try (Observation.Scope scope = observation.openScope()) {
            // the handler
        } finally {
            observation.stop();
        }
    }
}
