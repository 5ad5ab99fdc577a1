package io.github.delayqueue.spring.metrics;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.DeadLetterCause;
import io.github.delayqueue.core.DelayQueueListener;
import io.github.delayqueue.core.DeliveryOutcome;
import io.github.delayqueue.core.FlowLimit;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.SendMode;
import io.github.delayqueue.core.history.HistoryTrim;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * The engine's {@link DelayQueueListener} bound to Micrometer: counters and timers per queue, tagged by
 * {@code queue} and, where it applies, {@code outcome}, {@code cause}, {@code mode}, {@code batch} and {@code reason}; never
 * by message id. The meters of a queue are registered on its first event, and looked up from a map per
 * event after that (no meter lookup by name and tags on the hot path). See {@code docs/reference/observability.md}.
 *
 * <p>Internal to the starter: public only so that the auto-configuration can create it.
 */
public final class DelayQueueMetrics implements DelayQueueListener {

    static final String PREFIX = "delayqueue.";

    private final MeterRegistry registry;
    private final Map<String, QueueMeters> queues = new ConcurrentHashMap<>();

    public DelayQueueMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    private QueueMeters meters(String queue) {
        QueueMeters meters = queues.get(queue);
        return meters != null ? meters : queues.computeIfAbsent(queue, q -> new QueueMeters(registry, q));
    }

