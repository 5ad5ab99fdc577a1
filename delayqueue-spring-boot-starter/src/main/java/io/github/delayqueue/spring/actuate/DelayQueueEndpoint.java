package io.github.delayqueue.spring.actuate;

import io.github.delayqueue.core.schedule.ScheduleInfo;
import io.github.delayqueue.core.schedule.SchedulePage;
import io.github.delayqueue.core.schedule.ScheduleSpec;
import io.github.delayqueue.spring.schedule.DelayQueueSchedules;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.history.HistoryPage;
import io.github.delayqueue.core.history.MessageStatus;
import io.github.delayqueue.core.QueueFlow;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.history.RunningMessage;
import io.github.delayqueue.core.history.SettledMessage;
import io.github.delayqueue.core.sets.SetStatus;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueConsumerRegistry;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code delayqueue} actuator endpoint: the declared queues with their statistics, pause and flow control (read
 * from Redis for every instance: limits, claim rate, throttled backlog, hold), this application's consumers, the first dead letters of a queue; and the operations an operator needs during an
 * incident (pause and resume a queue, requeue or delete dead letters, cancel a message or run it now). Over
 * HTTP, with the endpoint exposed:
 *
 * <pre>
 * GET    /actuator/delayqueue                                  every queue and this application's consumers
 * GET    /actuator/delayqueue/{queue}?limit=20                 one queue and its oldest dead letters
 * POST   /actuator/delayqueue/{queue}/pause                    pause (every consumer, every application)
 * POST   /actuator/delayqueue/{queue}/resume                   resume
 * POST   /actuator/delayqueue/{queue}/requeue-dead-letters     requeue every dead letter
 * POST   /actuator/delayqueue/{queue}/dead-letters/{key}/requeue
 * DELETE /actuator/delayqueue/{queue}/dead-letters/{key}       delete one dead letter
 * POST   /actuator/delayqueue/{queue}/messages/{id}/run-now    a pending message becomes due now
 * DELETE /actuator/delayqueue/{queue}/messages/{id}           cancel a pending or in-flight message
 * GET    /actuator/delayqueue/{queue}/messages/{id}             where one message stands (pending, in flight, settled)
 * GET    /actuator/delayqueue/{queue}/history?offset=0&amp;limit=20    the queue's history, the latest settled first
 * GET    /actuator/delayqueue/{queue}/schedules?offset=0&amp;limit=20  the queue's recurring schedules, next tick first
 * POST   /actuator/delayqueue/{queue}/schedules/{id}/pause     pause a schedule (every instance)
 * POST   /actuator/delayqueue/{queue}/schedules/{id}/resume    resume it (by its misfire policy)
 * POST   /actuator/delayqueue/{queue}/schedules/{id}/trigger   run one tick now, outside the series
 * DELETE /actuator/delayqueue/{queue}/schedules/{id}          remove a schedule and its pending tick
 * GET    /actuator/delayqueue/sets/{id}?limit=100               where a job set stands, with its first dead members
 * </pre>
 *
 * Read-only unless {@code management.endpoint.delayqueue.access=unrestricted}: the writes act on every
 * application on the same Redis. Each POST takes a JSON body ({@code Content-Type: application/json}; {@code {}}
 * will do, or {@code {"note": "why"}}, logged with the action): the actuator then maps the operation for JSON
 * only, and a page on another origin cannot send JSON (nor a DELETE) without the browser's CORS preflight, so an
 * HTML form or a {@code no-cors} fetch in an operator's browser gets a 415 and changes nothing.
 *
 * <p>An unknown queue, or a job set that does not exist (never sent, or past its retention), reads as 404; bad
 * input (an unknown queue or action in a write, a malformed id or key, a limit out of range, a set id no set can
 * have) is a 400 and changes nothing. Payloads and headers of dead letters are shown only with
 * {@code delayqueue.endpoint.show-payloads=true}: they may hold personal data.
 *
 * <p>Internal to the starter: public only so that the auto-configuration can create it.
 */
@Endpoint(id = "delayqueue", defaultAccess = Access.READ_ONLY)
public class DelayQueueEndpoint {

    private static final JsonMapper VALUES = JsonMapper.builder().build();

    /** Dead letters shown for one queue unless the request asks for another number. */
    static final int DEFAULT_DEAD_LETTERS = 20;

    /** Most dead letters one read shows. */
    static final int MAX_DEAD_LETTERS = 100;

    /** The first selector under which job sets are read ({@code sets/{id}}). */
    static final String SETS = "sets";

    /** The sections of a queue, which a queue declared as {@value #SETS} keeps. */
    private static final Set<String> QUEUE_SECTIONS = Set.of("history", "activity", "schedules");

    /** Longest note logged with a write. */
    static final int MAX_NOTE = 200;

    private static final Logger log = LoggerFactory.getLogger(DelayQueueEndpoint.class);

    private final DelayQueueAdmin admin;
    private final DelayQueueConsumerRegistry registry;
    private final ConsumerConcurrency concurrency;
    private final ConsumerLimits limits;
    private final boolean showPayloads;
    private final @Nullable DelayQueueSchedules schedules;

    /** The concurrency this application's consumer of a queue was given, or null if it has none. */
    @FunctionalInterface
    public interface ConsumerConcurrency {

        @Nullable Integer of(String queue);
    }

    /** The options this application's consumer of a queue was given (for its flow limits), or null if it has none. */
    @FunctionalInterface
    public interface ConsumerLimits {

