package io.github.delayqueue.dashboard;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.GroupStats;
import io.github.delayqueue.core.QueueFlow;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.core.history.MessageStatus;
import io.github.delayqueue.core.history.RunningMessage;
import io.github.delayqueue.core.history.SettledMessage;
import io.github.delayqueue.core.sets.SetStatus;
import io.github.delayqueue.spring.DelayQueueConsumerRegistry.ConsumerStatus;
import org.jspecify.annotations.Nullable;

/** The JSON the dashboard's routes answer with. Times are ISO-8601 instants on the Redis clock. */
final class DashboardViews {

    private DashboardViews() {
    }

    record Overview(Instant serverTime, long refreshMillis, boolean actionsEnabled, boolean showPayloads, boolean metrics, List<QueueView> queues, List<ConsumerStatus> consumers) {
    }

    /**
     * One queue's counts and figures. {@code nextDueInMillis} is the
     * earliest due time minus the Redis clock (negative: overdue). {@code readyByPriority} splits {@code ready} by
     * priority ({@code SendOptions.priority}), the highest first, each priority with due messages only (empty when
     * none is due; a queue without priorities has at most {@code 4}).
     */
    record QueueView(String code, long pending, long ready, long inFlight, long dead, @Nullable Instant nextDueAt,
            @Nullable Long nextDueInMillis, boolean paused, QueueMetrics.@Nullable Figures metrics,
            @Nullable FlowView flow, List<PriorityCount> readyByPriority) {

        static QueueView of(String code, QueueStats stats, boolean paused, QueueMetrics.@Nullable Figures metrics) {
            Long dueIn = stats.nextDueAt() == null ? null
                    : Duration.between(stats.serverTime(), stats.nextDueAt()).toMillis();
            return new QueueView(code, stats.pending(), stats.ready(), stats.inFlight(), stats.dead(), stats.nextDueAt(),
                    dueIn, paused, metrics, FlowView.of(stats.flow(), stats.serverTime()),
                    PriorityCount.of(stats.readyByPriority()));
        }
    }

    /**
     * The due messages of one priority: a list rather than a JSON object, whose integer keys a browser would iterate
     * lowest first.
     */
    record PriorityCount(int priority, long ready) {

        /** Highest first, whatever the map's order. */
        static List<PriorityCount> of(Map<Integer, Long> byPriority) {
            return byPriority.entrySet().stream().map(e -> new PriorityCount(e.getKey(), e.getValue()))
                    .sorted(java.util.Comparator.comparingInt(PriorityCount::priority).reversed()).toList();
        }
    }

    /**
     * A queue's flow control as Redis holds it, over every instance ({@link QueueFlow}); {@code null} in a
     * {@link QueueView} for a queue without limits, hold, counted claims or throttled messages (a queue with group
     * limits only has one while a group holds due messages back). {@code holdEndsInMillis} is the hold's end
     * minus the Redis clock.
     */
    record FlowView(@Nullable String rateLimit, @Nullable Integer maxInFlight, @Nullable Double claimsPerSecond,
            long throttled, long throttledByGroups, @Nullable Instant holdUntil, @Nullable Long holdEndsInMillis,
            boolean atMaxInFlight) {

        static @Nullable FlowView of(QueueFlow flow, Instant now) {
            if (flow.equals(QueueFlow.NONE)) {
                return null;
            }
            Double perSecond = flow.claimsPerSecond();
            Instant hold = flow.holdUntil();
            return new FlowView(flow.rateLimit() == null ? null : flow.rateLimit().toString(),
                    flow.maxInFlight() == 0 ? null : flow.maxInFlight(),
                    perSecond == null ? null : Math.round(perSecond * 1000) / 1000.0, flow.throttled(),
                    flow.throttledByGroups(), hold,
                    hold == null ? null : Duration.between(now, hold).toMillis(), flow.atMaxInFlight());
        }
    }

    /** A page of a queue's recurring schedules, next tick first. */
    record SchedulePageView(String queue, long total, long offset, int limit, Instant serverTime,
            List<ScheduleRow> schedules) {
    }

    /** One recurring schedule; {@code nextTickInMillis} is against the Redis clock. */
    record ScheduleRow(String id, String kind, String expression, String zone, String misfire, String overlap,
            boolean paused, boolean declared, @Nullable Instant nextTickAt, @Nullable Long nextTickInMillis,
            @Nullable Instant lastTickAt) {

        static ScheduleRow of(io.github.delayqueue.core.schedule.ScheduleInfo info, Instant now) {
            var spec = info.spec();
            Instant next = info.nextTickAt();
            return new ScheduleRow(spec.id(), spec.kind(), spec.expression(), spec.zone().getId(),
                    spec.misfire().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
                    spec.overlap().name().toLowerCase(java.util.Locale.ROOT), info.paused(), info.declared(), next,
                    next == null || info.paused() ? null : Duration.between(now, next).toMillis(), info.lastTickAt());
        }
    }

