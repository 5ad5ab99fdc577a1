package io.github.delayqueue.core;

import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.internal.Checks;

/**
 * How one consumer claims and runs messages. Immutable; build with {@link #builder()}.
 *
 * <ul>
 *   <li>{@code concurrency}: handlers running at once (default 16). A poll claims at most as many
 *       messages as there are free handler slots, so nothing waits in memory while its lease runs.</li>
 *   <li>{@code batchSize}: most messages claimed in one round trip (default 100).</li>
 *   <li>{@code visibilityTimeout}: lease of a claimed message (default 30 s). A consumer that dies
 *       loses its messages to another consumer after this; running handlers have their lease
 *       extended, so it bounds crash recovery, not handler duration.</li>
 *   <li>{@code handlerTimeout}: a handler running longer is interrupted and its lease no longer
 *       extended; the message is retried, or dead-lettered on its last attempt (default 5 min).</li>
 *   <li>{@code maxPollInterval}: longest an idle consumer sleeps without asking Redis, a safety net
 *       for lost wake-up signals (default 1 s).</li>
 *   <li>{@code shutdownTimeout}: how long {@link DelayQueueConsumer#stop()} waits for running
 *       handlers (default 25 s: with the few seconds acknowledging takes, within Spring Boot's default
 *       30 s per shutdown phase).</li>
 *   <li>{@code retry}: back-off and attempts ({@link RetryPolicy#DEFAULT}).</li>
 *   <li>{@code deadLetterRetention}: dead letters older than this are deleted (default 14 days).</li>
 *   <li>{@code deadLetterMaxCount}: the oldest dead letters beyond this many are deleted (default 100,000).
 *       Both are enforced by the claim script the consumer runs anyway, at most 100 deletions per claim.</li>
 *   <li>{@code noRetryFor}: exception types (matched with their subclasses, anywhere in the cause chain) that
 *       send a message to the dead letters on the first failure instead of retrying it (default none).</li>
 *   <li>{@code errorHandler}: decides what a failure does instead of the rule above (default none).</li>
 *   <li>{@code interceptors}: run around every delivery, the first outermost (default none).</li>
 *   <li>{@code virtualThreads}: whether handlers run on virtual threads, one per message, where the JVM has them
 *       (Java 21+; default true). On Java 21 to 23 a handler that blocks inside {@code synchronized} (as many JDBC
 *       drivers do) pins its carrier thread, and a few such handlers stall every virtual thread of the JVM; turn
 *       it off there, as Spring Boot does unless {@code spring.threads.virtual.enabled} (the starter follows that
 *       property). Off, and on Java 17, handlers run on a pool of platform threads.</li>
 *   <li>{@code rateLimit}: at most this many messages of the queue claimed per period over every instance
 *       together, spread evenly on the Redis clock ({@link RateLimit}; default none). Messages over the limit stay
 *       in Redis, due and unclaimed, no attempt spent; the consumer sleeps until the next permit.</li>
 *   <li>{@code maxInFlight}: at most this many messages of the queue in flight over every instance together,
 *       whatever each one's {@code concurrency} (default 0: no cap). A consumer at the cap sleeps until a
 *       settle frees a place.</li>
 *   <li>{@code groupRateLimit}, {@code groupMaxInFlight}: the same limits per {@link SendOptions#group group} of
 *       messages, for every group on its own (default none): one group's burst does not hold back the others, and a
 *       group at its limit is passed over without reading its messages. Ungrouped messages are not affected; the
 *       queue-wide limits apply on top. See docs/guides/flow-control.md.</li>
 *   <li>{@code historyMaxAge}, {@code historyMaxCount}: keep a record of each message this consumer acknowledges or
 *       dead-letters (when, after how many attempts, on which instance, how long its handler took, the outcome), for
 *       {@link DelayQueueClient#status} to read after the fact: records older than the age, and the oldest beyond
 *       the count (per partition, its share), are deleted (default: none kept). See {@link Builder#keepHistory}.</li>
 *   <li>{@code priorityAging}, {@code strictPriority}: how long a message's {@link SendOptions#priority priority}
 *       counts for, per level (default 1 minute): among due messages a claim takes the lowest
 *       {@code due time - priority x priorityAging} first, so a message waits behind a higher priority's only for those
 *       that became due less than {@code (their priority - its priority) x priorityAging} after it. Strict priority
 *       (default off) always takes the highest priority first, and a steady stream of high priorities can then hold
 *       low ones back for good. Give every consumer of a queue the same. See docs/guides/priorities.md.</li>
 *   <li>{@code onExpiry}: what the claim does with a message past its expiry ({@link SendOptions#expiresAt}):
 *       {@link ExpiryAction#DEAD_LETTER} (the default) or {@link ExpiryAction#DROP}.</li>
 * </ul>
 * Give every consumer of a queue the same {@code rateLimit} and {@code maxInFlight}: each claim applies the
 * limits of the consumer that runs it. A partitioned queue splits both evenly over its partitions (see
 * {@link io.github.delayqueue.core.protocol.ClaimLimits}).
 * Every duration here and in {@link RetryPolicy} is at most {@link DelayQueueClient#MAX_DELAY}.
 */