        @Nullable ConsumerOptions of(String queue);
    }

    public DelayQueueEndpoint(DelayQueueAdmin admin, DelayQueueConsumerRegistry registry,
            ConsumerConcurrency concurrency, boolean showPayloads) {
        this(admin, registry, concurrency, showPayloads, null);
    }

    /** With {@code schedules}, the endpoint also lists and operates the queues' recurring schedules. */
    public DelayQueueEndpoint(DelayQueueAdmin admin, DelayQueueConsumerRegistry registry,
            ConsumerConcurrency concurrency, boolean showPayloads, @Nullable DelayQueueSchedules schedules) {
        this(admin, registry, concurrency, queue -> null, showPayloads, schedules);
    }

    /** With {@code limits}, each consumer shows its queue's flow limits. */
    public DelayQueueEndpoint(DelayQueueAdmin admin, DelayQueueConsumerRegistry registry,
            ConsumerConcurrency concurrency, ConsumerLimits limits, boolean showPayloads) {
        this(admin, registry, concurrency, limits, showPayloads, null);
    }

    public DelayQueueEndpoint(DelayQueueAdmin admin, DelayQueueConsumerRegistry registry,
            ConsumerConcurrency concurrency, ConsumerLimits limits, boolean showPayloads,
            @Nullable DelayQueueSchedules schedules) {
        this.admin = admin;
        this.registry = registry;
        this.concurrency = concurrency;
        this.limits = limits;
        this.showPayloads = showPayloads;
        this.schedules = schedules;
    }

    /**
     * A page of a queue's recurring schedules ({@code schedules}), next tick first: spec, zone, next and last tick,
     * paused or not; or of its history ({@code history}), the latest settled message first; or the queue's last hour
     * minute by minute ({@code activity}, see {@link #activitySection}). Under {@code sets}, a job set by its id
     * ({@code sets/{id}}, see {@link #set}).
     *
     * @param queue   the queue's code, or {@code sets}
     * @param section {@code schedules}, {@code history} or {@code activity}; or a job set's id
     * @param offset  the first schedule's or record's offset (default 0)
     * @param limit   how many, 1 to {@value #MAX_DEAD_LETTERS} (default {@value #DEFAULT_DEAD_LETTERS}; a set's dead
     *                members: default {@value #MAX_DEAD_LETTERS})
     * @return the page ({@link SchedulesDescriptor}, {@link HistoryDescriptor} or {@link ActivityDescriptor}) or the
     *         set ({@link SetDescriptor}), or {@code null} (404) for a code no {@code DelayQueueCode} declares or a set
     *         that does not exist; an invalid set id is a 400
     */
    @ReadOperation
    public @Nullable OperationResponseBody queueSection(@Selector String queue, @Selector String section,
            @Nullable Long offset, @Nullable Integer limit) {
        if (queue.equals(SETS) && !(QUEUE_SECTIONS.contains(section) && this.admin.find(SETS).isPresent())) {
            return set(section, limit);
        }
        if (section.equals("history")) {
            return history(queue, offset, limit);
        }
        if (section.equals("activity")) {
            return activitySection(queue);
        }
        if (!section.equals("schedules") || this.schedules == null) {
            return null;
        }
        int count = pageLimit(limit);
        if (this.admin.find(queue).isEmpty()) {
            return null;
        }
        DelayQueueSchedules schedules = this.schedules;
        SchedulePage page = badInputAs400(() -> schedules.list(queue, offset == null ? 0 : offset, count));
        return new SchedulesDescriptor(queue, page.total(), page.offset(), page.serverTime(),
                page.schedules().stream().map(DelayQueueEndpoint::schedule).toList());
    }

    /**
     * Where a job set stands ({@code sets/{id}}): its counts, whether it is sealed and complete, its callbacks sent,
     * and its first dead members (at most {@code limit}, 1 to {@value #MAX_DEAD_LETTERS}, default
     * {@value #MAX_DEAD_LETTERS}). A queue declared as {@code sets} keeps its own sections: for it, {@code history},
     * {@code activity} and {@code schedules} are the queue's, not sets of those ids.
     *
     * @return the set, or {@code null} (404) for a set that does not exist (never sent, or past its retention)
     */
    private @Nullable SetDescriptor set(String id, @Nullable Integer limit) {
        int count = limit == null ? MAX_DEAD_LETTERS : pageLimit(limit);
        Optional<SetStatus> found = badInputAs400(() -> this.admin.setStatus(id));
        if (found.isEmpty()) {
            return null;
        }
        SetStatus status = found.get();
        List<SetMemberDescriptor> dead = status.deadMembers().stream().limit(count)
                .map(m -> new SetMemberDescriptor(m.queue(), m.id())).toList();
        return new SetDescriptor(status.id(), status.total(), status.pending(), status.acknowledged(), status.dead(),
                status.cancelled(), status.sealed(), status.complete(), status.createdAt(), status.expiresAt(),
                status.parent(), status.successSent(), status.completeSent(), dead);
    }

