package io.github.delayqueue.dashboard;

import io.github.delayqueue.core.schedule.SchedulePage;
import io.github.delayqueue.spring.schedule.DelayQueueSchedules;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.MessagePage;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.core.history.HistoryPage;
import io.github.delayqueue.core.history.MessageStatus;
import io.github.delayqueue.core.sets.SetStatus;
import io.github.delayqueue.dashboard.DashboardViews.ActionRequest;
import io.github.delayqueue.dashboard.DashboardViews.ActionResult;
import io.github.delayqueue.dashboard.DashboardViews.DeadLetterPageView;
import io.github.delayqueue.dashboard.DashboardViews.DeadLetterRow;
import io.github.delayqueue.dashboard.DashboardViews.ErrorView;
import io.github.delayqueue.dashboard.DashboardViews.GroupPageView;
import io.github.delayqueue.dashboard.DashboardViews.GroupRow;
import io.github.delayqueue.dashboard.DashboardViews.HistoryPageView;
import io.github.delayqueue.dashboard.DashboardViews.SetView;
import io.github.delayqueue.dashboard.DashboardViews.SettledRow;
import io.github.delayqueue.dashboard.DashboardViews.StatusView;
import io.github.delayqueue.dashboard.DashboardViews.SchedulePageView;
import io.github.delayqueue.dashboard.DashboardViews.ScheduleRow;
import io.github.delayqueue.dashboard.DashboardViews.MessagePageView;
import io.github.delayqueue.dashboard.DashboardViews.MessageRow;
import io.github.delayqueue.dashboard.DashboardViews.MessageView;
import io.github.delayqueue.dashboard.DashboardViews.Overview;
import io.github.delayqueue.dashboard.DashboardViews.Payload;
import io.github.delayqueue.dashboard.DashboardViews.QueueView;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueConsumerRegistry;
import io.github.delayqueue.spring.DelayQueueTemplate;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseBody;
import org.springframework.web.server.ResponseStatusException;

/**
 * The dashboard's routes, under {@code delayqueue.dashboard.path}: the page and its assets, JSON reads under
 * {@code api/}, and the actions as POSTs with a JSON body. Every refusal is a 4xx (or 501, 503) with an
 * {@link ErrorView} whose message the page shows, and changes nothing: input is checked, and the queue found,
 * before anything is written. Not a component: the auto-configuration declares it.
 */
@Controller
@ResponseBody
@RequestMapping("${delayqueue.dashboard.path:/delayqueue}")
final class DashboardController {

    static final int DEFAULT_LIMIT = 25;
    static final int MAX_LIMIT = 200;
    private static final int MAX_KEYS = 1_000;

    private static final Logger log = LoggerFactory.getLogger(DashboardController.class);

    private final DelayQueueAdmin admin;
    private final DelayQueueTemplate template;
    private final DelayQueueConsumerRegistry registry;
    private final DashboardProperties properties;
    private final QueueMetrics metrics;
    private final DashboardPage page;
    private final @Nullable DelayQueueSchedules schedules;

    DashboardController(DelayQueueAdmin admin, DelayQueueTemplate template, DelayQueueConsumerRegistry registry,
            DashboardProperties properties, QueueMetrics metrics) {
        this(admin, template, registry, properties, metrics, null);
    }

    DashboardController(DelayQueueAdmin admin, DelayQueueTemplate template, DelayQueueConsumerRegistry registry,
            DashboardProperties properties, QueueMetrics metrics, @Nullable DelayQueueSchedules schedules) {
        this.schedules = schedules;
        this.admin = admin;
        this.template = template;
        this.registry = registry;
        this.properties = properties;
        this.metrics = metrics;
        this.page = new DashboardPage(properties.getPath());
    }

    // ---- the page

    @GetMapping({ "", "/" })
    ResponseEntity<String> page(HttpServletRequest request) {
        return this.page.page(request);
    }

    @GetMapping("/assets/{name}")
    ResponseEntity<byte[]> asset(@PathVariable String name) {
        return this.page.asset(name);
    }

    // ---- reads

