package io.github.delayqueue.spring.autoconfigure;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.PayloadCodec;
import io.github.delayqueue.core.RetryPolicy;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.autoconfigure.DelayQueueProperties.Consumer;
import io.github.delayqueue.spring.autoconfigure.DelayQueueProperties.Queue;

import org.jspecify.annotations.Nullable;
import org.springframework.util.unit.DataSize;

/**
 * The effective settings of one queue: the handler's attribute, else {@code delayqueue.queues.<code>.*},
 * else the global property (whose default is the engine's default).
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class QueueSettings {

    private static final Queue INHERIT_ALL = new Queue();

    private final DelayQueueProperties properties;
    private final Set<String> declared;

    public QueueSettings(DelayQueueProperties properties, Set<String> declared) {
        this.properties = properties;
        this.declared = Set.copyOf(declared);
    }

    /**
     * The overrides of the code: exact key, else a relaxed match (environment variables lose case and dashes),
     * never a key that is exactly another declared queue's code.
     */
    Queue overrides(String code) {
        Map<String, Queue> queues = this.properties.getQueues();
        Queue exact = queues.get(code);
        if (exact != null) {
            return exact;
        }
        String relaxed = relaxed(code);
        for (Map.Entry<String, Queue> entry : queues.entrySet()) {
            if (relaxed(entry.getKey()).equals(relaxed) && !this.declared.contains(entry.getKey())) {
                return entry.getValue();
            }
        }
        return INHERIT_ALL;
    }

    public static String relaxed(String key) {
        return key.replaceAll("[^A-Za-z0-9.]", "").toLowerCase(Locale.ROOT);
    }

    /** The client settings of the queue (key prefix and payload limit may be per queue). */
    public ClientKey clientKey(String code) {
        Queue q = overrides(code);
        DataSize size = first(q.getMaxPayloadSize(), this.properties.getProducer().getMaxPayloadSize());
        long bytes = size.toBytes();
        if (bytes > Integer.MAX_VALUE || bytes < 1) {
            throw new DelayQueueConfigurationException("Queue '" + code + "': max-payload-size " + size
                    + " is out of range", "Set delayqueue.producer.max-payload-size (or the queue's) to at most 512MB.");
        }
        return new ClientKey(first(q.getKeyPrefix(), this.properties.getKeyPrefix()), (int) bytes);
    }

    public ClientOptions clientOptions(ClientKey key, PayloadCodec codec) {
        return ClientOptions.builder().keyPrefix(key.keyPrefix()).maxPayloadBytes(key.maxPayloadBytes())
                .maxBatchSize(this.properties.getProducer().getMaxBatchSize()).codec(codec).build();
    }

    /** Whether this application consumes the queue (the queue's setting, else the global one). */
    public boolean consumerEnabled(String code) {
        return first(overrides(code).getConsumerEnabled(), this.properties.getConsumer().isEnabled());
    }

    /**
     * The consumer options of the queue.
     *
     * @throws IllegalArgumentException if the engine rejects a value
     */
    public ConsumerOptions consumerOptions(String code, HandlerOverrides handler) {
        Consumer global = this.properties.getConsumer();
        Consumer.Retry globalRetry = global.getRetry();
        Queue q = overrides(code);
        Queue.Retry retry = q.getRetry();
        RetryPolicy policy = new RetryPolicy(
                first(handler.maxAttempts(), retry.getMaxAttempts(), globalRetry.getMaxAttempts()),
                first(retry.getInitialBackoff(), globalRetry.getInitialBackoff()),
                first(retry.getMultiplier(), globalRetry.getMultiplier()),
                first(retry.getMaxBackoff(), globalRetry.getMaxBackoff()),
                first(retry.getJitter(), globalRetry.getJitter()));
        return ConsumerOptions.builder()
                .concurrency(first(handler.concurrency(), q.getConcurrency(), global.getConcurrency()))
                .batchSize(first(q.getBatchSize(), global.getBatchSize()))
                .visibilityTimeout(first(handler.visibilityTimeout(), q.getVisibilityTimeout(), global.getVisibilityTimeout()))
                .handlerTimeout(first(handler.handlerTimeout(), q.getHandlerTimeout(), global.getHandlerTimeout()))
                .maxPollInterval(first(q.getMaxPollInterval(), global.getMaxPollInterval()))
                .shutdownTimeout(first(q.getShutdownTimeout(), global.getShutdownTimeout()))
                .retry(policy)
                .deadLetterRetention(first(q.getDeadLetter().getRetention(), global.getDeadLetter().getRetention()))
                .deadLetterMaxCount(first(q.getDeadLetter().getMaxCount(), global.getDeadLetter().getMaxCount()))
                .build();
    }

    private static <T> T first(@Nullable T value, T fallback) {
        return value != null ? value : fallback;
    }

    private static <T> T first(@Nullable T value, @Nullable T second, T fallback) {
        return value != null ? value : first(second, fallback);
    }

    /** What distinguishes one {@link io.github.delayqueue.core.DelayQueueClient} from another. */
    public record ClientKey(String keyPrefix, int maxPayloadBytes) {
    }
}