    record MessagePageView(String queue, String set, long total, long offset, int limit, Instant serverTime,
            List<MessageRow> messages) {
    }

    /**
     * A live message without its payload; {@code dueInMillis} and {@code leaseInMillis} are against the Redis clock;
     * {@code priority} is 0 to 9 ({@code SendOptions.priority}; 4 for a message sent without one on a queue without a
     * default of its own).
     */
    record MessageRow(String id, String state, @Nullable Instant dueAt, @Nullable Long dueInMillis,
            @Nullable Instant leaseDeadline, @Nullable Long leaseInMillis, int attempts, @Nullable String lastError,
            @Nullable Instant enqueuedAt, @Nullable String group, int priority) {

        static MessageRow of(QueuedMessage m, Instant now) {
            return new MessageRow(m.id(), m.state().name(), m.dueAt(),
                    m.dueAt() == null ? null : Duration.between(now, m.dueAt()).toMillis(), m.leaseDeadline(),
                    m.leaseDeadline() == null ? null : Duration.between(now, m.leaseDeadline()).toMillis(), m.attempts(),
                    m.lastError(), m.enqueuedAt(), m.group(), m.priority());
        }
    }

    /** The groups furthest behind of a queue's grouped messages, the oldest due first. */
    record GroupPageView(String queue, int limit, Instant serverTime, List<GroupRow> groups) {
    }

    /** One group; {@code behindMillis} and {@code nextClaimInMillis} are against the Redis clock. */
    record GroupRow(String group, long pending, long inFlight, @Nullable Instant oldestDueAt, @Nullable Long behindMillis,
            @Nullable Instant nextClaimAt, @Nullable Long nextClaimInMillis) {

        static GroupRow of(GroupStats g, Instant now) {
            return new GroupRow(g.group(), g.pending(), g.inFlight(), g.oldestDueAt(),
                    g.oldestDueAt() == null ? null : Duration.between(g.oldestDueAt(), now).toMillis(), g.nextClaimAt(),
                    g.nextClaimAt() == null ? null : Duration.between(now, g.nextClaimAt()).toMillis());
        }
    }

    record DeadLetterPageView(String queue, long total, long offset, int limit, Instant serverTime,
            List<DeadLetterRow> deadLetters) {
    }

    /** A dead letter; payload and headers only when the dashboard shows payloads. */
    record DeadLetterRow(String key, String id, int attempts, String reason, Instant deadAt, @Nullable Instant enqueuedAt,
            @Nullable String group, @Nullable Payload content) {

        static DeadLetterRow of(DeadLetter d, int maxBytes, boolean showPayloads) {
            return new DeadLetterRow(d.key(), d.id(), d.attempts(), d.reason(), d.deadAt(), d.enqueuedAt(), d.group(),
                    showPayloads ? Payload.of(d.payload(), d.headers(), maxBytes) : null);
        }
    }

    /** A live message with its payload, on demand. */
    record MessageView(String queue, MessageRow message, Payload content) {
    }

    /**
     * Where one message stands, for the id search: {@code state} is {@code pending}, {@code in-flight},
     * {@code completed}, {@code dead-lettered}, {@code cancelled} or {@code unknown}; {@code live} while pending or in
     * flight, {@code running} (where and since when, its progress) in flight when the queue keeps its history,
     * {@code settled} (its history record) once completed, dead-lettered or cancelled, none when unknown.
     */
    record StatusView(String queue, String id, String state, Instant serverTime, @Nullable MessageRow live,
            @Nullable RunningRow running, @Nullable SettledRow settled) {

        static StatusView of(String queue, MessageStatus status, Instant now) {
            QueuedMessage live = status.live();
            RunningMessage running = status.running();
            SettledMessage settled = status.settled();
            return new StatusView(queue, status.id(), status.state().name().toLowerCase(Locale.ROOT).replace('_', '-'), now,
                    live == null ? null : MessageRow.of(live, now),
                    running == null ? null : new RunningRow(running.instance(), running.claimedAt(),
                            Duration.between(running.claimedAt(), now).toMillis(), running.progress()),
                    settled == null ? null : SettledRow.of(settled, now));
        }
    }