    @GetMapping("/api/overview")
    Overview overview() {
        List<DelayQueueCode> codes = this.admin.codes();
        List<QueueStats> stats = this.admin.stats();
        Map<String, QueueMetrics.Figures> figures = this.metrics.read(codes.stream().map(DelayQueueCode::code).toList());
        List<QueueView> queues = new ArrayList<>(codes.size());
        Instant now = Instant.EPOCH;
        for (int i = 0; i < codes.size(); i++) {
            DelayQueueCode code = codes.get(i);
            queues.add(QueueView.of(code.code(), stats.get(i), this.admin.isPaused(code), figures.get(code.code())));
            now = stats.get(i).serverTime();
        }
        return new Overview(now, this.properties.getRefreshInterval().toMillis(), this.properties.isActionsEnabled(),
                this.properties.isShowPayloads(), !(this.metrics == QueueMetrics.NONE),
                queues, this.registry.status());
    }

    @GetMapping("/api/queues/{code}")
    QueueView queueView(@PathVariable String code) {
        DelayQueueCode queue = queue(code);
        Map<String, QueueMetrics.Figures> figures = this.metrics.read(List.of(queue.code()));
        return QueueView.of(queue.code(), this.admin.stats(queue), this.admin.isPaused(queue), figures.get(queue.code()));
    }

    @GetMapping("/api/queues/{code}/pending")
    MessagePageView pending(@PathVariable String code, @RequestParam(required = false) @Nullable String offset,
            @RequestParam(required = false) @Nullable String limit) {
        DelayQueueCode queue = queue(code);
        long from = offset(offset);
        int size = limit(limit);
        return page(queue, "pending", this.admin.pending(queue, from, size), size);
    }

    @GetMapping("/api/queues/{code}/schedules")
    SchedulePageView schedules(@PathVariable String code, @RequestParam(required = false) @Nullable String offset,
            @RequestParam(required = false) @Nullable String limit) {
        DelayQueueCode queue = queue(code);
        long from = offset(offset);
        int size = limit(limit);
        SchedulePage page = schedulesOf().list(queue.code(), from, size);
        pastTheEnd(queue, "schedules", page.offset(), page.total(), size);
        return new SchedulePageView(queue.code(), page.total(), page.offset(), size, page.serverTime(),
                page.schedules().stream().map(s -> ScheduleRow.of(s, page.serverTime())).toList());
    }

    /** {@code pause}, {@code resume} or {@code trigger} on the schedule the body's {@code id} names. */
    @PostMapping("/api/queues/{code}/schedules/{action}")
    ActionResult scheduleAction(@PathVariable String code, @PathVariable String action,
            @RequestBody ActionRequest request) {
        DelayQueueCode queue = writable(code);
        String id = id(request.id());
        DelayQueueSchedules schedules = schedulesOf();
        String message;
        long count;
        try {
            switch (action) {
                case "pause" -> {
                    count = schedules.pause(queue.code(), id) ? 1 : 0;
                    message = count == 1 ? "Paused schedule " + id : "Schedule " + id + " was paused already";
                }
                case "resume" -> {
                    count = schedules.resume(queue.code(), id) ? 1 : 0;
                    message = count == 1 ? "Resumed schedule " + id : "Schedule " + id + " was not paused";
                }
                case "trigger" -> {
                    String tick = schedules.trigger(queue.code(), id);
                    count = 1;
                    message = "Schedule " + id + " runs now (message " + tick + ")";
                }
                default -> throw new DashboardException(HttpStatus.NOT_FOUND, "no schedule action '" + action
                        + "'; use pause, resume or trigger");
            }
        } catch (IllegalArgumentException e) {
            throw new DashboardException(HttpStatus.BAD_REQUEST, e.getMessage());
        }
        log.info("Dashboard: {} schedule '{}' of queue '{}'", action, id, queue.code());
        return new ActionResult(message, count);
    }

    private DelayQueueSchedules schedulesOf() {
        DelayQueueSchedules schedules = this.schedules;
        if (schedules == null) {
            throw new DashboardException(HttpStatus.NOT_FOUND, "recurring schedules are not available in this application");
        }
        return schedules;
    }

