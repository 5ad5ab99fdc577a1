package io.github.delayqueue.core;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.internal.Checks;
import io.github.delayqueue.core.protocol.Partitions;
import io.github.delayqueue.core.protocol.QueueKeys;

/**
 * Settings shared by every queue of one {@link DelayQueueClient}. Immutable; build with
 * {@link #builder()}.
 *
 * <ul>
 *   <li>{@code keyPrefix}: first part of every Redis key (default {@code dq}); keys look like
 *       {@code dq:{orders}:delayed}.</li>
 *   <li>{@code maxPayloadBytes}: largest message body accepted, in UTF-8 bytes: the payload's JSON and its
 *   headers' JSON together (default 1 MiB).</li>
 *   <li>{@code maxBatchSize}: most messages accepted by one {@code sendAll} call (default 10,000).</li>
 *   <li>{@code codec}: payload JSON codec (default {@link JacksonPayloadCodec} on Jackson's defaults).</li>
 *   <li>{@code clock}: the JVM clock, read only to reject a {@code sendAt} instant absurdly far in the
 *       future (default {@link Clock#systemUTC()}). Due times and leases never use it: they come from
 *       the Redis server's clock. Settable so tests can prove that a skewed JVM clock changes nothing.</li>
 *   <li>{@code listener}: hears sends, claims, handler runs and settles of this client and its consumers, for
 *       metrics and tracing (default {@link DelayQueueListener#NONE}).</li>
 *   <li>{@code waitForReplicas}: after each send's script call, Redis {@code WAIT} on the same connection until that
 *       many replicas of the queue's master acknowledged the write, at most the timeout (default 0: no wait). A send
 *       acknowledged by fewer throws {@link NotReplicatedException}: it was written on the master, but a failover
 *       before the replicas caught up would lose it. Replication in Redis is asynchronous, so without this a failover
 *       can lose sends that returned. With {@code replicasRequired} false, a send that fewer replicas acknowledged
 *       returns instead, and the queue's sends stop waiting until its master's replicas acknowledge again (so a master
 *       without a replica neither fails nor stalls sends); see {@link Builder#replicasRequired}.</li>
 *   <li>{@code partitions}: per queue, how many partitions it is split into (default 1); see
 *       {@link Builder#partitions}.</li>
 *   <li>{@code defaultPriority}: per queue, the priority of a message sent without one (default
 *       {@link SendOptions#DEFAULT_PRIORITY}); see {@link Builder#defaultPriority}.</li>
 *   <li>{@code sharedIdlePolling}: whether the instances consuming a queue take turns checking it for work whose
 *       wake-up was lost, so that an idle queue costs Redis the same however many instances consume it (default
 *       true); see {@link Builder#sharedIdlePolling}.</li>
 *   <li>{@code activity}: whether this client's consumers count what they handled, retried and dead-lettered and how
 *       late their handlers started, per queue and minute, and add it to Redis once a minute for
 *       {@link DelayQueueClient#activity} (default true); see {@link Builder#activity}.</li>
 * </ul>
 */
public final class ClientOptions {

    /** Longest {@link Builder#waitForReplicas} timeout accepted: a send blocks its caller this long at most. */
    public static final Duration MAX_REPLICA_TIMEOUT = Duration.ofMinutes(1);

    /** Most replicas {@link Builder#waitForReplicas} accepts. */
    public static final int MAX_REPLICAS = 100;

    /** Longest message id accepted, in characters. */
    public static final int MAX_ID_LENGTH = 256;

    private final String keyPrefix;
    private final int maxPayloadBytes;
    private final int maxBatchSize;
    private final PayloadCodec codec;
    private final Clock clock;
    private final DelayQueueListener listener;
    private final int waitForReplicas;
    private final Duration replicaTimeout;
    private final boolean replicasRequired;
    private final Map<String, Integer> partitions;
    private final Map<String, Integer> defaultPriorities;
    private final int defaultPartitions;
    private final boolean sharedIdlePolling;
    private final boolean activity;