    /** A page of a queue's history ({@code history}), newest first: bad bounds a 400, an undeclared code a 404. */
    private @Nullable HistoryDescriptor history(String queue, @Nullable Long offset, @Nullable Integer limit) {
        int count = pageLimit(limit);
        Optional<DelayQueueCode> code = this.admin.find(queue);
        if (code.isEmpty()) {
            return null;
        }
        HistoryPage page = badInputAs400(() -> this.admin.history(code.get(), offset == null ? 0 : offset, count));
        return new HistoryDescriptor(queue, page.total(), page.offset(), page.serverTime(), page.records().stream()
                .map(r -> new SettledDescriptor(r.id(), r.outcome().name().toLowerCase(java.util.Locale.ROOT)
                        .replace('_', '-'), r.settledAt(), r.dueAt(), r.claimedAt(), r.attempts(), r.instance(),
                        r.took().toMillis(), r.group(), r.reason(), jsonValue(r.progress()), jsonValue(r.result())))
                .toList());
    }

    /**
     * The queue's last hour ({@code activity}): per minute of the Redis clock, the oldest first, the messages handled,
     * retried and dead-lettered and the handlers' lateness (average and largest, ms), summed over every instance that
     * counts them ({@code delayqueue.activity.enabled}); zeros where nothing happened.
     *
     * @param queue the queue's code
     * @return the minutes, or {@code null} (404) for a code no {@code DelayQueueCode} declares
     */
    private @Nullable ActivityDescriptor activitySection(String queue) {
        Optional<DelayQueueCode> code = this.admin.find(queue);
        if (code.isEmpty()) {
            return null;
        }
        return new ActivityDescriptor(queue, this.admin.activity(code.get()).stream()
                .map(m -> new ActivityMinuteDescriptor(m.minute(), m.handled(), m.retried(), m.deadLettered(),
                        m.failed(), m.started(), m.averageLateness().toMillis(), m.maxLateness().toMillis()))
                .toList());
    }

    private static ScheduleDescriptor schedule(ScheduleInfo info) {
        ScheduleSpec spec = info.spec();
        return new ScheduleDescriptor(spec.id(), spec.kind(), spec.expression(), spec.zone().getId(),
                spec.misfire().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
                spec.overlap().name().toLowerCase(java.util.Locale.ROOT), info.paused(), info.declared(),
                info.nextTickAt(), info.lastTickAt());
    }

    private ChangeDescriptor scheduleAction(DelayQueueCode code, String queue, String id, String action) {
        DelayQueueSchedules schedules = this.schedules;
        if (schedules == null) {
            throw invalid("schedules are not available in this application");
        }
        long changed = badInputAs400(() -> switch (action) {
            case "pause" -> schedules.pause(queue, id) ? 1L : 0L;
            case "resume" -> schedules.resume(queue, id) ? 1L : 0L;
            case "trigger" -> {
                schedules.trigger(queue, id);
                yield 1L;
            }
            default -> throw new IllegalArgumentException("unknown action '" + action + "' on schedule '" + id
                    + "'; use pause, resume or trigger");
        });
        return new ChangeDescriptor(queue, "schedule-" + action, id, changed, this.admin.isPaused(code));
    }

    /**
     * Where one message stands ({@code messages/{id}}): pending or in flight (its due time or lease, attempts, last
     * error; its payload only with {@code show-payloads}), acknowledged or dead-lettered while the queue's history keeps
     * its record, or unknown.
     *
     * @param queue the queue's code
     * @param kind  {@code messages}
     * @param id    the message id
     * @return its status, or {@code null} (404) for another kind or a code no {@code DelayQueueCode} declares
     */
    @ReadOperation
    public @Nullable MessageStatusDescriptor messageStatus(@Selector String queue, @Selector String kind,
            @Selector String id) {
        if (!kind.equals("messages")) {
            return null;
        }
        Optional<DelayQueueCode> code = this.admin.find(queue);
        if (code.isEmpty()) {
            return null;
        }
        MessageStatus status = badInputAs400(() -> this.admin.status(code.get(), id));
        QueuedMessage live = status.live();
        RunningMessage running = status.running();
        SettledMessage settled = status.settled();
        Instant claimedAt = running != null ? running.claimedAt() : settled != null ? settled.claimedAt() : null;
        String instance = running != null ? running.instance() : settled != null ? settled.instance() : null;
        String progress = running != null ? running.progress() : settled != null ? settled.progress() : null;
        return new MessageStatusDescriptor(status.id(), status.state().name().toLowerCase(java.util.Locale.ROOT)
                .replace('_', '-'), live == null ? (settled == null ? null : settled.dueAt()) : live.dueAt(),
                live == null ? null : live.leaseDeadline(),
                live != null ? live.attempts() : settled != null ? settled.attempts() : 0,
                live == null ? null : live.lastError(), live != null ? live.group() : settled != null ? settled.group() : null,
                live == null ? null : live.priority(), claimedAt, settled == null ? null : settled.settledAt(), instance,
                settled == null ? null : settled.took().toMillis(), settled == null ? null : settled.reason(),
                jsonValue(progress), jsonValue(settled == null ? null : settled.result()),
                live != null && this.showPayloads ? live.payload() : null);
    }

    /** A progress or result as the value its JSON holds, so that the response nests it rather than quoting it. */
    private static @Nullable Object jsonValue(@Nullable String json) {
        if (json == null) {
            return null;
        }
        try {
            return VALUES.readValue(json, Object.class);
        } catch (RuntimeException e) {
            return json;
        }
    }