    @GetMapping("/api/queues/{code}/in-flight")
    MessagePageView inFlight(@PathVariable String code, @RequestParam(required = false) @Nullable String offset,
            @RequestParam(required = false) @Nullable String limit) {
        DelayQueueCode queue = queue(code);
        long from = offset(offset);
        int size = limit(limit);
        return page(queue, "in flight", this.admin.inFlight(queue, from, size), size);
    }

    private MessagePageView page(DelayQueueCode queue, String set, MessagePage page, int limit) {
        pastTheEnd(queue, set + " messages", page.offset(), page.total(), limit);
        return new MessagePageView(queue.code(), set, page.total(), page.offset(), limit, page.serverTime(),
                page.messages().stream().map(m -> MessageRow.of(m, page.serverTime())).toList());
    }

    /** The groups furthest behind of the queue's grouped messages (SendOptions.group; docs/guides/flow-control.md). */
    @GetMapping("/api/queues/{code}/groups")
    GroupPageView groups(@PathVariable String code, @RequestParam(required = false) @Nullable String limit) {
        DelayQueueCode queue = queue(code);
        int size = limit(limit);
        Instant now = this.admin.stats(queue).serverTime();
        return new GroupPageView(queue.code(), size, now,
                this.admin.groups(queue, size).stream().map(g -> GroupRow.of(g, now)).toList());
    }

    /**
     * The queue's last hour, minute by minute, for the queue page's charts: handled, failed (retried and dead) and the
     * handlers' lateness, summed over every instance (the activity counts in Redis; docs/operations/dashboard.md).
     */
    @GetMapping("/api/queues/{code}/activity")
    DashboardViews.ActivityView activity(@PathVariable String code) {
        DelayQueueCode queue = queue(code);
        return DashboardViews.ActivityView.of(queue.code(), this.admin.activity(queue));
    }

    @GetMapping("/api/queues/{code}/dead-letters")
    DeadLetterPageView deadLetters(@PathVariable String code, @RequestParam(required = false) @Nullable String offset,
            @RequestParam(required = false) @Nullable String limit) {
        DelayQueueCode queue = queue(code);
        long from = offset(offset);
        int size = limit(limit);
        QueueStats stats = this.admin.stats(queue);
        List<DeadLetter> letters = this.admin.deadLetters(queue, from, size);
        pastTheEnd(queue, "dead letters", from, Math.max(stats.dead(), from + letters.size()), size);
        int max = maxPayloadBytes();
        return new DeadLetterPageView(queue.code(), Math.max(stats.dead(), from + letters.size()), from, size,
                stats.serverTime(), letters.stream().map(d -> DeadLetterRow.of(d, max, this.properties.isShowPayloads()))
                        .toList());
    }

    @GetMapping("/api/queues/{code}/message")
    MessageView message(@PathVariable String code, @RequestParam(required = false) @Nullable String id) {
        DelayQueueCode queue = queue(code);
        String messageId = id(id);
        if (!this.properties.isShowPayloads()) {
            throw new DashboardException(HttpStatus.FORBIDDEN,
                    "payloads are hidden: set delayqueue.dashboard.show-payloads=true to show them");
        }
        QueuedMessage m = this.admin.message(queue, messageId).orElseThrow(() -> gone(queue, messageId));
        Instant now = this.admin.stats(queue).serverTime();
        return new MessageView(queue.code(), MessageRow.of(m, now), Payload.of(m.payload(), m.headers(), maxPayloadBytes()));
    }

    // ---- a message's life after the fact: one id's status, and the queue's history (records kept on settle)

    /**
     * Where one message stands (the id search): pending, in flight, completed or dead-lettered (while the queue's
     * history keeps its record), or unknown. A missing id is a 400, and one the engine refuses (too long, control
     * characters) too, before anything is read.
     */
    @GetMapping("/api/queues/{code}/status")
    StatusView status(@PathVariable String code, @RequestParam(required = false) @Nullable String id) {
        DelayQueueCode queue = queue(code);
        String messageId = id(id);
        MessageStatus status = this.admin.status(queue, messageId);
        Instant now = this.admin.stats(queue).serverTime();
        return StatusView.of(queue.code(), status, now);
    }

