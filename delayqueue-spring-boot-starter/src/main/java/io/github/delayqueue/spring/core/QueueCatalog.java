package io.github.delayqueue.spring.core;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueListener;
import io.github.delayqueue.core.PayloadCodec;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.autoconfigure.DelayQueueProperties;
import io.github.delayqueue.spring.autoconfigure.QueueSettings;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The declared queues and the engine client of each: one {@link DelayQueueClient} per distinct key
 * prefix and payload limit, so per-queue overrides of those need no extra connections.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class QueueCatalog {

    private static final Logger log = LoggerFactory.getLogger(QueueCatalog.class);

    /** One declared queue. */
    public record Queue(DelayQueueCode code, DelayQueueClient client) {

        public String name() {
            return this.code.code();
        }
    }

    private final Map<String, Queue> queues = new LinkedHashMap<>();
    private final List<DelayQueueCode> codes;
    private final QueueSettings settings;
    private final PayloadCodec codec;

    public QueueCatalog(List<DelayQueueCode> codes, DelayQueueProperties properties, RedissonClient redisson,
            PayloadCodec codec) {
        this(codes, properties, redisson, codec, List.of());
    }

    /** {@code listeners} hear every client's events (the metrics, the application's own), in this order. */
    public QueueCatalog(List<DelayQueueCode> codes, DelayQueueProperties properties, RedissonClient redisson,
            PayloadCodec codec, List<DelayQueueListener> listeners) {
        this.codes = List.copyOf(codes);
        this.settings = new QueueSettings(properties,
                codes.stream().map(DelayQueueCode::code).collect(java.util.stream.Collectors.toSet()));
        this.codec = codec;
        QueueSettings settings = this.settings;
        DelayQueueListener listener = Listeners.of(listeners);
        Map<QueueSettings.ClientKey, DelayQueueClient> clients = new HashMap<>();
        for (DelayQueueCode code : codes) {
            QueueSettings.ClientKey key = settings.clientKey(code.code());
            DelayQueueClient client = clients.computeIfAbsent(key,
                    k -> DelayQueueClient.create(redisson, settings.clientOptions(k, this.codec, listener)));
            this.queues.put(code.code(), new Queue(code, client));
        }
        for (String key : settings.unmatchedKeys()) {
            log.warn("delayqueue.queues.{} matches no declared queue code {}; its settings are ignored", key,
                    this.queues.keySet());
        }
        if (codes.isEmpty()) {
            log.info("No DelayQueueCode enums found; declare queues in an enum implementing DelayQueueCode under the "
                    + "application's package or delayqueue.scan-packages");
        }
    }

    public List<DelayQueueCode> codes() {
        return this.codes;
    }

    public PayloadCodec codec() {
        return this.codec;
    }

    public QueueSettings settings() {
        return this.settings;
    }

    public Optional<Queue> find(String code) {
        return Optional.ofNullable(this.queues.get(code));
    }

    /**
     * The declared queue of {@code code}.
     *
     * @throws IllegalArgumentException if the code is {@code null} or not declared
     */
    public Queue require(DelayQueueCode code) {
        if (code == null) {
            throw new IllegalArgumentException("queue code must not be null");
        }
        String name = code.code();
        Queue queue = name == null ? null : this.queues.get(name);
        if (queue == null || !queue.code().equals(code)) {
            throw new IllegalArgumentException("Unknown queue code '" + name + "' (" + code.getClass().getName()
                    + "): it is not among the declared codes " + this.queues.keySet()
                    + "; enums implementing DelayQueueCode are found under the application's packages and "
                    + "delayqueue.scan-packages");
        }
        return queue;
    }
}