    private ClientOptions(Builder b) {
        Checks.require(b.keyPrefix != null && !b.keyPrefix.isBlank(), "keyPrefix must not be blank");
        Checks.require(b.keyPrefix.indexOf('{') < 0 && b.keyPrefix.indexOf('}') < 0,
                "keyPrefix must not contain '{' or '}' (they would change the Redis Cluster hash tag): " + b.keyPrefix);
        Checks.require(b.maxPayloadBytes >= 1 && b.maxPayloadBytes <= 512 * 1024 * 1024,
                "maxPayloadBytes must be between 1 and 512 MiB, was " + b.maxPayloadBytes);
        Checks.require(b.maxBatchSize >= 1 && b.maxBatchSize <= 1_000_000,
                "maxBatchSize must be between 1 and 1000000, was " + b.maxBatchSize);
        this.keyPrefix = b.keyPrefix;
        this.maxPayloadBytes = b.maxPayloadBytes;
        this.maxBatchSize = b.maxBatchSize;
        this.codec = Checks.notNull(b.codec, "codec");
        this.clock = Checks.notNull(b.clock, "clock");
        this.listener = Checks.notNull(b.listener, "listener");
        Checks.require(b.waitForReplicas >= 0 && b.waitForReplicas <= MAX_REPLICAS,
                "waitForReplicas must be between 0 and " + MAX_REPLICAS + ", was " + b.waitForReplicas);
        Checks.notNull(b.replicaTimeout, "replica timeout");
        Checks.require(b.waitForReplicas == 0 || (b.replicaTimeout.toMillis() >= 1
                && b.replicaTimeout.compareTo(MAX_REPLICA_TIMEOUT) <= 0),
                "the waitForReplicas timeout must be between 1 ms and " + MAX_REPLICA_TIMEOUT + ", was " + b.replicaTimeout);
        this.waitForReplicas = b.waitForReplicas;
        this.replicaTimeout = b.replicaTimeout;
        this.replicasRequired = b.replicasRequired;
        this.partitions = Map.copyOf(b.partitions);
        this.defaultPriorities = Map.copyOf(b.defaultPriorities);
        this.defaultPartitions = b.defaultPartitions;
        this.sharedIdlePolling = b.sharedIdlePolling;
        this.activity = b.activity;
    }

    public static Builder builder() {
        return new Builder();
    }

    public String keyPrefix() {
        return keyPrefix;
    }

    public int maxPayloadBytes() {
        return maxPayloadBytes;
    }

    public int maxBatchSize() {
        return maxBatchSize;
    }

    public PayloadCodec codec() {
        return codec;
    }

    public Clock clock() {
        return clock;
    }

    public DelayQueueListener listener() {
        return listener;
    }

    /** Replicas each send waits for (0: none); see {@link Builder#waitForReplicas}. */
    public int waitForReplicas() {
        return waitForReplicas;
    }

    /** Longest wait for {@link #waitForReplicas()}. */
    public Duration replicaTimeout() {
        return replicaTimeout;
    }

    /** Whether a send that fewer than {@link #waitForReplicas()} replicas acknowledged throws; see {@link Builder#replicasRequired}. */
    public boolean replicasRequired() {
        return replicasRequired;
    }

    /** The priority of {@code queue}'s messages sent without one; see {@link Builder#defaultPriority}. */
    public int defaultPriority(String queue) {
        return defaultPriorities.getOrDefault(queue, SendOptions.DEFAULT_PRIORITY);
    }

    /** The partitions of {@code queue}: what {@link Builder#partitions} set for it, else 1. */
    public int partitions(String queue) {
        Integer count = queue == null ? null : partitions.get(queue);
        return count == null ? defaultPartitions : count;
    }

    /** Whether the consuming instances take turns checking idle queues; see {@link Builder#sharedIdlePolling}. */
    public boolean sharedIdlePolling() {
        return sharedIdlePolling;
    }

    /** Whether the consumers count their activity per minute in Redis; see {@link Builder#activity}. */
    public boolean activity() {
        return activity;
    }

    /** Builder for {@link ClientOptions}; {@link #build()} checks the values. */
    public static final class Builder {
        private String keyPrefix = "dq";
        private int maxPayloadBytes = 1024 * 1024;
        private int maxBatchSize = 10_000;
        private @Nullable PayloadCodec codec;
        private Clock clock = Clock.systemUTC();
        private DelayQueueListener listener = DelayQueueListener.NONE;
        private int waitForReplicas;
        private Duration replicaTimeout = Duration.ofSeconds(1);
        private boolean replicasRequired = true;
        private final Map<String, Integer> partitions = new HashMap<>();
        private final Map<String, Integer> defaultPriorities = new HashMap<>();
        private int defaultPartitions = 1;
        private boolean sharedIdlePolling = true;
        private boolean activity = true;

        private Builder() {
        }

        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            return this;
        }

        public Builder maxPayloadBytes(int maxPayloadBytes) {
            this.maxPayloadBytes = maxPayloadBytes;
            return this;
        }

        public Builder maxBatchSize(int maxBatchSize) {
            this.maxBatchSize = maxBatchSize;
            return this;
        }

