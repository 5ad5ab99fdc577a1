package io.github.delayqueue.spring.metrics;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.DeadLetterCause;
import io.github.delayqueue.core.DelayQueueListener;
import io.github.delayqueue.core.DeliveryOutcome;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.SendMode;
import io.github.delayqueue.core.flow.FlowLimit;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * The engine's {@link DelayQueueListener} bound to Micrometer: counters and timers per queue, tagged by
 * {@code queue} and, where it applies, {@code outcome}, {@code cause}, {@code mode} and {@code batch}; never
 * by message id. The meters of a queue are registered on its first event, and looked up from a map per
 * event after that (no meter lookup by name and tags on the hot path). See {@code docs/operations.md}.
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
        final Counter[] throttled = new Counter[FlowLimit.values().length];

        QueueMeters(MeterRegistry registry, String queue) {
            for (SendMode mode : SendMode.values()) {
                for (int batch = 0; batch < 2; batch++) {
                    sent[mode.ordinal()][batch] = Counter.builder(PREFIX + "messages.sent")
                            .description("Messages sent (written to Redis)")
                            .tags("queue", queue, "mode", tag(mode), "batch", Boolean.toString(batch == 1))
                            .register(registry);
                }
            }
            sendErrors = Counter.builder(PREFIX + "send.errors")
                    .description("Send calls that failed in Redis (the messages may or may not be written)")
                    .tag("queue", queue).register(registry);
            sendSucceeded = sendTimer(registry, queue, "success");
            sendFailed = sendTimer(registry, queue, "error");
            claimed = Counter.builder(PREFIX + "messages.claimed").description("Messages claimed by this application's consumers")
                    .tag("queue", queue).register(registry);
            lateness = Timer.builder(PREFIX + "lateness")
                    .description("Handler start less the message's due time, on the Redis clock")
                    .tag("queue", queue).register(registry);
            for (DeliveryOutcome outcome : DeliveryOutcome.values()) {
                handlerDuration[outcome.ordinal()] = Timer.builder(PREFIX + "handler.duration")
                        .description("Time handlers ran, by the outcome of the delivery")
                        .tags("queue", queue, "outcome", tag(outcome)).register(registry);
            }
            acknowledged = Counter.builder(PREFIX + "messages.acknowledged")
                    .description("Messages acknowledged (deleted from Redis after their handler returned)")
                    .tag("queue", queue).register(registry);
            retried = Counter.builder(PREFIX + "messages.retried")
                    .description("Failed messages put back for a retry after their back-off")
                    .tag("queue", queue).register(registry);
            for (DeadLetterCause cause : DeadLetterCause.values()) {
                dead[cause.ordinal()] = Counter.builder(PREFIX + "messages.dead")
                        .description("Messages moved to the dead letters, by cause")
                        .tags("queue", queue, "cause", tag(cause)).register(registry);
            }
            leasesExpiredRedelivered = leases(registry, queue, "redelivered");
            leasesExpiredDead = leases(registry, queue, "dead_lettered");
            staleSettles = Counter.builder(PREFIX + "settles.stale")
                    .description("Acks, retries and dead letters the fence rejected: their delivery had lost its lease")
                    .tag("queue", queue).register(registry);
            for (FlowLimit limit : FlowLimit.values()) {
                throttled[limit.ordinal()] = Counter.builder(PREFIX + "claims.throttled")
                        .description("Claims that left due messages in Redis because a flow limit held them back, by limit")
                        .tags("queue", queue, "limit", limit.name().toLowerCase(Locale.ROOT).replace('_', '-'))
                        .register(registry);
            }
        }

        private static Timer sendTimer(MeterRegistry registry, String queue, String outcome) {
            return Timer.builder(PREFIX + "send.duration").description("Time a send call took to write to Redis")
                    .tags("queue", queue, "outcome", outcome).register(registry);
        }

        private static Counter leases(MeterRegistry registry, String queue, String outcome) {
            return Counter.builder(PREFIX + "leases.expired")
                    .description("Leases that expired before their delivery was settled (consumer died or hung)")
                    .tags("queue", queue, "outcome", outcome).register(registry);
        }
    }
}