    /**
     * A job set by its id (the Sets page): counts, state, callbacks sent, and its first dead members. A missing or
     * invalid id is a 400; a set that does not exist (never sent, or past its retention) a 404.
     */
    @GetMapping("/api/sets")
    SetView set(@RequestParam(required = false) @Nullable String id) {
        if (id == null || id.isBlank()) {
            throw new DashboardException(HttpStatus.BAD_REQUEST, "a set id is required");
        }
        SetStatus status = this.admin.setStatus(id).orElseThrow(() -> new DashboardException(HttpStatus.NOT_FOUND,
                "no job set '" + id + "': never sent, or past its retention (a set is kept for its retention after "
                        + "its last change, 7 days unless it was sent with another)"));
        return SetView.of(status, queue -> this.admin.find(queue).isPresent());
    }

    /** A page of the queue's history, the latest settled first (empty for a queue that keeps none). */
    @GetMapping("/api/queues/{code}/history")
    HistoryPageView history(@PathVariable String code, @RequestParam(required = false) @Nullable String offset,
            @RequestParam(required = false) @Nullable String limit) {
        DelayQueueCode queue = queue(code);
        long from = offset(offset);
        int size = limit(limit);
        HistoryPage page = this.admin.history(queue, from, size);
        pastTheEnd(queue, "history records", page.offset(), page.total(), size);
        return new HistoryPageView(queue.code(), page.total(), page.offset(), size, page.serverTime(),
                page.records().stream().map(m -> SettledRow.of(m, page.serverTime())).toList());
    }

    // ---- actions (POST with JSON, refused unless delayqueue.dashboard.actions-enabled)

    /**
     * Runs before every route of this controller: a POST must say {@code Content-Type: application/json}. A page
     * on another origin cannot send that (nor any body as JSON) without the browser's CORS preflight, which this
     * application does not answer; so an HTML form or a {@code no-cors} fetch in an operator's browser gets a 415
     * and changes nothing, whether Spring Security's CSRF protection is there or not. The page sends JSON always.
     */
    @ModelAttribute
    void actionsTakeJson(HttpServletRequest request) {
        if (!HttpMethod.POST.matches(request.getMethod())) {
            return;
        }
        String type = request.getContentType();
        try {
            if (type != null && MediaType.APPLICATION_JSON.equalsTypeAndSubtype(MediaType.parseMediaType(type))) {
                return;
            }
        } catch (InvalidMediaTypeException e) {
            // below
        }
        throw new DashboardException(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "actions take a JSON body: send Content-Type: "
                + "application/json (was " + (type == null ? "none" : "'" + type + "'") + ")");
    }

    @PostMapping("/api/queues/{code}/cancel")
    ActionResult cancel(@PathVariable String code, @RequestBody ActionRequest request) {
        DelayQueueCode queue = writable(code);
        String id = id(request.id());
        if (!this.template.cancel(queue, id)) {
            throw gone(queue, id);
        }
        log.info("Dashboard: cancelled message '{}' of queue '{}'", id, queue.code());
        return new ActionResult("Cancelled message " + id, 1);
    }

    @PostMapping("/api/queues/{code}/run-now")
    ActionResult runNow(@PathVariable String code, @RequestBody ActionRequest request) {
        DelayQueueCode queue = writable(code);
        String id = id(request.id());
        if (!this.admin.runNow(queue, id)) {
            throw notPending(queue, id);
        }
        log.info("Dashboard: message '{}' of queue '{}' made due now", id, queue.code());
        return new ActionResult("Message " + id + " is due now", 1);
    }

    @PostMapping("/api/queues/{code}/reschedule")
    ActionResult reschedule(@PathVariable String code, @RequestBody ActionRequest request) {
        DelayQueueCode queue = writable(code);
        String id = id(request.id());
        Instant dueAt = dueAt(request.dueAt());
        Instant now = this.admin.stats(queue).serverTime();
        if (dueAt.isBefore(now)) {
            throw new DashboardException(HttpStatus.BAD_REQUEST, "dueAt " + dueAt + " is in the past (Redis time is " + now
                    + "); use Run now to make a message due at once");
        }
        if (!this.admin.reschedule(queue, id, dueAt)) {
            throw notPending(queue, id);
        }
        log.info("Dashboard: message '{}' of queue '{}' rescheduled to {}", id, queue.code(), dueAt);
        return new ActionResult("Message " + id + " is due at " + dueAt, 1);
    }