        public Builder codec(PayloadCodec codec) {
            this.codec = codec;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** What hears this client's and its consumers' events; {@link DelayQueueListener#NONE} for none. */
        public Builder listener(DelayQueueListener listener) {
            this.listener = listener;
            return this;
        }

        /**
         * After each send's script call, waits (Redis {@code WAIT}, on the connection that wrote) until {@code replicas}
         * replicas of the queue's master have the write, at most {@code timeout} (1 ms to 1 min). A send that fewer
         * replicas acknowledged in time throws {@link NotReplicatedException}: the message was written on the master and
         * is delivered unless that master fails before a replica has it. 0 (the default) does not wait. Costs a
         * replication round trip per send call (concurrent single sends share calls).
         */
        public Builder waitForReplicas(int replicas, Duration timeout) {
            this.waitForReplicas = replicas;
            this.replicaTimeout = timeout;
            return this;
        }

        /**
         * Whether a send that fewer than {@link #waitForReplicas} replicas acknowledged in time throws
         * {@link NotReplicatedException} (true, the default). With false, sends wait only while the queue's master has
         * replicas that acknowledge: a probe off the sends' path ({@code WAIT} after a read, started by the queue's
         * first send or {@link DelayQueueClient#warmUp}) finds them, and until it has (about a round trip) sends do
         * not wait. A send that fewer replicas acknowledged in time returns (the message was written on the master), a
         * warning is logged, and the sends of that queue (partition) stop waiting until the probe (a second later,
         * then at most every 8 s) finds the replicas again. So a master without a connected replica (a standalone
         * Redis, a replica that is down) and an ACL that denies {@code WAIT} neither fail nor stall sends, but the
         * sends under way when a replica is lost wait the timeout once, and a replica slower than the timeout counts
         * as absent. What is sent while sends do not wait is not protected against a failover.
         */
        public Builder replicasRequired(boolean required) {
            this.replicasRequired = required;
            return this;
        }

        /**
         * Splits {@code queue} into {@code count} partitions (1 to 64; 1, the default, is the
         * layout of a queue that is not partitioned). Each partition has keys of its own hash tag, so on a Redis
         * Cluster the partitions spread over the masters; a message lives in partition {@code hash(id) mod count}, so
         * everything done by id stays one script on one shard. Every client of the queue must use the same count: the
         * first use of a partitioned queue records it in Redis, and a client with another count fails with
         * {@link PartitionCountException} (see docs/operations/scaling.md to change it).
         *
         * @throws IllegalArgumentException if the queue name is invalid or the count out of range
         */
        public Builder partitions(String queue, int count) {
            QueueKeys.validateName(queue);
            Checks.require(count >= 1 && count <= Partitions.MAX,
                    "partitions of queue '" + queue + "' must be between 1 and " + Partitions.MAX + ", was " + count);
            partitions.put(queue, count);
            return this;
        }

        /**
         * The priority of {@code queue}'s messages sent without one ({@link SendOptions#priority(int)}; default
         * {@link SendOptions#DEFAULT_PRIORITY}). Applied by this client's sends; a grouped message keeps the default.
         *
         * @throws IllegalArgumentException if the queue name is invalid or the priority out of range
         */
        public Builder defaultPriority(String queue, int priority) {
            QueueKeys.validateName(queue);
            Checks.require(priority >= SendOptions.MIN_PRIORITY && priority <= SendOptions.MAX_PRIORITY,
                    "default priority of queue '" + queue + "' must be from " + SendOptions.MIN_PRIORITY + " to "
                    + SendOptions.MAX_PRIORITY + ", was " + priority);
            defaultPriorities.put(queue, priority);
            return this;
        }

        /** The partitions of every queue {@link #partitions} does not name: for tests that run whole suites partitioned. */
        Builder defaultPartitions(int count) {
            Checks.require(count >= 1 && count <= Partitions.MAX, "partitions must be between 1 and " + Partitions.MAX);
            this.defaultPartitions = count;
            return this;
        }

        /**
         * Whether the consumers of this client share the checks of idle queues with the other instances (default
         * true). A consumer learns of new work through its queue's wake-ups and sleeps until the next due time or
         * lease deadline it knows of; checks cover what no wake-up announced (a lost wake-up, a lease that expired
         * on a stopped instance). Shared, each instance registers in Redis ({@code <keyPrefix>:{~watch}:*}) and the
         * instances consuming a queue take turns: each {@code maxPollInterval} one of them reads the queue's head,
         * and its consumer claims when something is due, so an idle queue costs about one read per interval
         * whatever the number of instances. Not shared (false), every consumer claims at least every
         * {@code maxPollInterval} on its own, the cost growing with the instances. A consumer whose wake-up
         * subscription failed, or whose client cannot reach the registry, claims on its own until both work again.
         */
        public Builder sharedIdlePolling(boolean shared) {
            this.sharedIdlePolling = shared;
            return this;
        }

        /**
         * Whether this client's consumers keep the activity counts {@link DelayQueueClient#activity} reads (default
         * true): per queue and minute of the Redis clock, the messages handled, retried and dead-lettered and the
         * lateness of the handlers started. Counted in memory from the events the engine reports to its
         * {@link DelayQueueListener} (so, unlike without a listener, the engine reads the clock once per delivery) and
         * added to Redis once a minute and when the client's last consumer stops, one script call per queue with
         * something to add, into one hash per queue and minute kept two hours ({@code <keyPrefix>:{<queue>}:activity:*}).
         * A write that fails keeps the counts for the next one. Off (false), nothing is counted or written, and
         * {@code activity} reads what other instances wrote.
         */
        public Builder activity(boolean activity) {
            this.activity = activity;
            return this;
        }

        public ClientOptions build() {
            if (codec == null) {
                codec = new JacksonPayloadCodec();
            }
            return new ClientOptions(this);
        }
    }
}