    /** Every declared queue, in code order, and this application's consumers. */
    @ReadOperation
    public QueuesDescriptor queues() {
        Map<String, QueueDescriptor> queues = new LinkedHashMap<>();
        for (DelayQueueCode code : this.admin.codes()) {
            queues.put(code.code(), queue(this.admin.stats(code), this.admin.isPaused(code)));
        }
        Map<String, ConsumerDescriptor> consumers = new LinkedHashMap<>();
        for (DelayQueueConsumer consumer : this.registry.consumers()) {
            QueueDescriptor queue = queues.get(consumer.queue());
            consumers.put(consumer.queue(), consumer(consumer, queue != null && queue.paused()));
        }
        return new QueuesDescriptor(queues, consumers);
    }

    /**
     * One queue: its statistics, this application's consumer of it, and its oldest dead letters.
     *
     * @param queue the queue's code
     * @param limit how many dead letters to show, 1 to {@value #MAX_DEAD_LETTERS} (default {@value #DEFAULT_DEAD_LETTERS})
     * @return the queue, or {@code null} (404) for a code no {@code DelayQueueCode} declares
     */
    @ReadOperation
    public @Nullable QueueDetailsDescriptor queue(@Selector String queue, @Nullable Integer limit) {
        int count = pageLimit(limit);
        Optional<DelayQueueCode> found = this.admin.find(queue);
        if (found.isEmpty()) {
            return null;
        }
        DelayQueueCode code = found.get();
        boolean paused = this.admin.isPaused(code);
        List<DeadLetterDescriptor> deadLetters = this.admin.deadLetters(code, count).stream()
                .map(this::deadLetter).toList();
        ConsumerDescriptor consumer = this.registry.consumer(code).map(c -> consumer(c, paused)).orElse(null);
        return new QueueDetailsDescriptor(queue(this.admin.stats(code), paused), consumer, deadLetters, groups(code, count));
    }

    /** The groups furthest behind of a queue's grouped messages (SendOptions.group), as many as dead letters shown. */
    private List<GroupDescriptor> groups(DelayQueueCode code, int limit) {
        return this.admin.groups(code, limit).stream().map(g -> new GroupDescriptor(g.group(), g.pending(), g.inFlight(),
                g.oldestDueAt(), g.nextClaimAt())).toList();
    }

    /**
     * {@code pause}, {@code resume} or {@code requeue-dead-letters} on one queue.
     *
     * @param queue  the queue's code
     * @param action what to do
     * @param note   why, logged with the action (optional); being a body field, it makes the operation take JSON
     * @return what changed
     */
    @WriteOperation
    public ChangeDescriptor queueAction(@Selector String queue, @Selector String action, @Nullable String note) {
        DelayQueueCode code = require(queue);
        return logged(note, switch (action) {
            case "pause" -> {
                boolean before = this.admin.isPaused(code);
                this.admin.pause(code);
                yield new ChangeDescriptor(queue, action, null, before ? 0 : 1, true);
            }
            case "resume" -> {
                boolean before = this.admin.isPaused(code);
                this.admin.resume(code);
                yield new ChangeDescriptor(queue, action, null, before ? 1 : 0, false);
            }
            case "requeue-dead-letters" -> {
                long requeued = this.admin.requeueAll(code);
                yield new ChangeDescriptor(queue, action, null, requeued, this.admin.isPaused(code));
            }
            default -> throw invalid("unknown action '" + action + "' on queue '" + queue
                    + "'; use pause, resume or requeue-dead-letters");
        });
    }

    /**
     * {@code messages/{id}/run-now} or {@code dead-letters/{key}/requeue}.
     *
     * @param queue  the queue's code
     * @param kind   {@code messages} or {@code dead-letters}
     * @param target the message id or the dead letter's key
     * @param action {@code run-now} for a message, {@code requeue} for a dead letter
     * @param note   why, logged with the action (optional); being a body field, it makes the operation take JSON
     * @return what changed: 0 when no pending message has the id, or no dead letter the key
     */
    @WriteOperation
    public ChangeDescriptor targetAction(@Selector String queue, @Selector String kind, @Selector String target,
            @Selector String action, @Nullable String note) {
        DelayQueueCode code = require(queue);
        if (kind.equals("messages") && action.equals("run-now")) {
            boolean due = badInputAs400(() -> this.admin.runNow(code, target));
            return logged(note, new ChangeDescriptor(queue, action, target, due ? 1 : 0, this.admin.isPaused(code)));
        }
        if (kind.equals("schedules")) {
            return logged(note, scheduleAction(code, queue, target, action));
        }
        if (kind.equals("dead-letters") && action.equals("requeue")) {
            long requeued = badInputAs400(() -> this.admin.requeue(code, List.of(target)));
            return logged(note, new ChangeDescriptor(queue, action, target, requeued, this.admin.isPaused(code)));
        }
        throw invalid("unknown operation '" + kind + "/{id}/" + action + "' on queue '" + queue
                + "'; use messages/{id}/run-now, dead-letters/{key}/requeue or schedules/{id}/pause|resume|trigger");
    }