    /** A tag value from an enum constant: lower case, as Micrometer tags are ({@code DEAD_LETTERED} → {@code dead_lettered}). */
    static String tag(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public void sent(String queue, SendMode mode, boolean batch, int messages, Duration duration) {
        QueueMeters meters = meters(queue);
        meters.sent[mode.ordinal()][batch ? 1 : 0].increment(messages);
        meters.sendSucceeded.record(duration);
    }

    @Override
    public void sendFailed(String queue, SendMode mode, boolean batch, int messages, Duration duration,
            Throwable error) {
        QueueMeters meters = meters(queue);
        meters.sendErrors.increment();
        meters.sendFailed.record(duration);
    }

    @Override
    public void claimed(String queue, int messages) {
        meters(queue).claimed.increment(messages);
    }

    @Override
    public void claimThrottled(String queue, FlowLimit limit) {
        meters(queue).throttled[limit.ordinal()].increment();
    }

    @Override
    public void handlerStarted(MessageContext context, Duration lateness) {
        meters(context.queue()).lateness.record(lateness);
    }

    @Override
    public void handlerFinished(MessageContext context, DeliveryOutcome outcome, Duration duration,
            @Nullable Throwable error) {
        meters(context.queue()).handlerDuration[outcome.ordinal()].record(duration);
    }

    @Override
    public void acknowledged(String queue, int messages) {
        meters(queue).acknowledged.increment(messages);
    }

    @Override
    public void retried(String queue, int messages) {
        meters(queue).retried.increment(messages);
    }

    @Override
    public void deadLettered(String queue, DeadLetterCause cause, int messages) {
        QueueMeters meters = meters(queue);
        meters.dead[cause.ordinal()].increment(messages);
        if (cause == DeadLetterCause.LEASE_EXPIRED) {
            meters.leasesExpiredDead.increment(messages);
        }
        if (cause == DeadLetterCause.EXPIRED) {
            meters.expiredDead.increment(messages);
        }
    }

    @Override
    public void expiredDropped(String queue, int messages) {
        meters(queue).expiredDropped.increment(messages);
    }

    @Override
    public void redelivered(String queue, int messages) {
        meters(queue).leasesExpiredRedelivered.increment(messages);
    }

    @Override
    public void staleSettles(String queue, int messages) {
        meters(queue).staleSettles.increment(messages);
    }

    @Override
    public void historyTrimmed(String queue, HistoryTrim reason, int records) {
        meters(queue).historyTrimmed[reason.ordinal()].increment(records);
    }

    @Override
    public String toString() {
        return "DelayQueueMetrics[" + registry.getClass().getSimpleName() + "]";
    }

    /** Every meter of one queue, registered together on its first event. */
    private static final class QueueMeters {
        final Counter[][] sent = new Counter[SendMode.values().length][2];
        final Counter sendErrors;
        final Timer sendSucceeded;
        final Timer sendFailed;
        final Counter claimed;
        final Timer lateness;
        final Timer[] handlerDuration = new Timer[DeliveryOutcome.values().length];
        final Counter acknowledged;
        final Counter retried;
        final Counter[] dead = new Counter[DeadLetterCause.values().length];
        final Counter leasesExpiredRedelivered;
        final Counter leasesExpiredDead;
        final Counter staleSettles;
        final Counter expiredDead;
        final Counter expiredDropped;
        final Counter[] throttled = new Counter[FlowLimit.values().length];
        final Counter[] historyTrimmed = new Counter[HistoryTrim.values().length];

        QueueMeters(MeterRegistry registry, String queue) {
            for (SendMode mode : SendMode.values()) {
                for (int batch = 0; batch < 2; batch++) {
                    sent[mode.ordinal()][batch] = counter(registry, "messages.sent", "Messages sent (written to Redis)",
                            "queue", queue, "mode", tag(mode), "batch", Boolean.toString(batch == 1));
                }
            }
            sendErrors = counter(registry, "send.errors",
                    "Send calls that failed in Redis (the messages may or may not be written)", "queue", queue);
            sendSucceeded = timer(registry, "send.duration", "Time a send call took to write to Redis",
                    "queue", queue, "outcome", "success");
            sendFailed = timer(registry, "send.duration", "Time a send call took to write to Redis",
                    "queue", queue, "outcome", "error");
            claimed = counter(registry, "messages.claimed", "Messages claimed by this application's consumers",
                    "queue", queue);
            lateness = timer(registry, "lateness", "Handler start less the message's due time, on the Redis clock",
                    "queue", queue);
            for (DeliveryOutcome outcome : DeliveryOutcome.values()) {
                handlerDuration[outcome.ordinal()] = timer(registry, "handler.duration",
                        "Time handlers ran, by the outcome of the delivery", "queue", queue, "outcome", tag(outcome));
            }
            acknowledged = counter(registry, "messages.acknowledged",
                    "Messages acknowledged (deleted from Redis after their handler returned)", "queue", queue);
            retried = counter(registry, "messages.retried", "Failed messages put back for a retry after their back-off",
                    "queue", queue);
            for (DeadLetterCause cause : DeadLetterCause.values()) {
                dead[cause.ordinal()] = counter(registry, "messages.dead", "Messages moved to the dead letters, by cause",
                        "queue", queue, "cause", tag(cause));
            }
            String leases = "Leases that expired before their delivery was settled (consumer died or hung)";
            leasesExpiredRedelivered = counter(registry, "leases.expired", leases, "queue", queue, "outcome", "redelivered");
            leasesExpiredDead = counter(registry, "leases.expired", leases, "queue", queue, "outcome", "dead_lettered");
            staleSettles = counter(registry, "settles.stale",
                    "Acks, retries and dead letters the fence rejected: their delivery had lost its lease", "queue", queue);
            String expired = "Messages not handed to a handler by their expiry, by what the claim did with them";
            expiredDead = counter(registry, "messages.expired", expired, "queue", queue, "outcome", "dead_lettered");
            expiredDropped = counter(registry, "messages.expired", expired, "queue", queue, "outcome", "dropped");
            for (FlowLimit limit : FlowLimit.values()) {
                throttled[limit.ordinal()] = counter(registry, "claims.throttled",
                        "Claims that left due messages in Redis because a flow limit held them back, by limit", "queue",
                        queue, "limit", limit.name().toLowerCase(Locale.ROOT).replace('_', '-'));
            }
            for (HistoryTrim reason : HistoryTrim.values()) {
                historyTrimmed[reason.ordinal()] = counter(registry, "history.trimmed",
                        "Records of the queue's history deleted by this application's settles (count) and claims (age)",
                        "queue", queue, "reason", tag(reason));
            }
        }

        private static Counter counter(MeterRegistry registry, String name, String description, String... tags) {
            return Counter.builder(PREFIX + name).description(description).tags(tags).register(registry);
        }

        private static Timer timer(MeterRegistry registry, String name, String description, String... tags) {
            return Timer.builder(PREFIX + name).description(description).tags(tags).register(registry);
        }
    }
}