public final class ConsumerOptions {

    /** The default {@link Builder#priorityAging priority aging}. */
    public static final Duration DEFAULT_PRIORITY_AGING = Duration.ofMinutes(1);

    /** The longest {@link Builder#priorityAging priority aging}: a day a level. */
    public static final Duration MAX_PRIORITY_AGING = Duration.ofDays(1);

    /** The defaults listed above. */
    public static final ConsumerOptions DEFAULTS = builder().build();

    private final int concurrency;
    private final int batchSize;
    private final Duration visibilityTimeout;
    private final Duration handlerTimeout;
    private final Duration maxPollInterval;
    private final Duration shutdownTimeout;
    private final RetryPolicy retry;
    private final Duration deadLetterRetention;
    private final int deadLetterMaxCount;
    private final Set<Class<? extends Throwable>> noRetryFor;
    private final @Nullable DeliveryErrorHandler errorHandler;
    private final List<DeliveryInterceptor> interceptors;
    private final boolean virtualThreads;
    private final @Nullable RateLimit rateLimit;
    private final int maxInFlight;
    private final @Nullable RateLimit groupRateLimit;
    private final int groupMaxInFlight;
    private final ExpiryAction onExpiry;
    private final Duration historyMaxAge;
    private final int historyMaxCount;
    private final Duration priorityAging;
    private final boolean strictPriority;

    private ConsumerOptions(Builder b) {
        Checks.require(b.concurrency >= 1 && b.concurrency <= 10_000,
                "concurrency must be between 1 and 10000, was " + b.concurrency);
        Checks.require(b.batchSize >= 1 && b.batchSize <= 1_000, "batchSize must be between 1 and 1000, was " + b.batchSize);
        Checks.positive(b.visibilityTimeout, "visibilityTimeout");
        Checks.require(b.visibilityTimeout.toMillis() >= 100, "visibilityTimeout must be at least 100ms, was " + b.visibilityTimeout);
        Checks.positive(b.handlerTimeout, "handlerTimeout");
        Checks.positive(b.maxPollInterval, "maxPollInterval");
        Checks.require(b.shutdownTimeout != null && !b.shutdownTimeout.isNegative(),
                "shutdownTimeout must not be null or negative");
        Checks.atMostMaxDelay(b.shutdownTimeout, "shutdownTimeout");
        Checks.positive(b.deadLetterRetention, "deadLetterRetention");
        Checks.require(b.deadLetterMaxCount >= 1, "deadLetterMaxCount must be at least 1, was " + b.deadLetterMaxCount);
        this.concurrency = b.concurrency;
        this.batchSize = b.batchSize;
        this.visibilityTimeout = b.visibilityTimeout;
        this.handlerTimeout = b.handlerTimeout;
        this.maxPollInterval = b.maxPollInterval;
        this.shutdownTimeout = b.shutdownTimeout;
        this.retry = Checks.notNull(b.retry, "retry");
        this.deadLetterRetention = b.deadLetterRetention;
        this.deadLetterMaxCount = b.deadLetterMaxCount;
        Checks.require(b.noRetryFor != null && b.noRetryFor.stream().allMatch(Objects::nonNull),
                "noRetryFor must not be null or hold null");
        this.noRetryFor = Collections.unmodifiableSet(new LinkedHashSet<>(b.noRetryFor));
        this.errorHandler = b.errorHandler;
        Checks.require(b.interceptors != null && b.interceptors.stream().allMatch(Objects::nonNull),
                "interceptors must not be null or hold null");
        this.interceptors = List.copyOf(b.interceptors);
        this.virtualThreads = b.virtualThreads;
        Checks.require(b.maxInFlight >= 0, "maxInFlight must not be negative (0: no cap), was " + b.maxInFlight);
        this.rateLimit = b.rateLimit;
        this.maxInFlight = b.maxInFlight;
        Checks.require(b.groupMaxInFlight >= 0, "groupMaxInFlight must not be negative (0: no cap), was " + b.groupMaxInFlight);
        this.groupRateLimit = b.groupRateLimit;
        this.groupMaxInFlight = b.groupMaxInFlight;
        Checks.require(b.onExpiry != null, "onExpiry must not be null");
        this.onExpiry = b.onExpiry;
        Checks.require(b.historyMaxAge != null && !b.historyMaxAge.isNegative(),
                "history max age must not be null or negative (0: no age bound)");
        Checks.atMostMaxDelay(b.historyMaxAge, "history max age");
        Checks.require(b.historyMaxCount >= 0 && b.historyMaxCount <= MAX_HISTORY_COUNT,
                "history max count must be between 0 (no count bound) and " + MAX_HISTORY_COUNT + ", was " + b.historyMaxCount);
        this.historyMaxAge = b.historyMaxAge;
        this.historyMaxCount = b.historyMaxCount;
        Checks.require(b.priorityAging != null && b.priorityAging.toMillis() >= 1
                && b.priorityAging.compareTo(MAX_PRIORITY_AGING) <= 0,
                "priorityAging must be from 1 ms to " + MAX_PRIORITY_AGING + ", was " + b.priorityAging);
        this.priorityAging = b.priorityAging;
        this.strictPriority = b.strictPriority;
    }