    @PostMapping("/api/queues/{code}/dead-letters/requeue")
    ActionResult requeue(@PathVariable String code, @RequestBody ActionRequest request) {
        return deadLetters(code, request, "Requeued", this.admin::requeue, "nothing requeued in queue '%s': the dead "
                + "letter is gone (requeued or deleted already), or its id has a live message again");
    }

    @PostMapping("/api/queues/{code}/dead-letters/delete")
    ActionResult delete(@PathVariable String code, @RequestBody ActionRequest request) {
        return deadLetters(code, request, "Deleted", this.admin::purge,
                "no such dead letter in queue '%s': requeued or deleted already");
    }

    /** Requeues or deletes the dead letters the request's keys name; 404 when none of them changed. */
    private ActionResult deadLetters(String code, ActionRequest request, String done,
            BiFunction<DelayQueueCode, List<String>, Long> action, String noneFound) {
        DelayQueueCode queue = writable(code);
        long count = action.apply(queue, keys(request.keys()));
        if (count == 0) {
            throw new DashboardException(HttpStatus.NOT_FOUND, noneFound.formatted(queue.code()));
        }
        return done(queue, done, count);
    }

    @PostMapping("/api/queues/{code}/dead-letters/requeue-all")
    ActionResult requeueAll(@PathVariable String code) {
        DelayQueueCode queue = writable(code);
        return done(queue, "Requeued", this.admin.requeueAll(queue));
    }

    private static ActionResult done(DelayQueueCode queue, String done, long count) {
        log.info("Dashboard: {} {} dead letter(s) of queue '{}'", done.toLowerCase(Locale.ROOT), count, queue.code());
        return new ActionResult(done + " " + count + " dead letter" + (count == 1 ? "" : "s"), count);
    }

    @PostMapping("/api/queues/{code}/pause")
    ActionResult pause(@PathVariable String code) {
        return pauseOrResume(code, true);
    }

    @PostMapping("/api/queues/{code}/resume")
    ActionResult resume(@PathVariable String code) {
        return pauseOrResume(code, false);
    }

    private ActionResult pauseOrResume(String code, boolean pause) {
        DelayQueueCode queue = writable(code);
        boolean changed = this.admin.isPaused(queue) != pause;
        if (pause) {
            this.admin.pause(queue);
        } else {
            this.admin.resume(queue);
        }
        String done = pause ? "paused" : "resumed";
        log.info("Dashboard: {} queue '{}'", done, queue.code());
        return new ActionResult(changed ? (pause ? "Paused" : "Resumed") + " queue " + queue.code()
                : "Queue " + queue.code() + (pause ? " was paused already" : " was not paused"), changed ? 1 : 0);
    }

    // ---- checks

    private DelayQueueCode queue(String code) {
        return this.admin.find(code).orElseThrow(() -> new DashboardException(HttpStatus.NOT_FOUND, "no queue '" + code
                + "'; declared queues: " + this.admin.codes().stream().map(DelayQueueCode::code).toList()));
    }

    private DelayQueueCode writable(String code) {
        if (!this.properties.isActionsEnabled()) {
            throw new DashboardException(HttpStatus.FORBIDDEN,
                    "the dashboard is read-only: set delayqueue.dashboard.actions-enabled=true to allow actions");
        }
        return queue(code);
    }