    /**
     * Cancels a message ({@code messages/{id}}) or deletes a dead letter ({@code dead-letters/{key}}).
     *
     * @param queue  the queue's code
     * @param kind   {@code messages} or {@code dead-letters}
     * @param target the message id or the dead letter's key
     * @return what changed: 0 when no live message has the id, or no dead letter the key
     */
    @DeleteOperation
    public ChangeDescriptor delete(@Selector String queue, @Selector String kind, @Selector String target) {
        DelayQueueCode code = require(queue);
        return logged(null, switch (kind) {
            case "messages" -> {
                boolean cancelled = badInputAs400(() -> this.admin.cancel(code, target));
                yield new ChangeDescriptor(queue, "cancel", target, cancelled ? 1 : 0, this.admin.isPaused(code));
            }
            case "dead-letters" -> {
                long deleted = badInputAs400(() -> this.admin.purge(code, List.of(target)));
                yield new ChangeDescriptor(queue, "delete", target, deleted, this.admin.isPaused(code));
            }
            case "schedules" -> {
                DelayQueueSchedules schedules = this.schedules;
                if (schedules == null) {
                    throw invalid("schedules are not available in this application");
                }
                boolean removed = badInputAs400(() -> schedules.remove(queue, target));
                yield new ChangeDescriptor(queue, "schedule-remove", target, removed ? 1 : 0, this.admin.isPaused(code));
            }
            default -> throw invalid("unknown kind '" + kind + "' on queue '" + queue
                    + "'; delete messages/{id}, dead-letters/{key} or schedules/{id}");
        });
    }

    /** Logs a write at INFO, as the dashboard logs its actions, with the operator's note if there is one. */
    private static ChangeDescriptor logged(@Nullable String note, ChangeDescriptor change) {
        if (log.isInfoEnabled()) {
            String shown = note == null || note.isBlank() ? "" : " (note: " + printable(note) + ")";
            log.info("Actuator: {} on queue '{}'{}: {} changed, paused={}{}", change.action(), change.queue(),
                    change.target() == null ? "" : " for '" + printable(change.target()) + "'", change.changed(),
                    change.paused(), shown);
        }
        return change;
    }

    /** At most {@value #MAX_NOTE} characters, control characters replaced: one log line per write. */
    private static String printable(String text) {
        String cut = text.length() <= MAX_NOTE ? text : text.substring(0, MAX_NOTE) + "…";
        return cut.codePoints().map(c -> Character.isISOControl(c) ? '?' : c)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
    }

    private DelayQueueCode require(String queue) {
        return this.admin.find(queue).orElseThrow(() -> invalid("unknown queue '" + queue + "'; declared queues: "
                + this.admin.codes().stream().map(DelayQueueCode::code).toList()));
    }

    /** A read's {@code limit}: {@value #DEFAULT_DEAD_LETTERS} when absent, a 400 outside 1 to {@value #MAX_DEAD_LETTERS}. */
    private static int pageLimit(@Nullable Integer limit) {
        int count = limit == null ? DEFAULT_DEAD_LETTERS : limit;
        if (count < 1 || count > MAX_DEAD_LETTERS) {
            throw invalid("limit must be between 1 and " + MAX_DEAD_LETTERS + ", was " + limit);
        }
        return count;
    }