    /** The most records {@link Builder#keepHistory} keeps per queue. */
    public static final int MAX_HISTORY_COUNT = 10_000_000;

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this instance's values. */
    public Builder toBuilder() {
        return builder().concurrency(concurrency).batchSize(batchSize).visibilityTimeout(visibilityTimeout)
                .handlerTimeout(handlerTimeout).maxPollInterval(maxPollInterval).shutdownTimeout(shutdownTimeout)
                .retry(retry).deadLetterRetention(deadLetterRetention).deadLetterMaxCount(deadLetterMaxCount)
                .noRetryFor(noRetryFor).errorHandler(errorHandler).interceptors(interceptors).virtualThreads(virtualThreads)
                .rateLimit(rateLimit).maxInFlight(maxInFlight).groupRateLimit(groupRateLimit).groupMaxInFlight(groupMaxInFlight)
                .onExpiry(onExpiry).keepHistory(historyMaxAge, historyMaxCount).priorityAging(priorityAging)
                .strictPriority(strictPriority);
    }

    /** How long a message's priority counts for, per level; see {@link Builder#priorityAging}. */
    public Duration priorityAging() {
        return priorityAging;
    }

    /** Whether higher priorities always go first, without aging; see {@link Builder#strictPriority}. */
    public boolean strictPriority() {
        return strictPriority;
    }

    /** What the claim does with a message past its expiry. */
    public ExpiryAction onExpiry() {
        return onExpiry;
    }

    public int concurrency() {
        return concurrency;
    }

    public int batchSize() {
        return batchSize;
    }

    public Duration visibilityTimeout() {
        return visibilityTimeout;
    }

    public Duration handlerTimeout() {
        return handlerTimeout;
    }

    public Duration maxPollInterval() {
        return maxPollInterval;
    }

    public Duration shutdownTimeout() {
        return shutdownTimeout;
    }

    public RetryPolicy retry() {
        return retry;
    }

    public Duration deadLetterRetention() {
        return deadLetterRetention;
    }

    public int deadLetterMaxCount() {
        return deadLetterMaxCount;
    }

    public Set<Class<? extends Throwable>> noRetryFor() {
        return noRetryFor;
    }

    /** The error handler, or null for the default rule. */
    public @Nullable DeliveryErrorHandler errorHandler() {
        return errorHandler;
    }

    public List<DeliveryInterceptor> interceptors() {
        return interceptors;
    }

    /** Whether handlers run on virtual threads where the JVM has them (Java 21+). */
    public boolean virtualThreads() {
        return virtualThreads;
    }

    /** The queue's rate limit over every instance, or null for none. */
    public @Nullable RateLimit rateLimit() {
        return rateLimit;
    }

    /** The cap on the queue's messages in flight over every instance; 0 for none. */
    public int maxInFlight() {
        return maxInFlight;
    }

    /** The rate limit of every {@link SendOptions#group group} on its own, over every instance; null for none. */
    public @Nullable RateLimit groupRateLimit() {
        return groupRateLimit;
    }

    /** The cap on every {@link SendOptions#group group}'s messages in flight over every instance; 0 for none. */
    public int groupMaxInFlight() {
        return groupMaxInFlight;
    }

