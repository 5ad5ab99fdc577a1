package io.github.delayqueue.spring.autoconfigure;

import java.lang.reflect.Type;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.schedule.ScheduleSpec;
import io.github.delayqueue.core.schedule.Schedules;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.core.QueueCatalog;
import io.github.delayqueue.spring.schedule.CronTicks;

/**
 * The schedules of {@code delayqueue.schedules.*}: checked when the context starts, before any consumer (a bad one
 * fails startup with a {@link DelayQueueConfigurationException} naming the property and the fix), then declared
 * ({@link Schedules#declare}: the newest definition wins, a replaced one is not brought back by an old instance) and
 * re-armed ({@link Schedules#rearm}) on a thread of its own, which tries again while Redis cannot be reached.
 * Internal to the starter (created by {@link DelayQueueScheduleAutoConfiguration}).
 */
final class ScheduleDeclarations implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ScheduleDeclarations.class);

    /** Properties of one schedule, as bound from {@code delayqueue.schedules.<name>}. */
    record Declared(@Nullable String queue, @Nullable String cron, @Nullable Duration every, String zone,
            String payload, io.github.delayqueue.core.schedule.Misfire misfire, int catchUpLimit,
            io.github.delayqueue.core.schedule.Overlap overlap) {
    }

    private final Map<String, Declared> declared;
    private final QueueCatalog catalog;
    private final DefaultDelayQueueSchedules schedules;
    /** The payload type of a queue's handler in this application, if it has one. */
    private final Function<String, Optional<Type>> payloadTypes;
    private volatile boolean running;
    private volatile @Nullable Thread thread;
    private volatile boolean done;

    ScheduleDeclarations(Map<String, Declared> declared, QueueCatalog catalog, DefaultDelayQueueSchedules schedules,
            Function<String, Optional<Type>> payloadTypes) {
        this.declared = Map.copyOf(declared);
        this.catalog = catalog;
        this.schedules = schedules;
        this.payloadTypes = payloadTypes;
    }

    /**
     * Checks every declaration (a bad one fails startup), then declares them in Redis on a daemon thread of its own
     * ({@code delayqueue-schedule-declarations}), so that startup never waits for Redis: while Redis cannot be
     * reached it tries again with a back-off (1 s doubling to 30 s) until every schedule is declared or the context
     * stops.
     */
    @Override
    public synchronized void start() {
        if (this.running) {
            return;
        }
        List<ScheduleSpec> specs = new ArrayList<>();
        this.declared.forEach((name, d) -> specs.add(check(name, d)));
        this.running = true;
        this.done = false;
        if (specs.isEmpty()) {
            this.done = true;
            return;
        }
        Thread thread = new Thread(() -> declareAll(specs), "delayqueue-schedule-declarations");
        thread.setDaemon(true);
        this.thread = thread;
        thread.start();
    }

    private void declareAll(List<ScheduleSpec> specs) {
        List<ScheduleSpec> left = new ArrayList<>(specs);
        long backOffMs = 1000;
        boolean warned = false;
        while (this.running && !left.isEmpty()) {
            ScheduleSpec spec = left.get(0);
            try {
                declare(spec);
                left.remove(0);
            } catch (DelayQueueException e) {
                if (!warned) {
                    log.warn("Schedules {} could not be declared in Redis yet ({}); trying again until they are",
                            left.stream().map(ScheduleSpec::id).toList(), e.toString());
                    warned = true;
                }
                try {
                    Thread.sleep(backOffMs);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
                backOffMs = Math.min(backOffMs * 2, 30_000);
            } catch (RuntimeException e) { // a wrong partition count, say: not fixed by trying again
                log.error("Schedule '{}' of queue '{}' could not be declared: {}", spec.id(), spec.queue(), e.toString());
                left.remove(0);
            }
        }
        if (left.isEmpty()) {
            this.done = true;
            if (warned) {
                log.info("Schedules {} declared", specs.stream().map(ScheduleSpec::id).toList());
            }
        }
    }

    /** Whether every declaration of this start was made (or failed for good); for tests and health checks. */
    boolean isDone() {
        return this.done;
    }

    private void declare(ScheduleSpec spec) {
        Schedules engine = this.schedules.of(spec.queue());
        Schedules.Outcome outcome = engine.declare(spec);
        if (outcome == Schedules.Outcome.KEPT_NEWER) {
            log.warn("Schedule '{}' of queue '{}': this application declares a definition that was replaced since (by "
                    + "a newer start or the API); the newer one is kept: {}", spec.id(), spec.queue(),
                    engine.get(spec.queue(), spec.id()).map(i -> i.spec().toString()).orElse("(gone)"));
        } else {
            log.info("Schedule '{}' of queue '{}': {} ({})", spec.id(), spec.queue(), outcome.name().toLowerCase(), spec);
        }
        if (engine.rearm(spec.queue(), spec.id())) {
            log.warn("Schedule '{}' of queue '{}' had lost its pending tick; it was written again", spec.id(),
                    spec.queue());
        }
    }

    /** Whether a cron expression that parses has no time after now (false when it does not parse: reported below). */
    private static boolean neverFires(String cron, ZoneId zone) {
        try {
            return CronTicks.FACTORY.create(cron, zone).next(java.time.Instant.now()) == null;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The spec of {@code delayqueue.schedules.<name>}, or a failure naming the property and the fix. */
    ScheduleSpec check(String name, Declared d) {
        String property = "delayqueue.schedules." + name;
        if (d.queue() == null || d.queue().isBlank()) {
            throw fail(property + ".queue is not set.", "Set " + property + ".queue to a declared queue code: "
                    + codes() + ".");
        }
        if (this.catalog.find(d.queue()).isEmpty()) {
            throw fail(property + ".queue is '" + d.queue() + "', which no DelayQueueCode enum declares.",
                    "Set it to a declared queue code " + codes() + ", or declare '" + d.queue()
                            + "' in an enum implementing DelayQueueCode.");
        }
        boolean cron = d.cron() != null && !d.cron().isBlank();
        if (cron == (d.every() != null)) {
            throw fail(property + (cron ? " sets both cron and every." : " sets neither cron nor every."),
                    "Set exactly one: " + property + ".cron (such as \"0 0 2 * * *\") or " + property
                            + ".every (such as 30s).");
        }
        ZoneId zone;
        try {
            zone = ZoneId.of(d.zone());
        } catch (RuntimeException e) {
            throw fail(property + ".zone is '" + d.zone() + "', which is not a time zone: " + e.getMessage() + ".",
                    "Use an IANA zone id such as Europe/Berlin or America/New_York, or UTC.", e);
        }
        ScheduleSpec.Builder builder;
        try {
            builder = cron ? ScheduleSpec.cron(d.queue(), name, d.cron()) : ScheduleSpec.every(d.queue(), name, d.every());
        } catch (IllegalArgumentException e) {
            String what = e.getMessage() != null && e.getMessage().startsWith("schedule id") ? "The schedule name '" + name
                    + "' is not a valid schedule id: " + e.getMessage() : property + ".every is " + d.every() + ": "
                    + e.getMessage();
            throw fail(what + ".", what.startsWith("The schedule name")
                    ? "Rename it under delayqueue.schedules to letters, digits and _ . : - (at most 200)."
                    : "Set " + property + ".every to a positive duration of whole milliseconds, such as 30s.", e);
        }
        if (d.catchUpLimit() < 1 || d.catchUpLimit() > ScheduleSpec.MAX_CATCH_UP) {
            throw fail(property + ".catch-up-limit is " + d.catchUpLimit() + ".",
                    "Set it between 1 and " + ScheduleSpec.MAX_CATCH_UP + ".");
        }
        String noPayload = "Set " + property + ".payload to JSON of the payload type of queue '" + d.queue()
                + "'s handler, quoted in yaml: payload: '{\"kind\":\"nightly\"}' (leave it out for {}). A handler is "
                + "never given null: every tick would go to the dead letters.";
        if (d.payload() == null || d.payload().isBlank()) {
            throw fail(property + ".payload is empty.", noPayload);
        }
        ScheduleSpec spec = builder.zone(zone).payloadJson(d.payload())
                .misfire(d.misfire()).catchUpLimit(d.catchUpLimit()).overlap(d.overlap()).build();
        if (d.payload().strip().equals("null")) {
            throw fail(property + ".payload is JSON null.", noPayload);
        }
        if (cron && neverFires(d.cron(), zone)) {
            throw fail(property + ".cron is '" + d.cron() + "', which never fires: no date after now matches it (such "
                    + "as February 30).", "Use an expression that matches a date, such as \"0 0 2 * * *\" (02:00 every day).");
        }
        Schedules engine = this.schedules.of(d.queue());
        try {
            engine.validate(spec);
        } catch (IllegalArgumentException e) {
            if (cron) {
                try {
                    CronTicks.FACTORY.create(d.cron(), zone);
                } catch (IllegalArgumentException bad) {
                    throw fail(property + ".cron is '" + d.cron() + "', which is not a cron expression: "
                            + bad.getMessage() + ".", "Use Spring's cron format: 6 fields, second first (\"0 0 2 * * *\" "
                                    + "is 02:00 every day), or a macro such as @daily or @hourly.", bad);
                }
            }
            throw fail(property + ".payload is not valid: " + e.getMessage() + ".",
                    "Set " + property + ".payload to JSON of the payload type of queue '" + d.queue() + "'s handler, "
                            + "quoted in yaml: payload: '{\"kind\":\"nightly\"}'.", e);
        }
        Optional<Type> type = this.payloadTypes.apply(d.queue());
        if (type.isPresent() && type.get() != Void.class) { // Void: a handler that reads no payload
            try {
                if (this.catalog.codec().decode(spec.payloadJson(), type.get()) == null) {
                    throw new IllegalArgumentException("it decodes to null");
                }
            } catch (RuntimeException e) {
                throw fail(property + ".payload " + spec.payloadJson() + " does not bind to " + type.get().getTypeName()
                        + ", the payload type of queue '" + d.queue() + "'s handler: " + e.getMessage()
                        + ". Every tick would go to the dead letters.",
                        "Set " + property + ".payload to JSON of " + type.get().getTypeName()
                                + " (quoted in yaml), or change the handler's payload type.", e);
            }
        }
        return spec;
    }

    private List<String> codes() {
        return this.catalog.codes().stream().map(DelayQueueCode::code).toList();
    }

    private static DelayQueueConfigurationException fail(String description, String action) {
        return new DelayQueueConfigurationException(description, action);
    }

    private static DelayQueueConfigurationException fail(String description, String action, Throwable cause) {
        return new DelayQueueConfigurationException(description, action, cause);
    }

    @Override
    public synchronized void stop() {
        this.running = false;
        Thread thread = this.thread;
        if (thread != null) {
            thread.interrupt();
            this.thread = null;
        }
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    /** Before the consumers start (their registry's phase is {@code Integer.MAX_VALUE - 100}). */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE - 101;
    }
}
