package io.github.delayqueue.spring.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.BatchMessageHandler;
import io.github.delayqueue.core.BatchOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.DeliveryInterceptor;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.DelayQueueConsumerRegistry;
import io.github.delayqueue.spring.core.QueueCatalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

/**
 * Owns the consumers: turns the handler endpoints into engine consumers, starts and stops them.
 * Who does what:
 * <ul>
 *   <li>the {@code DelayHandlerBeanPostProcessor} {@linkplain #register registers} the endpoints at the
 *       end of the context refresh, and they are checked then (startup fails on a misconfiguration);</li>
 *   <li>{@link ConsumerStarter}, an {@code ApplicationRunner}, calls {@link #start()} once the
 *       application is ready: the context's refresh never starts it ({@link #isAutoStartup()} is
 *       {@code false} until then), so a refresh alone never starts consuming; a restart after a pause does;</li>
 *   <li>the context stops it when it closes, in phase {@link #PHASE}: {@link #stop(Runnable)} stops all
 *       consumers in parallel, each letting its running handlers finish within its shutdown timeout, and
 *       calls back once all have stopped (or the longest timeout has passed).</li>
 * </ul>
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class DefaultDelayQueueConsumerRegistry implements DelayQueueConsumerRegistry, SmartLifecycle {

    /** Stops before most other lifecycle beans (like Spring Kafka's containers), so handlers still have their collaborators. */
    static final int PHASE = Integer.MAX_VALUE - 100;

    /** Extra time for the engine to acknowledge finished handlers after its shutdown timeout. */
    public static final Duration SETTLE_GRACE = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(DefaultDelayQueueConsumerRegistry.class);

    /** A checked endpoint with its effective settings. */
    public record Definition(QueueCatalog.Queue queue, HandlerEndpoint endpoint, ConsumerOptions options, boolean enabled) {
    }

    private final QueueCatalog catalog;
    private final Duration shutdownTimeout;
    private final List<DeliveryInterceptor> interceptors;
    private final boolean virtualThreads;
    private List<Definition> definitions = List.of();
    private final Map<String, DelayQueueConsumer> consumers = new LinkedHashMap<>();
    private volatile boolean running;
    private volatile boolean startedOnce;

    /**
     * @param interceptors   run around every delivery of every consumer, the first outermost
     * @param virtualThreads whether handlers run on virtual threads (Boot's {@code spring.threads.virtual.enabled}
     *                       on Java 21+)
     */
    public DefaultDelayQueueConsumerRegistry(QueueCatalog catalog, Duration shutdownTimeout,
            List<DeliveryInterceptor> interceptors, boolean virtualThreads) {
        this.catalog = catalog;
        this.shutdownTimeout = shutdownTimeout;
        this.interceptors = List.copyOf(interceptors);
        this.virtualThreads = virtualThreads;
    }

    /**
     * Checks the endpoints against the declared codes and the settings.
     *
     * @throws DelayQueueConfigurationException naming the culprit
     */
    public synchronized void register(List<HandlerEndpoint> endpoints) {
        Map<String, HandlerEndpoint> byCode = new HashMap<>();
        List<Definition> checked = new ArrayList<>();
        for (HandlerEndpoint endpoint : endpoints) {
            QueueCatalog.Queue queue = this.catalog.find(endpoint.code()).orElseThrow(
                    () -> new DelayQueueConfigurationException("@DelayHandler " + endpoint.source() + " names queue code '"
                            + endpoint.code() + "', which no DelayQueueCode enum declares; declared codes: "
                            + this.catalog.codes().stream().map(DelayQueueCode::code).toList() + ".",
                            "Fix the code, or declare it in an enum implementing DelayQueueCode under the application's "
                                    + "packages or delayqueue.scan-packages."));
            HandlerEndpoint other = byCode.putIfAbsent(endpoint.code(), endpoint);
            if (other != null) {
                throw new DelayQueueConfigurationException("Queue code '" + endpoint.code() + "' has two handlers: "
                        + other.source() + " and " + endpoint.source() + ".",
                        "Keep one @DelayHandler per queue code in an application.");
            }
            ConsumerOptions options;
            try {
                options = this.catalog.settings().consumerOptions(endpoint.code(), endpoint.overrides()).toBuilder()
                        .interceptors(this.interceptors).virtualThreads(this.virtualThreads).build();
            } catch (IllegalArgumentException e) {
                throw new DelayQueueConfigurationException("Invalid consumer settings for queue '" + endpoint.code()
                        + "' (handler: " + endpoint.source() + "): " + e.getMessage(),
                        "Fix the @DelayHandler attributes or the delayqueue.consumer / delayqueue.queues."
                                + endpoint.code() + " properties.", e);
            }
            try {
                if (endpoint.payloadType() != Void.class) { // Void: a handler method that reads no payload
                    this.catalog.codec().checkDecodable(endpoint.payloadType());
                }
            } catch (IllegalArgumentException e) {
                throw new DelayQueueConfigurationException("@DelayHandler " + endpoint.source() + " takes "
                        + endpoint.payloadType().getTypeName() + ", which the payload codec cannot build: " + e.getMessage()
                        + ". Every message of queue '" + endpoint.code() + "' would go to the dead letters.",
                        "Give the type a public no-argument constructor, or a constructor annotated @JsonCreator (and "
                                + "compile with -parameters, which Spring Boot's build plugins turn on), or use a record.", e);
            }
            if (endpoint.batchHandler() != null) {
                try { // the checks newBatchConsumer makes, at startup rather than when the consumers start
                    BatchOptions batch = new BatchOptions(options.batchSize(),
                            this.catalog.settings().batchWait(endpoint.code()));
                    if (batch.maxWait().multipliedBy(2).compareTo(options.visibilityTimeout()) >= 0) {
                        throw new IllegalArgumentException("batch-wait (" + batch.maxWait() + ") must be shorter than "
                                + "half the visibility timeout (" + options.visibilityTimeout() + ")");
                    }
                } catch (IllegalArgumentException e) {
                    throw new DelayQueueConfigurationException("Invalid batch settings for queue '" + endpoint.code()
                            + "' (batch handler: " + endpoint.source() + "): " + e.getMessage(),
                            "Set delayqueue.queues." + endpoint.code() + ".batch-size between 1 and 1000 and "
                                    + "batch-wait between 0 and 10s, shorter than half the visibility timeout.", e);
                }
            }
            checked.add(new Definition(queue, endpoint, options,
                    this.catalog.settings().consumerEnabled(endpoint.code())));
        }
        this.definitions = List.copyOf(checked);
        for (DelayQueueCode code : this.catalog.codes()) {
            HandlerEndpoint endpoint = byCode.get(code.code());
            if (endpoint == null) {
                log.info("Queue '{}' has no @DelayHandler in this application: it is only sent to", code.code());
            } else {
                log.debug("Queue '{}' is handled by {}", code.code(), endpoint.source());
            }
        }
    }

    private BatchOptions batchOptions(Definition d) {
        return new BatchOptions(d.options().batchSize(), this.catalog.settings().batchWait(d.endpoint().code()));
    }

    public List<Definition> definitions() {
        return this.definitions;
    }

    /** Creates and starts a consumer per enabled definition. Idempotent while running. */
    @Override
    public synchronized void start() {
        if (this.running) {
            return;
        }
        try {
            for (Definition d : this.definitions) {
                if (!d.enabled()) {
                    log.info("Queue '{}': consumer disabled by configuration, handler {} not started", d.queue().name(),
                            d.endpoint().source());
                    continue;
                }
                BatchMessageHandler<Object> batchHandler = d.endpoint().batchHandler();
                DelayQueueConsumer consumer = batchHandler == null
                        ? d.queue().client().newConsumer(d.queue().name(), d.endpoint().payloadType(),
                                d.endpoint().handler(), d.options())
                        : d.queue().client().newBatchConsumer(d.queue().name(), d.endpoint().payloadType(),
                                batchHandler, batchOptions(d), d.options());
                consumer.start();
                this.consumers.put(d.queue().name(), consumer);
            }
        } catch (RuntimeException e) {
            this.consumers.values().forEach(DelayQueueConsumer::stopAsync);
            this.consumers.clear();
            throw e;
        }
        this.running = true;
        this.startedOnce = true;
        if (!this.consumers.isEmpty()) {
            log.info("Started {} delay queue consumer(s): {}", this.consumers.size(), this.consumers.keySet());
        }
    }

    @Override
    public void stop() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        stop(() -> done.complete(null));
        done.join();
    }

    /** Stops all consumers in parallel; calls back when all stopped or after the longest shutdown timeout. */
    @Override
    public void stop(Runnable callback) {
        List<DelayQueueConsumer> stopping;
        Duration wait;
        synchronized (this) {
            if (!this.running) {
                callback.run();
                return;
            }
            this.running = false;
            stopping = List.copyOf(this.consumers.values());
            this.consumers.clear();
            wait = this.definitions.stream().map(d -> d.options().shutdownTimeout()).reduce(this.shutdownTimeout,
                    (a, b) -> a.compareTo(b) >= 0 ? a : b);
        }
        if (stopping.isEmpty()) {
            callback.run();
            return;
        }
        log.info("Stopping {} delay queue consumer(s), waiting up to {} for running handlers", stopping.size(), wait);
        CompletableFuture<?>[] futures = stopping.stream().map(DelayQueueConsumer::stopAsync)
                .toArray(CompletableFuture[]::new);
        CompletableFuture.allOf(futures)
                .orTimeout(wait.plus(SETTLE_GRACE).toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((ignored, error) -> {
                    if (error != null) {
                        List<String> late = new ArrayList<>();
                        for (int i = 0; i < futures.length; i++) {
                            if (!futures[i].isDone()) {
                                late.add(stopping.get(i).queue());
                            }
                        }
                        log.warn("Delay queue consumers of {} did not stop within {}; continuing the shutdown", late,
                                wait.plus(SETTLE_GRACE));
                    }
                    callback.run();
                });
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    /**
     * False until the {@link ConsumerStarter} has started the consumers once the application is ready, so that the
     * context's refresh does not start them; true after that, so that a context restarted after a pause starts them
     * again (Spring Framework 7's test context cache pauses a cached context while tests use another one, stopping
     * its lifecycle beans, and restarts its auto-startup ones when a test needs it again).
     */
    @Override
    public boolean isAutoStartup() {
        return this.startedOnce;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    @Override
    public synchronized List<DelayQueueConsumer> consumers() {
        return List.copyOf(this.consumers.values());
    }

    @Override
    public synchronized List<ConsumerStatus> status() {
        List<ConsumerStatus> status = new ArrayList<>(this.definitions.size());
        for (Definition d : this.definitions) {
            DelayQueueConsumer consumer = this.consumers.get(d.queue().name());
            boolean running = consumer != null && consumer.isRunning();
            status.add(new ConsumerStatus(d.queue().name(), d.endpoint().source(), d.enabled(), running,
                    d.options().concurrency(), consumer == null ? 0 : consumer.activeHandlers(),
                    d.options().rateLimit() == null ? null : d.options().rateLimit().toString(),
                    d.options().maxInFlight() == 0 ? null : d.options().maxInFlight()));
        }
        return status;
    }

    @Override
    public synchronized Optional<DelayQueueConsumer> consumer(DelayQueueCode code) {
        return code == null ? Optional.empty() : Optional.ofNullable(this.consumers.get(code.code()));
    }
}