    private static long offset(@Nullable String offset) {
        if (offset == null || offset.isBlank()) {
            return 0;
        }
        try {
            long value = Long.parseLong(offset.trim());
            if (value >= 0) {
                return value;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new DashboardException(HttpStatus.BAD_REQUEST, "offset must be a whole number, 0 or more, was '" + offset + "'");
    }

    private static int limit(@Nullable String limit) {
        if (limit == null || limit.isBlank()) {
            return DEFAULT_LIMIT;
        }
        try {
            int value = Integer.parseInt(limit.trim());
            if (value >= 1 && value <= MAX_LIMIT) {
                return value;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new DashboardException(HttpStatus.BAD_REQUEST,
                "limit must be a whole number from 1 to " + MAX_LIMIT + ", was '" + limit + "'");
    }

    private static void pastTheEnd(DelayQueueCode queue, String what, long offset, long total, int limit) {
        if (offset > 0 && offset >= total) {
            long last = total == 0 ? 0 : (total - 1) / limit * limit;
            throw new DashboardException(HttpStatus.NOT_FOUND, "page past the end: queue '" + queue.code() + "' has " + total
                    + " " + what + ", so pages of " + limit + " start at most at " + last + " (asked for " + offset + ")");
        }
    }

    private static String id(@Nullable String id) {
        if (id == null || id.isBlank()) {
            throw new DashboardException(HttpStatus.BAD_REQUEST, "a message id is required");
        }
        return id;
    }

    private static List<String> keys(@Nullable List<String> keys) {
        if (keys == null || keys.isEmpty()) {
            throw new DashboardException(HttpStatus.BAD_REQUEST, "keys: give at least one dead-letter key");
        }
        if (keys.size() > MAX_KEYS) {
            throw new DashboardException(HttpStatus.BAD_REQUEST, "keys: at most " + MAX_KEYS + " per request, was " + keys.size());
        }
        return keys;
    }

    private static Instant dueAt(@Nullable String dueAt) {
        if (dueAt == null || dueAt.isBlank()) {
            throw new DashboardException(HttpStatus.BAD_REQUEST, "dueAt is required: an ISO-8601 instant such as 2030-01-31T09:00:00Z");
        }
        try {
            return Instant.parse(dueAt.trim());
        } catch (DateTimeParseException e) {
            throw new DashboardException(HttpStatus.BAD_REQUEST,
                    "dueAt must be an ISO-8601 instant such as 2030-01-31T09:00:00Z, was '" + dueAt + "'");
        }
    }

    private DashboardException gone(DelayQueueCode queue, String id) {
        return new DashboardException(HttpStatus.NOT_FOUND, "no live message '" + id + "' in queue '" + queue.code()
                + "': delivered, cancelled, dead-lettered or never sent");
    }

    private DashboardException notPending(DelayQueueCode queue, String id) {
        Optional<QueuedMessage> live = this.admin.message(queue, id);
        if (live.isPresent() && live.get().state() == QueuedMessage.State.IN_FLIGHT) {
            return new DashboardException(HttpStatus.CONFLICT, "message '" + id + "' of queue '" + queue.code()
                    + "' is in flight (a handler has it): only a pending message can be rescheduled");
        }
        return gone(queue, id);
    }

    private int maxPayloadBytes() {
        return (int) this.properties.getMaxPayloadSize().toBytes();
    }

    // ---- errors: always JSON with a message

    @ExceptionHandler(DashboardException.class)
    ResponseEntity<ErrorView> refused(DashboardException e) {
        return error(e.status(), e.getMessage());
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<ErrorView> badInput(IllegalArgumentException e) {
        return error(HttpStatus.BAD_REQUEST, e.getMessage());
    }

    @ExceptionHandler(HttpMessageNotReadableException.class)
    ResponseEntity<ErrorView> unreadable(HttpMessageNotReadableException e) {
        return error(HttpStatus.BAD_REQUEST,
                "the request body must be JSON such as {\"id\": \"order:42\"}, {\"keys\": [\"...\"]} or {\"id\": \"...\", \"dueAt\": \"2030-01-31T09:00:00Z\"}");
    }

    @ExceptionHandler(ResponseStatusException.class)
    ResponseEntity<ErrorView> status(ResponseStatusException e) {
        return error(e.getStatusCode(), e.getReason() == null ? e.getMessage() : e.getReason());
    }

    @ExceptionHandler(DelayQueueException.class)
    ResponseEntity<ErrorView> redis(DelayQueueException e) {
        log.warn("Dashboard: Redis failed: {}", e.getMessage(), e);
        return error(HttpStatus.SERVICE_UNAVAILABLE, "Redis did not answer: " + e.getMessage());
    }

    private static ResponseEntity<ErrorView> error(HttpStatusCode status, String message) {
        HttpStatus known = HttpStatus.resolve(status.value());
        return ResponseEntity.status(status).header("Cache-Control", "no-store")
                .body(new ErrorView(status.value(), known == null ? "Error" : known.getReasonPhrase(), message));
    }
}
