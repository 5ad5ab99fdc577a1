package io.github.delayqueue.spring.autoconfigure;

import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.ExpiryAction;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties of the delayqueue starter ({@code delayqueue.*}). Defaults equal the
 * engine's defaults. Settings of one queue resolve, first set wins: the {@code @DelayHandler}
 * attribute, {@code delayqueue.queues.<code>.*}, {@code delayqueue.consumer.*} /
 * {@code delayqueue.producer.*}.
 */
@ConfigurationProperties("delayqueue")
public class DelayQueueProperties {

    /**
     * Prefix of every Redis key of the queues, as in '<prefix>:{<code>}:delayed'. Applications that
     * share a Redis and a prefix share their queues.
     */
    private String keyPrefix = "dq";

    /**
     * Packages to scan for enums implementing DelayQueueCode, in addition to the application's
     * auto-configuration packages (the package of the @SpringBootApplication class).
     */
    private List<String> scanPackages = new ArrayList<>();

    /**
     * Longest that readiness (the ApplicationReadyEvent, and with it the readiness state ACCEPTING_TRAFFIC) waits
     * for the warm-up that starts with the context: connecting to Redis, loading the scripts, checking the
     * partition counts and preparing the codec for the handlers' payload types. 0 does not wait. A Redis that is
     * down never fails or holds up startup longer than this.
     */
    private Duration warmUpWait = Duration.ofSeconds(5);

    /**
     * Whether the instances consuming a queue take turns checking it for work no wake-up announced (a lost wake-up, a
     * lease left by a stopped instance), so that an idle queue costs Redis about one read per max-poll-interval
     * however many instances consume it. Each instance registers under '<prefix>:{~watch}:'. false: every consumer
     * claims at least every max-poll-interval on its own, the cost growing with the instances.
     */
    private boolean sharedIdlePolling = true;

    private final Producer producer = new Producer();

    private final Consumer consumer = new Consumer();

    private final Endpoint endpoint = new Endpoint();
    private final Metrics metrics = new Metrics();
    private final Activity activity = new Activity();

    /**
     * Per-queue settings, keyed by queue code. Each entry takes: key-prefix, consumer-enabled, max-payload-size and
     * partitions; the flow limits rate-limit, rate-limit-burst and max-in-flight; the group limits group-rate-limit and
     * group-max-in-flight; on-expiry (dead-letter or drop); default-priority (0 to 9); observation-enabled; and every
     * setting of delayqueue.consumer except enabled: concurrency, the batch settings batch-size and batch-wait,
     * visibility-timeout, handler-timeout, max-poll-interval, shutdown-timeout, priority-aging, strict-priority,
     * retry.*, dead-letter.* and history.*. Unset values inherit the global ones (the flow and group limits,
     * on-expiry, default-priority and partitions have none: unset is no limit, dead-letter, 4, 1). Use brackets for
     * codes with dots: 'delayqueue.queues[orders.timeout].concurrency'.
     */
    private Map<String, Queue> queues = new LinkedHashMap<>();

    /**
     * Recurring schedules this application declares, keyed by schedule name (its id within its queue). Each entry
     * takes: queue (required), cron or every (exactly one), zone (default UTC), payload (JSON, default {}), misfire
     * (fire-once, skip or fire-all), catch-up-limit (for fire-all, default 100) and overlap (allow or skip). Declared
     * at each start; see docs/guides/recurring-jobs.md.
     */
    private Map<String, Schedule> schedules = new LinkedHashMap<>();