    /** How long records of settled messages are kept (zero: no age bound); see {@link Builder#keepHistory}. */
    public Duration historyMaxAge() {
        return historyMaxAge;
    }

    /** How many records of settled messages are kept (0: no count bound); see {@link Builder#keepHistory}. */
    public int historyMaxCount() {
        return historyMaxCount;
    }

    /** Whether this consumer keeps records of the messages it settles. */
    public boolean keepsHistory() {
        return !historyMaxAge.isZero() || historyMaxCount > 0;
    }

    @Override
    public String toString() {
        return "ConsumerOptions[concurrency=" + concurrency + ", batchSize=" + batchSize + ", visibilityTimeout="
                + visibilityTimeout + ", handlerTimeout=" + handlerTimeout + ", maxPollInterval=" + maxPollInterval
                + ", shutdownTimeout=" + shutdownTimeout + ", retry=" + retry + ", deadLetterRetention=" + deadLetterRetention
                + ", deadLetterMaxCount=" + deadLetterMaxCount + ", noRetryFor=" + noRetryFor.stream().map(Class::getName)
                .toList() + ", errorHandler=" + errorHandler + ", interceptors=" + interceptors.size() + ", virtualThreads="
                + virtualThreads + (rateLimit == null ? "" : ", rateLimit=" + rateLimit)
                + (maxInFlight == 0 ? "" : ", maxInFlight=" + maxInFlight)
                + (groupRateLimit == null ? "" : ", groupRateLimit=" + groupRateLimit)
                + (groupMaxInFlight == 0 ? "" : ", groupMaxInFlight=" + groupMaxInFlight)
                + (onExpiry == ExpiryAction.DEAD_LETTER ? "" : ", onExpiry=" + onExpiry)
                + (priorityAging.equals(DEFAULT_PRIORITY_AGING) ? "" : ", priorityAging=" + priorityAging)
                + (strictPriority ? ", strictPriority=true" : "")
                + (keepsHistory() ? ", historyMaxAge=" + historyMaxAge + ", historyMaxCount=" + historyMaxCount : "") + "]";
    }

    /** Builder for {@link ConsumerOptions}; {@link #build()} checks the values. */
    public static final class Builder {
        private int concurrency = 16;
        private int batchSize = 100;
        private Duration visibilityTimeout = Duration.ofSeconds(30);
        private Duration handlerTimeout = Duration.ofMinutes(5);
        private Duration maxPollInterval = Duration.ofSeconds(1);
        private Duration shutdownTimeout = Duration.ofSeconds(25);
        private RetryPolicy retry = RetryPolicy.DEFAULT;
        private Duration deadLetterRetention = Duration.ofDays(14);
        private int deadLetterMaxCount = 100_000;
        private Duration historyMaxAge = Duration.ZERO;
        private int historyMaxCount;
        private Collection<Class<? extends Throwable>> noRetryFor = Set.of();
        private @Nullable DeliveryErrorHandler errorHandler;
        private List<DeliveryInterceptor> interceptors = List.of();
        private boolean virtualThreads = true;
        private @Nullable RateLimit rateLimit;
        private int maxInFlight;
        private @Nullable RateLimit groupRateLimit;
        private int groupMaxInFlight;
        private ExpiryAction onExpiry = ExpiryAction.DEAD_LETTER;
        private Duration priorityAging = DEFAULT_PRIORITY_AGING;
        private boolean strictPriority;

        private Builder() {
        }

        /**
         * How long a message's {@link SendOptions#priority priority} counts for, per level (default
         * {@link #DEFAULT_PRIORITY_AGING}): among due messages a claim takes the lowest
         * {@code due time - priority x aging} first. A message of priority 2 due at 12:00:00 thus goes before one of
         * priority 5 that became due after 12:03:00 (with the default), and after those that became due before. Higher
         * priorities go first among messages due together, and a steady stream of them holds a lower one back for at
         * most the difference of the priorities times this, beyond the time the queue needs to drain what was due
         * before. Ignored with {@link #strictPriority}.
         *
         * @param aging from 1 ms to {@link #MAX_PRIORITY_AGING}
         */
        public Builder priorityAging(Duration aging) {
            this.priorityAging = aging;
            return this;
        }

        /**
         * Whether a claim always takes the highest priority due first (default false): no aging, so a steady stream
         * of high priorities holds lower ones back for as long as it lasts. For work where a low priority may wait
         * indefinitely (a backfill behind live traffic).
         */
        public Builder strictPriority(boolean strict) {
            this.strictPriority = strict;
            return this;
        }