    /**
     * A job set ({@code DelayQueueAdmin.setStatus}): {@code state} is {@code running} (members pending),
     * {@code succeeded} (every member acknowledged), {@code completed-with-failures} (every member settled, some dead
     * or cancelled) or {@code unsealed} (its first send did not finish: no callback until it is sent again).
     * {@code deadMembers} are the first dead ones, the first to die first.
     */
    record SetView(String id, String state, long total, long pending, long acknowledged, long dead, long cancelled,
            boolean sealed, boolean complete, Instant createdAt, Instant expiresAt, @Nullable String parent,
            boolean successSent, boolean completeSent, List<SetMemberRow> deadMembers) {

        static SetView of(SetStatus s, java.util.function.Predicate<String> declared) {
            String state = !s.sealed() ? "unsealed" : !s.complete() ? "running"
                    : s.acknowledged() == s.total() ? "succeeded" : "completed-with-failures";
            return new SetView(s.id(), state, s.total(), s.pending(), s.acknowledged(), s.dead(), s.cancelled(),
                    s.sealed(), s.complete(), s.createdAt(), s.expiresAt(), s.parent(), s.successSent(), s.completeSent(),
                    s.deadMembers().stream().map(m -> new SetMemberRow(m.queue(), m.id(),
                            m.queue() != null && declared.test(m.queue()))).toList());
        }
    }

    /**
     * A dead member of a set: a message on {@code queue} (whose dead letters hold it, unless it expired), or a child
     * set ({@code queue} null); {@code declared} whether this application declares the queue (the page links to it).
     */
    record SetMemberRow(@Nullable String queue, String id, boolean declared) {
    }

    /** Where a message in flight runs: its instance, its claim and how long ago, its progress (JSON) or null. */
    record RunningRow(String instance, Instant claimedAt, long claimedAgoMillis, @Nullable String progress) {
    }

    /** A page of a queue's history, the latest settled first. */
    record HistoryPageView(String queue, long total, long offset, int limit, Instant serverTime, List<SettledRow> records) {
    }

    /**
     * The record of a settled message: {@code outcome} is {@code completed}, {@code dead-lettered} or
     * {@code cancelled}; {@code settledAgoMillis} is the Redis clock minus {@code settledAt}; {@code progress} and
     * {@code result} the JSON the handler reported, or null.
     */
    record SettledRow(String id, String outcome, Instant settledAt, long settledAgoMillis, Instant dueAt,
            Instant claimedAt, int attempts, String instance, long tookMillis, @Nullable String group,
            @Nullable String reason, @Nullable String progress, @Nullable String result) {

        static SettledRow of(SettledMessage m, Instant now) {
            return new SettledRow(m.id(), m.outcome().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                    m.settledAt(), Duration.between(m.settledAt(), now).toMillis(), m.dueAt(), m.claimedAt(),
                    m.attempts(), m.instance(), m.took().toMillis(), m.group(), m.reason(), m.progress(), m.result());
        }
    }

    /** A payload as stored (JSON, usually), cut to the size limit, and the headers. */
    record Payload(String payload, boolean cut, int bytes, Map<String, String> headers) {

        static Payload of(String payload, Map<String, String> headers, int maxBytes) {
            byte[] utf8 = payload.getBytes(StandardCharsets.UTF_8);
            if (utf8.length <= maxBytes) {
                return new Payload(payload, false, utf8.length, headers);
            }
            StringBuilder kept = new StringBuilder();
            int used = 0;
            for (int i = 0; i < payload.length();) {
                int cp = payload.codePointAt(i);
                int size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
                if (used + size > maxBytes) {
                    break;
                }
                kept.appendCodePoint(cp);
                used += size;
                i += Character.charCount(cp);
            }
            return new Payload(kept.toString(), true, utf8.length, headers);
        }
    }

    /** What an action did, for the page to report. */
    record ActionResult(String message, long count) {
    }

    /** A refusal: the HTTP status, its reason phrase, and what the page shows. */
    record ErrorView(int status, String error, String message) {
    }

    /** The body of a POST: the message id, or dead-letter keys, and for a reschedule the new due time. */
    record ActionRequest(@Nullable String id, @Nullable List<String> keys, @Nullable String dueAt) {
    }

    /** A queue's last hour, per minute of the Redis clock, the oldest first (the activity counts in Redis). */
    record ActivityView(String queue, List<ActivityMinuteView> minutes) {

        static ActivityView of(String queue, List<io.github.delayqueue.core.activity.ActivityMinute> minutes) {
            return new ActivityView(queue, minutes.stream().map(m -> new ActivityMinuteView(m.minute(), m.handled(),
                    m.retried(), m.deadLettered(), m.failed(), m.started(), m.averageLateness().toMillis(),
                    m.maxLateness().toMillis())).toList());
        }
    }

    /** One minute of a queue's activity, summed over the instances; lateness in milliseconds. */
    record ActivityMinuteView(Instant minute, long handled, long retried, long deadLettered, long failed, long started,
            long averageLatenessMs, long maxLatenessMs) {
    }
}