    /** The engine rejects a malformed id or key with IllegalArgumentException before writing: a 400. */
    private static <T> T badInputAs400(Supplier<T> call) {
        try {
            return call.get();
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage(), e);
        }
    }

    private static InvalidEndpointRequestException invalid(String message) {
        return new InvalidEndpointRequestException(message, message);
    }

    private static QueueDescriptor queue(QueueStats stats, boolean paused) {
        Instant next = stats.nextDueAt();
        Duration lateness = stats.ready() > 0 && next != null && next.isBefore(stats.serverTime())
                ? Duration.between(next, stats.serverTime()) : Duration.ZERO;
        return new QueueDescriptor(paused, stats.pending(), stats.ready(), readyByPriority(stats), stats.inFlight(),
                stats.dead(), next, lateness.toMillis(), stats.serverTime(), flow(stats.flow()));
    }

    /**
     * The ready messages per priority, highest first, or {@code null} when none is ready, so that the JSON of a queue
     * with nothing due is as it was.
     */
    static @Nullable Map<Integer, Long> readyByPriority(QueueStats stats) {
        return stats.readyByPriority().isEmpty() ? null : new LinkedHashMap<>(stats.readyByPriority());
    }

    /**
     * The queue's flow control as Redis holds it (every instance together), or {@code null} for a queue with no
     * limits recorded, no hold, no claim rate counted and nothing throttled, so that the JSON of a queue without flow
     * control is as it was. A queue with group limits only has one while a group holds due messages back.
     */
    static @Nullable FlowDescriptor flow(QueueFlow flow) {
        if (flow.equals(QueueFlow.NONE)) {
            return null;
        }
        RateLimit rate = flow.rateLimit();
        Double perSecond = flow.claimsPerSecond();
        return new FlowDescriptor(rate == null ? null : rate.toString(), flow.maxInFlight() == 0 ? null : flow.maxInFlight(),
                perSecond == null ? null : Math.round(perSecond * 1000) / 1000.0, flow.throttled(),
                flow.throttledByGroups(), flow.holdUntil(), flow.atMaxInFlight());
    }

    private ConsumerDescriptor consumer(DelayQueueConsumer consumer, boolean paused) {
        Throwable failure = consumer.failure();
        String state = failure != null ? "FAILED" : consumer.isRunning() ? (paused ? "PAUSED" : "RUNNING") : "STOPPED";
        ConsumerOptions options = this.limits.of(consumer.queue());
        RateLimit rate = options == null ? null : options.rateLimit();
        Integer maxInFlight = options == null || options.maxInFlight() == 0 ? null : options.maxInFlight();
        return new ConsumerDescriptor(state, this.concurrency.of(consumer.queue()), consumer.activeHandlers(), paused,
                failure == null ? null : failure.toString(), rate == null ? null : rate.toString(), maxInFlight);
    }

    private DeadLetterDescriptor deadLetter(DeadLetter d) {
        return new DeadLetterDescriptor(d.key(), d.id(), d.attempts(), d.reason(), d.deadAt(), d.enqueuedAt(),
                this.showPayloads ? d.payload() : null, this.showPayloads ? d.headers() : null, d.group());
    }

    /**
     * Every declared queue by code, and this application's consumers by queue code.
     *
     * @param queues    the declared queues, in code order
     * @param consumers the consumers this application runs (none in a producer-only application)
     */
    public record QueuesDescriptor(Map<String, QueueDescriptor> queues, Map<String, ConsumerDescriptor> consumers)
            implements OperationResponseBody {
    }

    /**
     * One queue, as Redis says now.
     *
     * @param paused          whether the queue is paused (for every consumer of every application)
     * @param pending         messages waiting for their due time or for a consumer (includes {@code ready})
     * @param ready           pending messages already due
     * @param readyByPriority {@code ready} per priority ({@code SendOptions.priority}), highest first, each priority with
     *                        ready messages only (grouped messages count at 4), or {@code null} when none is ready
     * @param inFlight        messages being handled
     * @param dead            dead letters
     * @param nextDueAt       due time of the earliest pending message, or {@code null} when none
     * @param latenessMillis  how long the oldest due message has waited past its due time (0 when none is due)
     * @param serverTime      the Redis clock when read
     * @param flow            the queue's flow control over every instance, or {@code null} when it has none
     */
    public record QueueDescriptor(boolean paused, long pending, long ready, @Nullable Map<Integer, Long> readyByPriority,
            long inFlight, long dead, @Nullable Instant nextDueAt, long latenessMillis, Instant serverTime,
            @Nullable FlowDescriptor flow) {

        /** Without the ready count per priority (the constructor of releases before priorities). */
        public QueueDescriptor(boolean paused, long pending, long ready, long inFlight, long dead,
                @Nullable Instant nextDueAt, long latenessMillis, Instant serverTime, @Nullable FlowDescriptor flow) {
            this(paused, pending, ready, null, inFlight, dead, nextDueAt, latenessMillis, serverTime, flow);
        }
    }

    /**
     * A queue's flow control, read from Redis: what the claims of every instance enforce, not this application's
     * options (those are on its {@link ConsumerDescriptor}).
     *
     * @param rateLimit       the rate limit the claims apply, such as {@code 200/1s} (with {@code burst N} when not the
     *                        default), or {@code null} for none
     * @param maxInFlight     the cap on messages in flight, or {@code null} for none
     * @param claimsPerSecond messages claimed per second over every instance, over about the last 10 s, or {@code null}
     *                        when not counted (a queue without limits)
     * @param throttled       due messages the limits or a hold keep in Redis now (the queue's and its groups'): the
     *                        throttled backlog, part of {@code ready}
     * @param throttledByGroups the part of {@code throttled} held back by their groups' limits or holds
     *                        ({@link QueueFlow#throttledByGroups()})
     * @param holdUntil       the end of a hold a handler's {@code SlowDownException} set, or {@code null} when none is on
     * @param atMaxInFlight   whether the messages in flight have reached {@code maxInFlight}
     */
    public record FlowDescriptor(@Nullable String rateLimit, @Nullable Integer maxInFlight,
            @Nullable Double claimsPerSecond, long throttled, long throttledByGroups, @Nullable Instant holdUntil,
            boolean atMaxInFlight) {

        /** A flow with nothing throttled by groups: the constructor of the earlier release. */
        public FlowDescriptor(@Nullable String rateLimit, @Nullable Integer maxInFlight,
                @Nullable Double claimsPerSecond, long throttled, @Nullable Instant holdUntil, boolean atMaxInFlight) {
            this(rateLimit, maxInFlight, claimsPerSecond, throttled, 0, holdUntil, atMaxInFlight);
        }
    }

    /**
     * This application's consumer of a queue.
     *
     * @param state          {@code RUNNING}, {@code PAUSED} (running, its queue paused), {@code FAILED} (its claiming
     *                       loop ended without a stop; see {@code failure}) or {@code STOPPED}
     * @param concurrency    handlers it may run at once
     * @param activeHandlers handlers running now
     * @param paused         whether its queue is paused
     * @param failure        what ended its claiming loop, or {@code null}
     * @param rateLimit      the queue's rate limit over every instance this consumer claims within, such as
     *                       {@code 200/1s} (with {@code burst N} when not 1), or {@code null} for none
     * @param maxInFlight    the queue's cap on messages in flight over every instance, or {@code null} for none
     */
    public record ConsumerDescriptor(String state, @Nullable Integer concurrency, int activeHandlers, boolean paused,
            @Nullable String failure, @Nullable String rateLimit, @Nullable Integer maxInFlight) {
    }

    /**
     * One queue with its consumer in this application and its oldest dead letters.
     *
     * @param queue       the queue's statistics and pause
     * @param consumer    this application's consumer, or {@code null} when it runs none for this queue
     * @param deadLetters the oldest dead letters, first page
     * @param groups      the groups of its grouped messages furthest behind (empty when it has none)
     */
    public record QueueDetailsDescriptor(QueueDescriptor queue, @Nullable ConsumerDescriptor consumer,
            List<DeadLetterDescriptor> deadLetters, List<GroupDescriptor> groups) implements OperationResponseBody {

        /** Without groups, as before they were listed (the constructor of earlier releases). */
        public QueueDetailsDescriptor(QueueDescriptor queue, @Nullable ConsumerDescriptor consumer,
                List<DeadLetterDescriptor> deadLetters) {
            this(queue, consumer, deadLetters, List.of());
        }
    }

    /**
     * One group of a queue's grouped messages ({@code SendOptions.group}, docs/guides/flow-control.md).
     *
     * @param group       its name
     * @param pending     its messages waiting
     * @param inFlight    its messages claimed and not settled (its count against {@code group-max-in-flight})
     * @param oldestDueAt the due time of its oldest pending message, or {@code null}
     * @param nextClaimAt when its messages may next be claimed (later than the oldest due time while its rate limit or a
     *                    slow-down holds it), or {@code null} while it is at its in-flight cap
     */
    public record GroupDescriptor(String group, long pending, long inFlight, @Nullable Instant oldestDueAt,
            @Nullable Instant nextClaimAt) {
    }

    /**
     * A dead letter.
     *
     * @param key        its key, for requeue and delete
     * @param id         the message id
     * @param attempts   deliveries made before it died
     * @param reason     why it died
     * @param deadAt     when it died
     * @param enqueuedAt when it was first sent, or {@code null} if unreadable
     * @param payload    the payload JSON, or {@code null} unless {@code delayqueue.endpoint.show-payloads=true}
     * @param headers    the headers, or {@code null} unless {@code delayqueue.endpoint.show-payloads=true}
     * @param group      its group ({@code SendOptions.group}), or {@code null} when it had none
     */
    public record DeadLetterDescriptor(String key, String id, int attempts, String reason, Instant deadAt,
            @Nullable Instant enqueuedAt, @Nullable String payload, @Nullable Map<String, String> headers,
            @Nullable String group) {

        /** A dead letter without a group (the constructor of releases before groups). */
        public DeadLetterDescriptor(String key, String id, int attempts, String reason, Instant deadAt,
                @Nullable Instant enqueuedAt, @Nullable String payload, @Nullable Map<String, String> headers) {
            this(key, id, attempts, reason, deadAt, enqueuedAt, payload, headers, null);
        }
    }

    /**
     * Where one message stands ({@link DelayQueueAdmin#status}). Times on the Redis clock.
     *
     * @param id            the message id
     * @param state         {@code pending}, {@code in-flight}, {@code completed}, {@code dead-lettered},
     *                      {@code cancelled} or {@code unknown}
     * @param dueAt         when it is (or, settled, was) due
     * @param leaseDeadline in flight: when its lease runs out
     * @param attempts      deliveries so far (settled: in all)
     * @param lastError     pending after a failure: its last error
     * @param group         its group, if any
     * @param priority      live (pending or in flight): its priority ({@code SendOptions.priority}, 0 to 9; the
     *                      queue's default for a message sent without one, 4 for a grouped one); else {@code null}
     * @param claimedAt     in flight (when the queue keeps its history) or settled: when its delivery was claimed
     * @param settledAt     settled: when it was acknowledged, dead-lettered or cancelled
     * @param instance      in flight (when the queue keeps its history) or settled: the JVM that runs or ran its
     *                      delivery ({@code <pid>@<host>})
     * @param tookMillis    settled: from its last delivery's dispatch to its outcome
     * @param reason        dead-lettered: why
     * @param progress      the progress its handler last reported, as the JSON value it was encoded as
     * @param result        completed: the result its handler set or returned, as the JSON value
     * @param payload       live: its payload, only with {@code show-payloads}
     */
    public record MessageStatusDescriptor(String id, String state, @Nullable Instant dueAt, @Nullable Instant leaseDeadline,
            int attempts, @Nullable String lastError, @Nullable String group, @Nullable Integer priority,
            @Nullable Instant claimedAt, @Nullable Instant settledAt, @Nullable String instance, @Nullable Long tookMillis,
            @Nullable String reason, @Nullable Object progress, @Nullable Object result, @Nullable String payload)
            implements OperationResponseBody {

        /** Without the priority (the constructor of releases before priorities). */
        public MessageStatusDescriptor(String id, String state, @Nullable Instant dueAt, @Nullable Instant leaseDeadline,
                int attempts, @Nullable String lastError, @Nullable String group, @Nullable Instant claimedAt,
                @Nullable Instant settledAt, @Nullable String instance, @Nullable Long tookMillis, @Nullable String reason,
                @Nullable Object progress, @Nullable Object result, @Nullable String payload) {
            this(id, state, dueAt, leaseDeadline, attempts, lastError, group, null, claimedAt, settledAt, instance,
                    tookMillis, reason, progress, result, payload);
        }
    }

    /**
     * A page of a queue's history ({@link DelayQueueAdmin#history}): the records of the messages its consumers
     * acknowledged or dead-lettered, while the queue keeps its history. Times on the Redis clock.
     *
     * @param queue      the queue's code
     * @param total      how many records the history holds (0 for a queue that keeps none)
     * @param offset     the offset of the first one shown (0 is the latest settled)
     * @param serverTime the Redis clock when read
     * @param records    the page, the latest settled first
     */
    public record HistoryDescriptor(String queue, long total, long offset, Instant serverTime,
            List<SettledDescriptor> records) implements OperationResponseBody {
    }

    /**
     * The record of one settled message.
     *
     * @param id         the message id
     * @param outcome    {@code completed}, {@code dead-lettered} or {@code cancelled}
     * @param settledAt  when it was acknowledged, dead-lettered or cancelled
     * @param dueAt      when the attempt that settled it was due
     * @param claimedAt  when that attempt was claimed
     * @param attempts   deliveries in all
     * @param instance   the JVM that ran its last delivery ({@code <pid>@<host>})
     * @param tookMillis from its last delivery's dispatch to its outcome
     * @param group      its group, or {@code null}
     * @param reason     dead-lettered: why; else {@code null}
     * @param progress   the progress its handler last reported, as the JSON value, or {@code null}
     * @param result     completed: the result its handler set or returned, as the JSON value, or {@code null}
     */
    public record SettledDescriptor(String id, String outcome, Instant settledAt, Instant dueAt, Instant claimedAt,
            int attempts, String instance, long tookMillis, @Nullable String group, @Nullable String reason,
            @Nullable Object progress, @Nullable Object result) {
    }

    /**
     * Where a job set stands ({@link DelayQueueAdmin#setStatus}). Times on the Redis clock.
     *
     * @param id           the set's id
     * @param total        its members so far
     * @param pending      members not yet settled (waiting, in flight, or being retried)
     * @param acknowledged members acknowledged
     * @param dead         members dead (dead-lettered, or dropped at their expiry) and not acknowledged since
     * @param cancelled    members cancelled
     * @param sealed       whether every member of its first send was added (an unsealed set sends no callback)
     * @param complete     whether it is sealed and no member is pending
     * @param createdAt    when it was created
     * @param expiresAt    when it is deleted unless it changes before then
     * @param parent       the set it is a member of, or {@code null}
     * @param successSent  whether its success callback was sent
     * @param completeSent whether its complete callback was sent
     * @param deadMembers  its first dead members, the first to die first
     */
    public record SetDescriptor(String id, long total, long pending, long acknowledged, long dead, long cancelled,
            boolean sealed, boolean complete, Instant createdAt, Instant expiresAt, @Nullable String parent,
            boolean successSent, boolean completeSent, List<SetMemberDescriptor> deadMembers)
            implements OperationResponseBody {
    }

    /**
     * A member of a job set.
     *
     * @param queue its queue's code, or {@code null} for a child set
     * @param id    the message id (its dead letter's id on that queue), or the child set's id
     */
    public record SetMemberDescriptor(@Nullable String queue, String id) {
    }

    /**
     * A page of a queue's recurring schedules.
     *
     * @param queue      the queue's code
     * @param total      how many schedules the queue has
     * @param offset     the offset of the first one shown
     * @param serverTime the Redis clock when read
     * @param schedules  the page, next tick first
     */
    public record SchedulesDescriptor(String queue, long total, long offset, Instant serverTime,
            List<ScheduleDescriptor> schedules) implements OperationResponseBody {
    }

    /**
     * A queue's last hour, minute by minute ({@code {queue}/activity}).
     *
     * @param queue   the queue's code
     * @param minutes the last 60 minutes of the Redis clock, the oldest first, the current (still counting) one last
     */
    public record ActivityDescriptor(String queue, List<ActivityMinuteDescriptor> minutes) implements OperationResponseBody {
    }

    /**
     * One minute of a queue's activity, summed over the instances.
     *
     * @param minute           the minute's start (Redis clock)
     * @param handled          messages acknowledged
     * @param retried          failed deliveries put back for a retry
     * @param deadLettered     messages moved to the dead letters
     * @param failed           retried plus dead-lettered
     * @param started          handlers started
     * @param averageLatenessMs the average lateness of the handlers started (their start less their due time), ms
     * @param maxLatenessMs    the largest of those, ms
     */
    public record ActivityMinuteDescriptor(Instant minute, long handled, long retried, long deadLettered, long failed,
            long started, long averageLatenessMs, long maxLatenessMs) {
    }

    /**
     * One recurring schedule.
     *
     * @param id         its id within the queue (the yaml name of a declared one)
     * @param kind       {@code cron} or {@code every}
     * @param expression the cron expression, or the period (ISO-8601)
     * @param zone       the zone the expression is read in
     * @param misfire    {@code fire-once}, {@code skip} or {@code fire-all}
     * @param overlap    {@code allow} or {@code skip}
     * @param paused     whether it is paused
     * @param declared   whether it was last written by a declaration (yaml) rather than the API
     * @param nextTickAt its next tick (pending, or written on resume while paused), or {@code null}
     * @param lastTickAt the latest tick whose handler was let run, or {@code null}
     */
    public record ScheduleDescriptor(String id, String kind, String expression, String zone, String misfire,
            String overlap, boolean paused, boolean declared, @Nullable Instant nextTickAt, @Nullable Instant lastTickAt) {
    }

    /**
     * What a write operation did.
     *
     * @param queue   the queue's code
     * @param action  {@code pause}, {@code resume}, {@code requeue-dead-letters}, {@code requeue}, {@code delete},
     *                {@code run-now}, {@code cancel}, or {@code schedule-pause}, {@code schedule-resume},
     *                {@code schedule-trigger}, {@code schedule-remove}
     * @param target  the message id or dead-letter key acted on, or {@code null}
     * @param changed how many messages or dead letters changed (for pause and resume: 1 if the pause changed);
     *                0 when nothing had that id or key in the state the action needs
     * @param paused  whether the queue is paused afterwards
     */
    public record ChangeDescriptor(String queue, String action, @Nullable String target, long changed, boolean paused)
            implements OperationResponseBody {
    }
}
