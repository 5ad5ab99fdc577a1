package io.github.delayqueue.spring.autoconfigure;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueListener;
import io.github.delayqueue.core.ExpiryAction;
import io.github.delayqueue.core.PayloadCodec;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.RetryPolicy;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.autoconfigure.DelayQueueProperties.ConsumerSettings;
import io.github.delayqueue.spring.autoconfigure.DelayQueueProperties.Queue;
import io.github.delayqueue.spring.core.HandlerOverrides;
import io.github.delayqueue.spring.core.QueueCatalog.ClientPlan;
import io.github.delayqueue.spring.core.QueueConsumerSettings;

import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;
import org.springframework.util.unit.DataSize;

/**
 * The effective settings of one queue: the handler's attribute, else {@code delayqueue.queues.<code>.*},
 * else the global property (whose default is the engine's default).
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class QueueSettings implements QueueConsumerSettings {

    private static final Queue INHERIT_ALL = new Queue();

    private final DelayQueueProperties properties;
    private final Set<String> declared;
    /** The resolved {@code delayqueue.consumer.retry.no-retry-for}. */
    private final Set<Class<? extends Throwable>> globalNoRetryFor;
    /** The resolved {@code retry.no-retry-for} of each queue key that sets it. */
    private final Map<String, Set<Class<? extends Throwable>>> queueNoRetryFor = new LinkedHashMap<>();
    /** The parsed {@code rate-limit} (with its burst) of each queue key that sets it. */
    private final Map<String, RateLimit> queueRateLimits = new LinkedHashMap<>();
    /** The parsed {@code group-rate-limit} of each queue key that sets it. */
    private final Map<String, RateLimit> queueGroupRateLimits = new LinkedHashMap<>();

    /**
     * @throws DelayQueueConfigurationException if a {@code retry.no-retry-for} entry names no {@link Throwable}
     *         class, or a flow limit or priority setting is out of range
     */
    public QueueSettings(DelayQueueProperties properties, Set<String> declared) {
        this.properties = properties;
        this.declared = Set.copyOf(declared);
        this.globalNoRetryFor = exceptions("delayqueue.consumer.retry.no-retry-for",
                properties.getConsumer().getRetry().getNoRetryFor());
        PrioritySettings.checkAging("delayqueue.consumer", properties.getConsumer());
        properties.getQueues().forEach((key, queue) -> {
            PrioritySettings.defaultPriority(key, queue);
            PrioritySettings.checkAging(PrioritySettings.prefix(key), queue);
            if (queue.getRetry().getNoRetryFor() != null) {
                String property = "delayqueue.queues" + (key.contains(".") ? "[" + key + "]" : "." + key)
                        + ".retry.no-retry-for";
                this.queueNoRetryFor.put(key, exceptions(property, queue.getRetry().getNoRetryFor()));
            }
            RateLimit rate = FlowSettings.rateLimit(key, queue);
            if (rate != null) {
                this.queueRateLimits.put(key, rate);
            }
            RateLimit groupRate = FlowSettings.groupRateLimit(key, queue);
            if (groupRate != null) {
                this.queueGroupRateLimits.put(key, groupRate);
            }
        });
    }

    /**
     * The key of {@code delayqueue.queues} that applies to the code: the exact key, else a relaxed match
     * (environment variables lose case and dashes), never a key that is exactly another declared queue's code.
     * The one place where keys meet codes.
     */
    @Nullable String key(String code) {
        Map<String, Queue> queues = this.properties.getQueues();
        if (queues.containsKey(code)) {
            return code;
        }
        String relaxed = relaxed(code);
        for (String key : queues.keySet()) {
            if (relaxed(key).equals(relaxed) && !this.declared.contains(key)) {
                return key;
            }
        }
        return null;
    }

    /** The keys of {@code delayqueue.queues} that apply to no declared queue (so are ignored). */
    public Set<String> unmatchedKeys() {
        Set<String> unmatched = new LinkedHashSet<>(this.properties.getQueues().keySet());
        this.declared.forEach(code -> unmatched.remove(key(code)));
        return unmatched;
    }

    static String relaxed(String key) {
        return key.replaceAll("[^A-Za-z0-9.]", "").toLowerCase(Locale.ROOT);
    }

    /** The overrides of the code ({@link #key}), or all unset. */
    Queue overrides(String code) {
        String key = key(code);
        return key == null ? INHERIT_ALL : this.properties.getQueues().get(key);
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

    /**
     * The engine's client options for a key prefix and payload limit.
     *
     * @throws DelayQueueConfigurationException if the engine rejects a {@code delayqueue.producer.*} value
     */
    public ClientOptions clientOptions(ClientKey key, PayloadCodec codec) {
        return clientOptions(key, codec, DelayQueueListener.NONE);
    }

    public ClientOptions clientOptions(ClientKey key, PayloadCodec codec, DelayQueueListener listener) {
        DelayQueueProperties.Producer producer = this.properties.getProducer();
        ClientOptions.Builder builder = ClientOptions.builder();
        for (String code : this.declared) {
            if (!clientKey(code).equals(key)) {
                continue;
            }
            Integer priority = overrides(code).getDefaultPriority(); // checked in range by the constructor
            if (priority != null) {
                builder.defaultPriority(code, priority);
            }
            Integer partitions = overrides(code).getPartitions();
            if (partitions == null) {
                continue;
            }
            try {
                builder.partitions(code, partitions);
            } catch (IllegalArgumentException e) {
                throw new DelayQueueConfigurationException("Queue '" + code + "': " + e.getMessage(),
                        "Set delayqueue.queues." + code + ".partitions between 1 and 64 (1, the default, is a queue that is "
                                + "not partitioned).", e);
            }
        }
        try {
            return builder.keyPrefix(key.keyPrefix()).maxPayloadBytes(key.maxPayloadBytes())
                    .maxBatchSize(producer.getMaxBatchSize())
                    .waitForReplicas(producer.getWaitForReplicas(), producer.getWaitForReplicasTimeout())
                    .replicasRequired(producer.isWaitForReplicasRequired()).codec(codec)
                    .sharedIdlePolling(this.properties.isSharedIdlePolling()).activity(this.properties.getActivity().isEnabled())
                    .listener(listener).build();
        } catch (IllegalArgumentException e) {
            throw new DelayQueueConfigurationException("Invalid producer settings: " + e.getMessage(),
                    "Fix delayqueue.producer.* (wait-for-replicas 0 to 100, wait-for-replicas-timeout 1ms to 1m, "
                            + "max-batch-size 1 to 1000000).", e);
        }
    }

    /**
     * The engine clients the declared {@code codes} need: one per distinct key prefix and payload limit, in the order
     * of each one's first queue, with {@code codec} and {@code listener}.
     *
     * @throws DelayQueueConfigurationException if a producer or partition setting is out of range
     */
    public List<ClientPlan> clientPlans(List<String> codes, PayloadCodec codec, DelayQueueListener listener) {
        Map<ClientKey, List<String>> byKey = new LinkedHashMap<>();
        for (String code : codes) {
            byKey.computeIfAbsent(clientKey(code), k -> new java.util.ArrayList<>()).add(code);
        }
        return byKey.entrySet().stream()
                .map(e -> new ClientPlan(clientOptions(e.getKey(), codec, listener), e.getValue())).toList();
    }

    /** Whether this application consumes the queue (the queue's setting, else the global one). */
    @Override
    public boolean consumerEnabled(String code) {
        return first(overrides(code).getConsumerEnabled(), this.properties.getConsumer().isEnabled());
    }

    @Override
    public java.time.Duration batchWait(String code) {
        return ConsumerSettings.firstSet(overrides(code), this.properties.getConsumer()).getBatchWait();
    }

    /**
     * The consumer options of the queue.
     *
     * @throws IllegalArgumentException if the engine rejects a value
     */
    @Override
    public ConsumerOptions consumerOptions(String code, HandlerOverrides handler) {
        String key = key(code);
        ConsumerSettings s = ConsumerSettings.firstSet(overrides(code), this.properties.getConsumer());
        ConsumerSettings.Retry retry = s.getRetry();
        RetryPolicy policy = new RetryPolicy(first(handler.maxAttempts(), retry.getMaxAttempts()),
                retry.getInitialBackoff(), retry.getMultiplier(), retry.getMaxBackoff(), retry.getJitter());
        // no-retry-for: the queue's list, else the global one, plus the handler's
        Set<Class<? extends Throwable>> queueList = key == null ? null : this.queueNoRetryFor.get(key);
        Set<Class<? extends Throwable>> noRetryFor = new LinkedHashSet<>(first(queueList, this.globalNoRetryFor));
        noRetryFor.addAll(handler.noRetryFor());
        Queue q = overrides(code);
        RateLimit rate = handler.rateLimit() == null ? (key == null ? null : this.queueRateLimits.get(key))
                : FlowSettings.withBurst("delayqueue.queues." + code + ".rate-limit-burst", handler.rateLimit(),
                        q.getRateLimitBurst());
        int maxInFlight = first(handler.maxInFlight(), first(q.getMaxInFlight(), 0));
        int partitions = first(q.getPartitions(), 1);
        if (maxInFlight > 0 && maxInFlight < partitions) {
            throw new IllegalArgumentException("maxInFlight " + maxInFlight + " is below the queue's " + partitions
                    + " partitions: each partition keeps its share of the cap, and a partition with none would never "
                    + "be drained; use at least " + partitions);
        }
        RateLimit groupRate = handler.groupRateLimit() != null ? handler.groupRateLimit()
                : key == null ? null : this.queueGroupRateLimits.get(key);
        int groupMaxInFlight = first(handler.groupMaxInFlight(), first(q.getGroupMaxInFlight(), 0));
        if (groupMaxInFlight > 0 && groupMaxInFlight < partitions) {
            throw new IllegalArgumentException("groupMaxInFlight " + groupMaxInFlight + " is below the queue's "
                    + partitions + " partitions: each partition keeps its share of every group's cap; use at least "
                    + partitions);
        }
        return ConsumerOptions.builder()
                .rateLimit(rate)
                .maxInFlight(maxInFlight)
                .groupRateLimit(groupRate)
                .groupMaxInFlight(groupMaxInFlight)
                .onExpiry(first(q.getOnExpiry(), ExpiryAction.DEAD_LETTER))
                .concurrency(first(handler.concurrency(), s.getConcurrency()))
                .batchSize(s.getBatchSize())
                .visibilityTimeout(first(handler.visibilityTimeout(), s.getVisibilityTimeout()))
                .handlerTimeout(first(handler.handlerTimeout(), s.getHandlerTimeout()))
                .maxPollInterval(s.getMaxPollInterval())
                .shutdownTimeout(s.getShutdownTimeout())
                .priorityAging(s.getPriorityAging())
                .strictPriority(s.getStrictPriority())
                .retry(policy)
                .deadLetterRetention(s.getDeadLetter().getRetention())
                .deadLetterMaxCount(s.getDeadLetter().getMaxCount())
                .keepHistory(s.getHistory().getMaxAge(), s.getHistory().getMaxCount())
                .noRetryFor(noRetryFor)
                .errorHandler(handler.errorHandler())
                .build();
    }

    /**
     * The classes named by a {@code no-retry-for} list, loaded with the application's class loader (the
     * thread context class loader at startup). The names come from the application's configuration, never
     * from messages.
     */
    private static Set<Class<? extends Throwable>> exceptions(String property, @Nullable List<String> names) {
        if (names == null) {
            return Set.of();
        }
        Set<Class<? extends Throwable>> classes = new LinkedHashSet<>();
        for (String name : names) {
            String trimmed = name == null ? "" : name.trim();
            Class<?> type;
            try {
                type = ClassUtils.forName(trimmed, ClassUtils.getDefaultClassLoader());
            } catch (ClassNotFoundException | LinkageError | IllegalArgumentException e) {
                throw new DelayQueueConfigurationException(property + " names '" + name
                        + "', which is not a class on the application's class path.",
                        "Use fully qualified names of exception classes, such as java.lang.IllegalArgumentException "
                                + "(nested classes as com.example.Outer$Inner).", e);
            }
            if (!Throwable.class.isAssignableFrom(type)) {
                throw new DelayQueueConfigurationException(property + " names '" + name + "', which is not a "
                        + "Throwable.", "List only exception classes (subclasses of java.lang.Throwable).");
            }
            classes.add(type.asSubclass(Throwable.class));
        }
        return classes;
    }

    private static <T> T first(@Nullable T value, T fallback) {
        return value != null ? value : fallback;
    }

    /** What distinguishes one {@link io.github.delayqueue.core.DelayQueueClient} from another. */
    public record ClientKey(String keyPrefix, int maxPayloadBytes) {
    }
}