    public String getKeyPrefix() {
        return this.keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public Duration getWarmUpWait() {
        return this.warmUpWait;
    }

    public void setWarmUpWait(Duration warmUpWait) {
        this.warmUpWait = warmUpWait;
    }

    public boolean isSharedIdlePolling() {
        return this.sharedIdlePolling;
    }

    public void setSharedIdlePolling(boolean sharedIdlePolling) {
        this.sharedIdlePolling = sharedIdlePolling;
    }

    public List<String> getScanPackages() {
        return this.scanPackages;
    }

    public void setScanPackages(List<String> scanPackages) {
        this.scanPackages = scanPackages;
    }

    public Producer getProducer() {
        return this.producer;
    }

    public Consumer getConsumer() {
        return this.consumer;
    }

    public Endpoint getEndpoint() {
        return this.endpoint;
    }

    public Map<String, Queue> getQueues() {
        return this.queues;
    }

    public void setQueues(Map<String, Queue> queues) {
        this.queues = queues;
    }

    public Map<String, Schedule> getSchedules() {
        return this.schedules;
    }

    public void setSchedules(Map<String, Schedule> schedules) {
        this.schedules = schedules;
    }

    /** One recurring schedule ({@code delayqueue.schedules.<name>.*}); exactly one of cron and every. */
    public static class Schedule {

        /** Declared queue code whose handler runs each tick. */
        private @Nullable String queue;

        /** Cron expression as Spring's CronExpression reads it: 6 fields (second first) or a macro such as @daily. */
        private @Nullable String cron;

        /** Fixed rate, instead of cron: ticks at every multiple of this period since the epoch (30s ticks at :00 and :30). */
        private @Nullable Duration every;

        /** Time zone the cron expression is read in (an IANA id such as Europe/Berlin); UTC so that every instance agrees. */
        private String zone = "UTC";

        /** Payload of every tick, as JSON of the queue handler's payload type (default an empty object). */
        private String payload = "{}";

        /**
         * What to do with ticks missed while no consumer ran or the schedule was paused: fire-once (one catch-up
         * tick, then on schedule), skip (none) or fire-all (every missed tick, up to catch-up-limit).
         */
        private io.github.delayqueue.core.schedule.Misfire misfire = io.github.delayqueue.core.schedule.Misfire.FIRE_ONCE;

        /** Most missed ticks misfire 'fire-all' runs after one outage (1 to 10000). */
        private int catchUpLimit = 100;

        /**
         * Whether a tick runs while the previous tick of the schedule still runs or waits for a retry: allow (it
         * runs) or skip (it is left out, acknowledged without running the handler).
         */
        private io.github.delayqueue.core.schedule.Overlap overlap = io.github.delayqueue.core.schedule.Overlap.ALLOW;

        public @Nullable String getQueue() {
            return this.queue;
        }

        public void setQueue(@Nullable String queue) {
            this.queue = queue;
        }

        public @Nullable String getCron() {
            return this.cron;
        }

        public void setCron(@Nullable String cron) {
            this.cron = cron;
        }

        public @Nullable Duration getEvery() {
            return this.every;
        }

        public void setEvery(@Nullable Duration every) {
            this.every = every;
        }

        public String getZone() {
            return this.zone;
        }

        public void setZone(String zone) {
            this.zone = zone;
        }

        public String getPayload() {
            return this.payload;
        }

        public void setPayload(String payload) {
            this.payload = payload;
        }

        public io.github.delayqueue.core.schedule.Misfire getMisfire() {
            return this.misfire;
        }

        public void setMisfire(io.github.delayqueue.core.schedule.Misfire misfire) {
            this.misfire = misfire;
        }

        public int getCatchUpLimit() {
            return this.catchUpLimit;
        }

        public void setCatchUpLimit(int catchUpLimit) {
            this.catchUpLimit = catchUpLimit;
        }

        public io.github.delayqueue.core.schedule.Overlap getOverlap() {
            return this.overlap;
        }

        public void setOverlap(io.github.delayqueue.core.schedule.Overlap overlap) {
            this.overlap = overlap;
        }
    }

    /** Settings of the 'delayqueue' actuator endpoint. */
    public static class Endpoint {

        /**
         * Whether the endpoint shows the payloads and headers of dead letters. Off by default: payloads may
         * hold personal data.
         */
        private boolean showPayloads = false;

        public boolean isShowPayloads() {
            return this.showPayloads;
        }

        public void setShowPayloads(boolean showPayloads) {
            this.showPayloads = showPayloads;
        }
    }

    public Metrics getMetrics() {
        return this.metrics;
    }

    public Activity getActivity() {
        return this.activity;
    }

    /** Settings of the activity counts per queue and minute (the dashboard's charts of a queue's last hour). */
    public static class Activity {

        /**
         * Whether this application's consumers count what they handled, retried and dead-lettered and how late their
         * handlers started, per queue and minute, and add it to Redis once a minute: one script call per queue per
         * instance, into one small hash per queue and minute kept two hours ('<prefix>:{<queue>}:activity:<minute>').
         * false: nothing is counted or written; the activity shown is what other instances wrote.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** Settings of the Micrometer metrics, used when the application has a MeterRegistry bean. */
    public static class Metrics {

        /**
         * How often the queue gauges (pending, ready, in flight, dead) are read from Redis: one background
         * read per queue per interval, shared by every scrape. Must be positive.
         */
        private Duration refreshInterval = Duration.ofSeconds(10);

        public Duration getRefreshInterval() {
            return this.refreshInterval;
        }

        public void setRefreshInterval(Duration refreshInterval) {
            this.refreshInterval = refreshInterval;
        }
    }

    /** Settings of DelayQueueTemplate. */
    public static class Producer {

        /**
         * Whether sends inside an active Spring transaction are deferred until it commits (and
         * dropped if it rolls back). Cancel and reschedule always act at once.
         */
        private boolean transactionAware = true;

        /**
         * Largest message accepted, in UTF-8 bytes of its stored body: the payload's JSON plus its headers (the
         * send's own, and those the library adds: trace context when observed, dedup window, expiry, group) written
         * as JSON with their length, at most 512MB. A larger send throws IllegalArgumentException and writes nothing.
         */
        private DataSize maxPayloadSize = DataSize.ofMegabytes(1);

        /** Most messages accepted by one sendAll call. */
        private int maxBatchSize = 10_000;

        /**
         * Replicas of the queue's Redis master that each send waits for before it returns (Redis WAIT after the
         * write), 0 to 100. 0 does not wait: a failover can then lose sends that returned. What a send that fewer
         * replicas acknowledged within 'wait-for-replicas-timeout' does is 'wait-for-replicas-required''s choice.
         */
        private int waitForReplicas = 1;

        /** Longest a send waits for 'wait-for-replicas' replicas (1ms to 1m). */
        private Duration waitForReplicasTimeout = Duration.ofMillis(250);

        /**
         * Whether a send that fewer than 'wait-for-replicas' replicas acknowledged in time throws
         * NotReplicatedException (it was written on the master). When false, it returns, a warning is logged, and the
         * queue's sends stop waiting until its master's replicas acknowledge again (probed in the background), so a
         * master without a replica (a standalone Redis, a replica that is down) neither fails nor stalls sends.
         */
        private boolean waitForReplicasRequired = false;

        /**
         * Whether each send of the template is observed: a 'delayqueue.send' observation (a span with Micrometer
         * Tracing) whose trace context is stored in the message's headers, so the handler joins the sender's trace.
         * Off by default, as Spring Kafka's template: the meters count sends either way. A queue can override it
         * with 'delayqueue.queues.<code>.observation-enabled'. Needs an ObservationRegistry bean.
         */
        private boolean observationEnabled = false;

        public boolean isObservationEnabled() {
            return this.observationEnabled;
        }

        public void setObservationEnabled(boolean observationEnabled) {
            this.observationEnabled = observationEnabled;
        }

        public boolean isTransactionAware() {
            return this.transactionAware;
        }

        public void setTransactionAware(boolean transactionAware) {
            this.transactionAware = transactionAware;
        }

        public DataSize getMaxPayloadSize() {
            return this.maxPayloadSize;
        }

        public void setMaxPayloadSize(DataSize maxPayloadSize) {
            this.maxPayloadSize = maxPayloadSize;
        }

        public int getMaxBatchSize() {
            return this.maxBatchSize;
        }

        public void setMaxBatchSize(int maxBatchSize) {
            this.maxBatchSize = maxBatchSize;
        }

        public int getWaitForReplicas() {
            return this.waitForReplicas;
        }

        public void setWaitForReplicas(int waitForReplicas) {
            this.waitForReplicas = waitForReplicas;
        }

        public Duration getWaitForReplicasTimeout() {
            return this.waitForReplicasTimeout;
        }

        public void setWaitForReplicasTimeout(Duration waitForReplicasTimeout) {
            this.waitForReplicasTimeout = waitForReplicasTimeout;
        }

        public boolean isWaitForReplicasRequired() {
            return this.waitForReplicasRequired;
        }

        public void setWaitForReplicasRequired(boolean waitForReplicasRequired) {
            this.waitForReplicasRequired = waitForReplicasRequired;
        }
    }

    /**
     * Settings of the consumers that run @DelayHandler beans ({@code delayqueue.consumer.*}): the settings
     * every queue inherits, whose defaults are the engine's, and whether this application consumes at all.
     */
    public static class Consumer extends ConsumerSettings {

        /**
         * Whether this application consumes its queues. Set to false in a producer-only application;
         * a queue can override it with 'delayqueue.queues.<code>.consumer-enabled'.
         */
        private boolean enabled = true;

        /**
         * Whether each handler call is observed: a 'delayqueue.process' observation (a span with Micrometer Tracing,
         * in the sender's trace when the send was observed). Off by default, as Spring Kafka's listeners: the meters
         * count deliveries either way. A queue can override it with 'delayqueue.queues.<code>.observation-enabled'.
         * Needs an ObservationRegistry bean.
         */
        private boolean observationEnabled = false;

        public boolean isObservationEnabled() {
            return this.observationEnabled;
        }

        public void setObservationEnabled(boolean observationEnabled) {
            this.observationEnabled = observationEnabled;
        }

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /**
     * Overrides for one queue ({@code delayqueue.queues.<code>.*}): the consumer settings, every one unset
     * until given, plus the queue's client settings. Unset values inherit the global ones.
     */
    public static class Queue extends ConsumerSettings {

        /** Redis key prefix of this queue. */
        private @Nullable String keyPrefix;

        /** Whether this application consumes this queue (false = only send to it). */
        private @Nullable Boolean consumerEnabled;

        /**
         * Largest message accepted by this queue, counted as delayqueue.producer.max-payload-size counts it: the
         * payload's JSON plus its headers, in UTF-8 bytes.
         */
        private @Nullable DataSize maxPayloadSize;

        /**
         * Partitions this queue is split into, 1 to 64 (default 1). Each partition has keys of its own Redis Cluster
         * hash tag, so a queue with as many partitions as the cluster has masters (or a multiple) uses every master. A
         * message lives in partition hash(id) mod N. Every application using the queue must set the same count: it is
         * recorded in Redis on first use, and an application with another count is refused (see docs/operations/scaling.md).
         */
        private @Nullable Integer partitions;

        /**
         * Most messages of this queue claimed per period over every application and instance together, written
         * {@code <permits>/<period>}: {@code 200/1s}, {@code 10/1m}, {@code 5/500ms} (units ms, s, m, h, d). Spread
         * evenly on the Redis clock (no double rate across a window edge); messages over the limit stay due in
         * Redis, no attempt spent. Unset: no limit. A partitioned queue gives each partition an even share.
         */
        private @Nullable String rateLimit;

        /**
         * Messages of this queue claimed at once after a quiet spell, within its rate limit, 1 to 1000000. Default:
         * the permits of 50 ms rounded down, at least 1 (floor(permits * 50ms / period): 200/1s gives 10, 50/1s gives
         * 2, 10/1s and 10/1m give 1). A partitioned queue gives each partition ceil(burst / partitions).
         */
        private @Nullable Integer rateLimitBurst;

        /**
         * Most messages of this queue in flight (claimed and not yet settled) over every application and instance
         * together, whatever each one's concurrency. Unset: no cap. At least the queue's partition count.
         */
        private @Nullable Integer maxInFlight;

        /**
         * Most messages of each group (SendOptions.group: a tenant, a customer, an endpoint) claimed per period over
         * every application and instance together, for every group on its own, written as rate-limit is: one group's
         * burst does not hold back the others. Unset: no limit per group. See docs/guides/flow-control.md.
         */
        private @Nullable String groupRateLimit;

        /**
         * Most messages of each group (SendOptions.group) in flight over every application and instance together.
         * Unset: no cap per group. At least the queue's partition count.
         */
        private @Nullable Integer groupMaxInFlight;

        /**
         * What the claim does with a message of this queue not handed to a handler by its expiry (sent with
         * SendOptions.expiresAt or expiresAfter): dead-letter (to the dead letters with the cause EXPIRED, the
         * default) or drop (deleted, counted by the metrics).
         */
        private @Nullable ExpiryAction onExpiry;

        /**
         * Priority of this queue's messages sent without one (SendOptions.priority), from 0 (lowest) to 9 (highest).
         * Unset: 4 (SendOptions.DEFAULT_PRIORITY). Applied by this application's sends, the outbox's included; a
         * grouped message keeps 4. See docs/guides/priorities.md.
         */
        private @Nullable Integer defaultPriority;

        /**
         * Whether this queue's sends and handler calls are observed ('delayqueue.send' and 'delayqueue.process'),
         * overriding both 'delayqueue.producer.observation-enabled' and 'delayqueue.consumer.observation-enabled'.
         */
        private @Nullable Boolean observationEnabled;

        public @Nullable Integer getDefaultPriority() {
            return this.defaultPriority;
        }

        public void setDefaultPriority(@Nullable Integer defaultPriority) {
            this.defaultPriority = defaultPriority;
        }

        public @Nullable Boolean getObservationEnabled() {
            return this.observationEnabled;
        }

        public void setObservationEnabled(@Nullable Boolean observationEnabled) {
            this.observationEnabled = observationEnabled;
        }

        public Queue() {
            super(false);
        }

        public @Nullable ExpiryAction getOnExpiry() {
            return this.onExpiry;
        }

        public void setOnExpiry(@Nullable ExpiryAction onExpiry) {
            this.onExpiry = onExpiry;
        }

        public @Nullable String getRateLimit() {
            return this.rateLimit;
        }

        public void setRateLimit(@Nullable String rateLimit) {
            this.rateLimit = rateLimit;
        }

        public @Nullable Integer getRateLimitBurst() {
            return this.rateLimitBurst;
        }

        public void setRateLimitBurst(@Nullable Integer rateLimitBurst) {
            this.rateLimitBurst = rateLimitBurst;
        }

        public @Nullable Integer getMaxInFlight() {
            return this.maxInFlight;
        }

        public void setMaxInFlight(@Nullable Integer maxInFlight) {
            this.maxInFlight = maxInFlight;
        }

        public @Nullable String getGroupRateLimit() {
            return this.groupRateLimit;
        }

        public void setGroupRateLimit(@Nullable String groupRateLimit) {
            this.groupRateLimit = groupRateLimit;
        }

        public @Nullable Integer getGroupMaxInFlight() {
            return this.groupMaxInFlight;
        }

        public void setGroupMaxInFlight(@Nullable Integer groupMaxInFlight) {
            this.groupMaxInFlight = groupMaxInFlight;
        }

        public @Nullable String getKeyPrefix() {
            return this.keyPrefix;
        }

        public void setKeyPrefix(@Nullable String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }

        public @Nullable Boolean getConsumerEnabled() {
            return this.consumerEnabled;
        }

        public void setConsumerEnabled(@Nullable Boolean consumerEnabled) {
            this.consumerEnabled = consumerEnabled;
        }

        public @Nullable DataSize getMaxPayloadSize() {
            return this.maxPayloadSize;
        }

        public void setMaxPayloadSize(@Nullable DataSize maxPayloadSize) {
            this.maxPayloadSize = maxPayloadSize;
        }

        public @Nullable Integer getPartitions() {
            return this.partitions;
        }

        public void setPartitions(@Nullable Integer partitions) {
            this.partitions = partitions;
        }
    }

    /**
     * The consumer settings of a queue, used at both levels: {@code delayqueue.consumer.*} (with the
     * defaults below, which equal the engine's) and {@code delayqueue.queues.<code>.*} (every value unset
     * until given). {@link #firstSet} merges the levels. Adding a setting takes a field with its Javadoc
     * (and accessors) here and its mapping onto the engine's options in {@code QueueSettings}.
     */
    public static class ConsumerSettings {

        /** Handlers of one queue running at once in this application. */
        private @Nullable Integer concurrency = 16;

        /**
         * Most messages claimed from Redis in one round trip; for a batch handler (@DelayHandler(batch = "true") or a
         * DelayBatchMessageHandler), also the most messages per call (1 to 1000).
         */
        private @Nullable Integer batchSize = 100;

        /**
         * For a batch handler only: how long a claim that found fewer due messages than batch-size waits for more
         * before handing the batch over (0 = hand over a partial batch at once). At most 10s, and shorter than half
         * the visibility timeout: the messages claimed first hold their lease meanwhile.
         */
        private @Nullable Duration batchWait = Duration.ZERO;

        /**
         * Lease of a claimed message. Leases of running handlers are extended, so this bounds how long
         * the messages of a crashed instance wait before redelivery, not how long a handler may run.
         */
        private @Nullable Duration visibilityTimeout = Duration.ofSeconds(30);

        /** Longest a handler may run before it is interrupted and its message retried (or dead-lettered on its last attempt). */
        private @Nullable Duration handlerTimeout = Duration.ofMinutes(5);

        /** Longest an idle consumer waits without asking Redis, a safety net for lost wake-up signals. */
        private @Nullable Duration maxPollInterval = Duration.ofSeconds(1);

        /**
         * How long shutdown waits for running handlers; unfinished messages stay in Redis and are
         * delivered again. Keep it 5s below 'spring.lifecycle.timeout-per-shutdown-phase' (30s by default),
         * the time the starter allows for acknowledging.
         */
        private @Nullable Duration shutdownTimeout = Duration.ofSeconds(25);

        /**
         * How long a message's priority (SendOptions.priority) counts for, per level, 1ms to 1d: among due messages a
         * claim takes the lowest 'due time - priority x priority-aging' first, so a message waits behind a higher
         * priority's only for those that became due less than '(difference) x priority-aging' after it. Ignored with
         * strict-priority. Give every consumer of a queue the same.
         */
        private @Nullable Duration priorityAging = Duration.ofMinutes(1);

        /**
         * Whether a claim always takes the highest priority due first, without aging: a steady stream of high
         * priorities then holds lower ones back for as long as it lasts. Give every consumer of a queue the same.
         */
        private @Nullable Boolean strictPriority = false;

        private final Retry retry = new Retry();

        private final DeadLetter deadLetter = new DeadLetter();

        private final History history = new History();

        /** The defaults (the engine's). */
        ConsumerSettings() {
        }

        /** With {@code defaults} false, every setting unset, so that it inherits from the next level. */
        ConsumerSettings(boolean defaults) {
            if (!defaults) {
                clear(ConsumerSettings.class, this);
            }
        }

        /**
         * The settings of {@code levels}, first set wins per setting (nested groups descended into), then the
         * defaults: every value of the result is set.
         */
        static ConsumerSettings firstSet(ConsumerSettings... levels) {
            ConsumerSettings merged = new ConsumerSettings(false);
            for (ConsumerSettings level : levels) {
                fill(ConsumerSettings.class, merged, level);
            }
            fill(ConsumerSettings.class, merged, new ConsumerSettings());
            return merged;
        }

        /** Sets every value of {@code target} that is unset to the one of {@code source}. */
        private static void fill(Class<?> type, Object target, Object source) {
            ReflectionUtils.doWithLocalFields(type, field -> {
                if (Modifier.isStatic(field.getModifiers())) {
                    return;
                }
                ReflectionUtils.makeAccessible(field);
                if (Modifier.isFinal(field.getModifiers())) {
                    fill(field.getType(), field.get(target), field.get(source));
                } else if (field.get(target) == null) {
                    field.set(target, field.get(source));
                }
            });
        }

        private static void clear(Class<?> type, Object target) {
            ReflectionUtils.doWithLocalFields(type, field -> {
                if (Modifier.isStatic(field.getModifiers())) {
                    return;
                }
                ReflectionUtils.makeAccessible(field);
                if (Modifier.isFinal(field.getModifiers())) {
                    clear(field.getType(), field.get(target));
                } else {
                    field.set(target, null);
                }
            });
        }

        public @Nullable Integer getConcurrency() {
            return this.concurrency;
        }

        public void setConcurrency(@Nullable Integer concurrency) {
            this.concurrency = concurrency;
        }

        public @Nullable Integer getBatchSize() {
            return this.batchSize;
        }

        public void setBatchSize(@Nullable Integer batchSize) {
            this.batchSize = batchSize;
        }

        public @Nullable Duration getBatchWait() {
            return this.batchWait;
        }

        public void setBatchWait(@Nullable Duration batchWait) {
            this.batchWait = batchWait;
        }

        public @Nullable Duration getVisibilityTimeout() {
            return this.visibilityTimeout;
        }

        public void setVisibilityTimeout(@Nullable Duration visibilityTimeout) {
            this.visibilityTimeout = visibilityTimeout;
        }

        public @Nullable Duration getHandlerTimeout() {
            return this.handlerTimeout;
        }

        public void setHandlerTimeout(@Nullable Duration handlerTimeout) {
            this.handlerTimeout = handlerTimeout;
        }

        public @Nullable Duration getMaxPollInterval() {
            return this.maxPollInterval;
        }

        public void setMaxPollInterval(@Nullable Duration maxPollInterval) {
            this.maxPollInterval = maxPollInterval;
        }

        public @Nullable Duration getShutdownTimeout() {
            return this.shutdownTimeout;
        }

        public void setShutdownTimeout(@Nullable Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }

        public @Nullable Duration getPriorityAging() {
            return this.priorityAging;
        }

        public void setPriorityAging(@Nullable Duration priorityAging) {
            this.priorityAging = priorityAging;
        }

        public @Nullable Boolean getStrictPriority() {
            return this.strictPriority;
        }

        public void setStrictPriority(@Nullable Boolean strictPriority) {
            this.strictPriority = strictPriority;
        }

        public Retry getRetry() {
            return this.retry;
        }

        public DeadLetter getDeadLetter() {
            return this.deadLetter;
        }

        public History getHistory() {
            return this.history;
        }

        /**
         * The history: a record of each message the consumer acknowledges or dead-letters, or that is cancelled (when,
         * after how many attempts, on which instance, how long it took, the outcome, the handler's result and
         * progress), and of each delivery that runs past its first lease extension or reports progress, while it runs
         * (where, since when), read with
         * DelayQueueAdmin.status. Off unless a bound is set.
         */
        public static class History {

            /** Records older than this are deleted; 0 (the default): no age bound. */
            private @Nullable Duration maxAge = Duration.ZERO;

            /** Most records kept per queue, the oldest beyond it deleted; 0 (the default): no count bound. */
            private @Nullable Integer maxCount = 0;

            public @Nullable Duration getMaxAge() {
                return this.maxAge;
            }

            public void setMaxAge(@Nullable Duration maxAge) {
                this.maxAge = maxAge;
            }

            public @Nullable Integer getMaxCount() {
                return this.maxCount;
            }

            public void setMaxCount(@Nullable Integer maxCount) {
                this.maxCount = maxCount;
            }
        }

        /**
         * How long dead letters are kept. The consumer deletes the excess in its claim script, at most 100
         * per poll.
         */
        public static class DeadLetter {

            /** Dead letters older than this are deleted. */
            private @Nullable Duration retention = Duration.ofDays(14);

            /** Most dead letters kept per queue; the oldest beyond this are deleted. */
            private @Nullable Integer maxCount = 100_000;

            public @Nullable Duration getRetention() {
                return this.retention;
            }

            public void setRetention(@Nullable Duration retention) {
                this.retention = retention;
            }

            public @Nullable Integer getMaxCount() {
                return this.maxCount;
            }

            public void setMaxCount(@Nullable Integer maxCount) {
                this.maxCount = maxCount;
            }
        }

        /** Retries of failed handlers: exponential back-off with jitter, then dead letters. */
        public static class Retry {

            /** Deliveries in total, the first included, before a failing message is dead-lettered. */
            private @Nullable Integer maxAttempts = 5;

            /** Back-off after the first failure. */
            private @Nullable Duration initialBackoff = Duration.ofSeconds(1);

            /** Factor applied to the back-off after each further failure. */
            private @Nullable Double multiplier = 2.0;

            /** Longest back-off. */
            private @Nullable Duration maxBackoff = Duration.ofMinutes(5);

            /** Random spread applied to each back-off, as a fraction from 0 (none) to 1. */
            private @Nullable Double jitter = 0.2;

            /**
             * Exceptions never retried, as fully qualified class names: a failure with one of them (or a
             * subclass) anywhere in its cause chain is dead-lettered at once. A queue's list replaces the
             * global one; @DelayHandler(noRetryFor) adds to it.
             */
            private @Nullable List<String> noRetryFor = new ArrayList<>();

            public @Nullable Integer getMaxAttempts() {
                return this.maxAttempts;
            }

            public void setMaxAttempts(@Nullable Integer maxAttempts) {
                this.maxAttempts = maxAttempts;
            }

            public @Nullable Duration getInitialBackoff() {
                return this.initialBackoff;
            }

            public void setInitialBackoff(@Nullable Duration initialBackoff) {
                this.initialBackoff = initialBackoff;
            }

            public @Nullable Double getMultiplier() {
                return this.multiplier;
            }

            public void setMultiplier(@Nullable Double multiplier) {
                this.multiplier = multiplier;
            }

            public @Nullable Duration getMaxBackoff() {
                return this.maxBackoff;
            }

            public void setMaxBackoff(@Nullable Duration maxBackoff) {
                this.maxBackoff = maxBackoff;
            }

            public @Nullable Double getJitter() {
                return this.jitter;
            }

            public void setJitter(@Nullable Double jitter) {
                this.jitter = jitter;
            }

            public @Nullable List<String> getNoRetryFor() {
                return this.noRetryFor;
            }

            public void setNoRetryFor(@Nullable List<String> noRetryFor) {
                this.noRetryFor = noRetryFor;
            }
        }
    }
}