        /** What the claim does with a message past its expiry: dead-letter it (the default) or drop it. */
        public Builder onExpiry(ExpiryAction onExpiry) {
            this.onExpiry = onExpiry;
            return this;
        }

        /** The queue's rate limit over every instance together; null for none (the default). */
        public Builder rateLimit(@Nullable RateLimit rateLimit) {
            this.rateLimit = rateLimit;
            return this;
        }

        /** The cap on the queue's messages in flight over every instance together; 0 for none (the default). */
        public Builder maxInFlight(int maxInFlight) {
            this.maxInFlight = maxInFlight;
            return this;
        }

        /**
         * The rate limit of every {@link SendOptions#group group} on its own, over every instance together; null for
         * none (the default). A partitioned queue splits it over its partitions as it does {@link #rateLimit}.
         */
        public Builder groupRateLimit(@Nullable RateLimit groupRateLimit) {
            this.groupRateLimit = groupRateLimit;
            return this;
        }

        /**
         * The cap on every {@link SendOptions#group group}'s messages in flight over every instance together; 0 for
         * none (the default). A partitioned queue splits it into whole shares as it does {@link #maxInFlight}, so it
         * must be at least the partition count.
         */
        public Builder groupMaxInFlight(int groupMaxInFlight) {
            this.groupMaxInFlight = groupMaxInFlight;
            return this;
        }

        /** Exception types that go to the dead letters on the first failure (subclasses and causes count). */
        public Builder noRetryFor(Collection<Class<? extends Throwable>> noRetryFor) {
            this.noRetryFor = noRetryFor;
            return this;
        }

        /** Decides what a failure does; null for the default rule. */
        public Builder errorHandler(@Nullable DeliveryErrorHandler errorHandler) {
            this.errorHandler = errorHandler;
            return this;
        }

        /** Run around every delivery, the first outermost. */
        public Builder interceptors(List<DeliveryInterceptor> interceptors) {
            this.interceptors = interceptors;
            return this;
        }

        public Builder concurrency(int concurrency) {
            this.concurrency = concurrency;
            return this;
        }

        public Builder batchSize(int batchSize) {
            this.batchSize = batchSize;
            return this;
        }

        public Builder visibilityTimeout(Duration visibilityTimeout) {
            this.visibilityTimeout = visibilityTimeout;
            return this;
        }

        public Builder handlerTimeout(Duration handlerTimeout) {
            this.handlerTimeout = handlerTimeout;
            return this;
        }

        public Builder maxPollInterval(Duration maxPollInterval) {
            this.maxPollInterval = maxPollInterval;
            return this;
        }

        public Builder shutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
            return this;
        }

        public Builder retry(RetryPolicy retry) {
            this.retry = retry;
            return this;
        }

        public Builder deadLetterRetention(Duration deadLetterRetention) {
            this.deadLetterRetention = deadLetterRetention;
            return this;
        }

        public Builder deadLetterMaxCount(int deadLetterMaxCount) {
            this.deadLetterMaxCount = deadLetterMaxCount;
            return this;
        }

        /**
         * Keeps a record of each message this consumer acknowledges or dead-letters, written by the script that settles
         * it: its due time, when it was claimed and settled, attempts, the instance, how long the delivery took, the
         * outcome (and a dead letter's reason), readable with {@link DelayQueueClient#status} until it is trimmed.
         * Records older than {@code maxAge} are deleted (about once a second while the queue is busy, on its periodic
         * turn while it is idle), and the oldest beyond {@code maxCount} as each settle adds records; a partitioned
         * queue keeps {@code maxCount} split evenly over its partitions. Zero for either means no bound of that kind;
         * both zero (the default) keep nothing. Give every consumer of a queue the same values.
         *
         * @throws IllegalArgumentException from {@link #build()} when {@code maxAge} is negative or beyond
         *         {@link DelayQueueClient#MAX_DELAY}, or {@code maxCount} outside 0 to {@link #MAX_HISTORY_COUNT}
         */
        public Builder keepHistory(Duration maxAge, int maxCount) {
            this.historyMaxAge = maxAge;
            this.historyMaxCount = maxCount;
            return this;
        }

        /** Whether handlers run on virtual threads where the JVM has them (Java 21+; default true). */
        public Builder virtualThreads(boolean virtualThreads) {
            this.virtualThreads = virtualThreads;
            return this;
        }

        public ConsumerOptions build() {
            return new ConsumerOptions(this);
        }
    }
}
