package io.github.delayqueue.core.schedule;

import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.DeliveryInterceptor;

/**
 * Recurring schedules on the queues of one {@link DelayQueueClient}: create or replace, read, list, pause, resume,
 * trigger and remove them. A schedule's ticks are ordinary messages of its queue, handled by the queue's handler;
 * the next tick is written when a tick is claimed, by {@link #interceptor()}, which every consumer of a queue with
 * schedules must run (the Spring Boot starter adds it to every consumer). See docs/guides/recurring-jobs.md.
 * <p>
 * Bad input throws {@link IllegalArgumentException} and writes nothing; Redis failures throw
 * {@link DelayQueueException}.
 */
public final class Schedules {

    /** Header naming the schedule of a tick message. */
    public static final String SCHEDULE_HEADER = "dq-schedule";
    /** Header holding a tick's instant (epoch ms), or {@code manual} for a triggered tick. */
    public static final String TICK_HEADER = "dq-tick";
    /** Header counting the catch-up ticks run before this one in an outage ({@link Misfire#FIRE_ALL}); absent when 0. */
    static final String CATCH_UP_HEADER = "dq-catch-up";
    static final String MANUAL = "manual";

    /** Most schedules a page may reach on a partitioned queue ({@code offset + limit}). */
    public static final int MERGE_WINDOW = 10_000;

    private static final String[] KEYS = { "schedules", "schedule-state", "schedule-next" };
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int RETRIES = 20;

    private final DelayQueueClient client;
    private final Map<String, TickFunction.Factory> kinds;
    private final ScheduleListener listener;
    private final ScheduleInterceptor interceptor;

    private Schedules(Builder b) {
        this.client = b.client;
        this.kinds = Map.copyOf(b.kinds);
        this.listener = b.listener;
        this.interceptor = new ScheduleInterceptor(this, listener);
    }

    /** Schedules with the {@code every} kind only; add {@code cron} (or others) with {@link Builder#kind}. */
    public static Builder builder(DelayQueueClient client) {
        return new Builder(client);
    }

    /** What a {@link #put} or {@link #declare} did. */
    public enum Outcome {
        /** The schedule did not exist; it does now, its first tick pending. */
        CREATED,
        /** Another definition was replaced, with its pending tick. */
        REPLACED,
        /** The same definition was stored already: nothing was written. */
        UNCHANGED,
        /**
         * A declaration of a definition that this schedule had and that was replaced since: the newer one was kept
         * (only {@link #declare} returns it; see docs/guides/recurring-jobs.md, "Rolling deploys").
         */
        KEPT_NEWER
    }

    /**
     * Creates the schedule or replaces its definition, whatever the stored one is: the pending tick is replaced by
     * the first tick of the new definition after now (a tick already running finishes). A paused schedule stays
     * paused. Putting the definition stored already changes nothing.
     *
     * @throws IllegalArgumentException if the spec is invalid (unknown kind, bad expression, no payload or JSON
     *                                  null, payload that is not JSON or cannot be encoded); nothing is written
     */
    public Outcome put(ScheduleSpec spec) {
        return write(spec, Definition.API);
    }

    /**
     * Declares the schedule, as an application does at each start (the starter's yaml): creates it, or replaces a
     * different stored definition, unless the declared one was replaced before ({@link Outcome#KEPT_NEWER}): during a
     * rolling deploy an instance of the old version that starts again does not bring the old spec back. The newest
     * definition wins: the one written by the latest start that declared a new spec, or the latest {@link #put}.
     *
     * @throws IllegalArgumentException as {@link #put}
     */
    public Outcome declare(ScheduleSpec spec) {
        return write(spec, Definition.DECLARED);
    }

    /**
     * Checks a spec as {@link #put} does, without writing anything; returns the payload as JSON.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public String validate(ScheduleSpec spec) {
        require(spec != null, "spec must not be null");
        TickFunction ticks = tickFunction(spec.kind(), spec.expression(), spec.zone());
        // by this machine's clock: the tick times come from Redis's, but an expression with no date at all (February
        // 30) or none left fails here, before anything is written, rather than on the first write
        require(ticks.next(Instant.now()) != null, "schedule '" + spec.id() + "' of queue '" + spec.queue()
                + "' never fires: its " + spec.kind() + " expression '" + spec.expression() + "' matches no time after now");
        String noPayload = "schedule '" + spec.id() + "' has no payload: set one with payload(...) or payloadJson(...) "
                + "(a handler is never given null, so a tick whose payload is JSON null goes to the dead letters)";
        String json;
        if (spec.payloadJson() != null) {
            json = spec.payloadJson();
            boolean isNull;
            try {
                isNull = JSON.readTree(json).isNull();
            } catch (JacksonException e) {
                throw new IllegalArgumentException("payload of schedule '" + spec.id() + "' is not JSON: "
                        + e.getOriginalMessage(), e);
            }
            require(!isNull, noPayload);
        } else {
            require(spec.payload() != null, noPayload);
            json = client.options().codec().encode(spec.payload());
            require(json != null, "codec returned null for the payload of schedule '" + spec.id() + "'");
            require(!json.strip().equals("null"), noPayload);
        }
        Map<String, String> headers = tickHeaders(spec.id(), Long.MAX_VALUE, ScheduleSpec.MAX_CATCH_UP);
        int bytes = Protocol.storedBytes(Protocol.body(headers, json));
        require(bytes <= client.options().maxPayloadBytes(), "payload of schedule '" + spec.id() + "' is " + bytes
                + " bytes stored, over the limit of " + client.options().maxPayloadBytes());
        return json;
    }

    private Outcome write(ScheduleSpec spec, String origin) {
        String payload = validate(spec);
        TickFunction ticks = tickFunction(spec.kind(), spec.expression(), spec.zone());
        Definition wanted = Definition.of(spec, payload, origin);
        Target target = target(spec.queue(), spec.id());
        return redis(target, "put schedule '" + spec.id() + "' of queue '" + spec.queue() + "'", () -> {
            long floorMs = Long.MIN_VALUE; // past a first tick found in flight
            for (int i = 0; i < RETRIES; i++) {
                Read read = read(target);
                Definition stored = read.definition();
                Definition written = wanted;
                if (stored != null) {
                    if (stored.hash().equals(wanted.hash())) {
                        return Outcome.UNCHANGED;
                    }
                    if (origin.equals(Definition.DECLARED) && stored.superseded().contains(wanted.hash())) {
                        return Outcome.KEPT_NEWER;
                    }
                    written = wanted.replacing(stored);
                }
                Instant first = ticks.next(Instant.ofEpochMilli(Math.max(read.nowMs(), floorMs)),
                        read.state() == null ? null : lastRun(read.state()));
                require(first != null, "schedule '" + spec.id() + "' has no tick after now");
                long due = first.toEpochMilli();
                String tickId = target.tickId(Long.toString(due));
                List<Object> result = target.run("put", read.state() == null ? "0" : read.state().version(),
                        written.json(), Long.toString(due), tickId, body(spec.id(), due, 0, payload), "0");
                if ("inflight".equals(result.get(0))) {
                    floorMs = due; // claimed since the read: the new series starts after it
                } else if (!"conflict".equals(result.get(0))) {
                    return stored == null ? Outcome.CREATED : Outcome.REPLACED;
                }
            }
            throw new DelayQueueException("schedule '" + spec.id() + "' kept changing while it was put (" + RETRIES
                    + " tries)", null);
        });
    }

    /** Removes the schedule and its pending tick (a tick already running finishes). False if there was none. */
    public boolean remove(String queue, String id) {
        Target target = target(queue, id);
        return redis(target, "remove schedule '" + id + "'", () -> "1".equals(target.run("remove").get(0)));
    }

    /** The schedule, as Redis holds it now. */
    public Optional<ScheduleInfo> get(String queue, String id) {
        Target target = target(queue, id);
        return redis(target, "read schedule '" + id + "'", () -> {
            Read read = read(target);
            Definition definition = read.definition();
            State state = read.state();
            if (definition == null || state == null) {
                return Optional.empty();
            }
            return Optional.of(info(queue, id, definition, state));
        });
    }

    /**
     * A page of the queue's schedules in next-tick order. On a partitioned queue a page is merged from every
     * partition's first {@code offset + limit} schedules, which may be at most {@value #MERGE_WINDOW}.
     *
     * @throws IllegalArgumentException on a negative offset or a limit outside 1..1000
     */
    public SchedulePage list(String queue, long offset, int limit) {
        Protocol.validateQueue(queue);
        require(offset >= 0, "offset must not be negative, was " + offset);
        require(limit >= 1 && limit <= 1000, "limit must be between 1 and 1000, was " + limit);
        int partitions = Protocol.partitions(client, queue);
        require(partitions == 1 || offset + limit <= MERGE_WINDOW, "offset + limit must be at most " + MERGE_WINDOW
                + " on queue '" + queue + "', which has " + partitions + " partitions, was " + (offset + limit));
        return redis(queue, "list the schedules of queue '" + queue + "'", () -> {
            long total = 0;
            long now = 0;
            List<ScheduleInfo> all = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                Target target = new Target(queue, "", p, partitions);
                List<Object> out = target.run("page", partitions == 1 ? Long.toString(offset) : "0",
                        Long.toString(partitions == 1 ? limit : offset + limit));
                total += Long.parseLong(out.get(0).toString());
                now = Math.max(now, Long.parseLong(out.get(1).toString()));
                for (int i = 2; i + 2 < out.size(); i += 3) {
                    String definition = out.get(i + 1).toString();
                    State state = State.parse(out.get(i + 2).toString());
                    if (!definition.isEmpty() && state != null) {
                        all.add(info(queue, out.get(i).toString(), Definition.parse(definition), state));
                    }
                }
            }
            List<ScheduleInfo> page = all;
            if (partitions > 1) {
                all.sort(Comparator.comparing(ScheduleInfo::nextTickAt, Comparator.nullsLast(Comparator.naturalOrder()))
                        .thenComparing(s -> s.spec().id()));
                page = offset >= all.size() ? List.of()
                        : new ArrayList<>(all.subList((int) offset, (int) Math.min(all.size(), offset + limit)));
            }
            return new SchedulePage(queue, total, offset, Instant.ofEpochMilli(now), page);
        });
    }

    /**
     * Pauses the schedule for every instance: its pending tick is removed (one already running finishes) and none is
     * written until {@link #resume}. Returns false if it was paused already.
     *
     * @throws IllegalArgumentException if there is no such schedule
     */
    public boolean pause(String queue, String id) {
        Target target = target(queue, id);
        String answer = redis(target, "pause schedule '" + id + "'", () -> target.run("pause").get(0).toString());
        require(!answer.equals("gone"), "no schedule '" + id + "' on queue '" + queue + "'");
        return answer.equals("1");
    }

    /**
     * Resumes a paused schedule: the tick that was pending when it was paused is written again at its instant, so
     * if that instant has passed it is claimed at once and the misfire policy decides what runs (see {@link Misfire}).
     * On a schedule that is not paused it re-arms the series if its pending tick was lost (see {@link #rearm}).
     * Returns false if there was nothing to do.
     *
     * @throws IllegalArgumentException if there is no such schedule
     */
    public boolean resume(String queue, String id) {
        return resume(queue, id, true);
    }

    /**
     * Writes the schedule's current tick again if it is no longer in Redis although the schedule is not paused: the
     * series stops when a tick leaves Redis without its next tick written, which happens only when it was claimed by
     * a consumer that did not run {@link #interceptor()} (such as an instance of an older release during a rolling
     * deploy), or was deleted by hand. (A tick whose payload cannot be decoded writes its next tick before it is
     * dead-lettered.) Writing it again is safe: the cursor still names it, so it
     * is that tick delivered again, never a second series. Returns false if there was nothing to do (or the
     * schedule is paused). The Spring Boot starter re-arms every declared schedule at each start.
     *
     * @throws IllegalArgumentException if there is no such schedule
     */
    public boolean rearm(String queue, String id) {
        return resume(queue, id, false);
    }

    private boolean resume(String queue, String id, boolean unpause) {
        Target target = target(queue, id);
        String answer = redis(target, "resume schedule '" + id + "'", () -> {
            for (int i = 0; i < RETRIES; i++) {
                Read read = read(target);
                Definition definition = read.definition();
                State state = read.state();
                if (definition == null || state == null) {
                    return "gone";
                }
                String result = target.run("resume", state.version(), body(id, state.cursor(), 0, definition.payload()),
                        unpause ? "1" : "0").get(0).toString();
                if (!result.equals("conflict")) {
                    return result;
                }
            }
            throw new DelayQueueException("schedule '" + id + "' kept changing while it was resumed", null);
        });
        require(!answer.equals("gone"), "no schedule '" + id + "' on queue '" + queue + "'");
        return answer.equals("1");
    }

    /**
     * Writes one tick due now, outside the series: the schedule's next tick stays where it is. Returns the tick's
     * message id.
     *
     * @throws IllegalArgumentException if there is no such schedule
     */
    public String trigger(String queue, String id) {
        Target target = target(queue, id);
        String messageId = redis(target, "trigger schedule '" + id + "'", () -> {
            Read read = read(target);
            Definition definition = read.definition();
            if (definition == null) {
                return "";
            }
            String tickId = target.tickId("m" + read.nowMs());
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put(SCHEDULE_HEADER, id);
            headers.put(TICK_HEADER, MANUAL);
            String answer = target.run("trigger", tickId, Protocol.body(headers, definition.payload())).get(0)
                    .toString();
            return answer.equals("gone") ? "" : tickId;
        });
        require(!messageId.isEmpty(), "no schedule '" + id + "' on queue '" + queue + "'");
        return messageId;
    }

    /**
     * The interceptor that writes each schedule's next tick when a tick is claimed and applies the misfire and
     * overlap policies. Every consumer of a queue with schedules must run it, first among its interceptors
     * ({@code ConsumerOptions.Builder#interceptors}); messages that are not ticks pass through untouched.
     */
    public DeliveryInterceptor interceptor() {
        return interceptor;
    }

    // ---- used by the interceptor

    DelayQueueClient client() {
        return client;
    }

    TickFunction tickFunction(String kind, String expression, ZoneId zone) {
        TickFunction.Factory factory = kinds.get(kind);
        require(factory != null, "unknown schedule kind '" + kind + "'; known: " + new java.util.TreeSet<>(kinds.keySet()));
        TickFunction function = factory.create(expression, zone);
        require(function != null, "kind '" + kind + "' made no tick function of '" + expression + "'");
        return function;
    }

    Target target(String queue, String id) {
        Protocol.validateQueue(queue);
        ScheduleSpec.validateId(id);
        int partitions = Protocol.partitions(client, queue);
        return new Target(queue, id, Protocol.partitionOf(id, partitions), partitions);
    }

    record Read(long nowMs, @Nullable Definition definition, @Nullable State state) {
    }

    Read read(Target target) {
        List<Object> out = target.run("read");
        String definition = out.get(1).toString();
        return new Read(Long.parseLong(out.get(0).toString()), definition.isEmpty() ? null : Definition.parse(definition),
                State.parse(out.get(2).toString()));
    }

    static Map<String, String> tickHeaders(String id, long tickMs, int catchUp) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(SCHEDULE_HEADER, id);
        headers.put(TICK_HEADER, Long.toString(tickMs));
        if (catchUp > 0) {
            headers.put(CATCH_UP_HEADER, Integer.toString(catchUp));
        }
        return headers;
    }

    static String body(String id, long tickMs, int catchUp, String payloadJson) {
        return Protocol.body(tickHeaders(id, tickMs, catchUp), payloadJson);
    }

    private ScheduleInfo info(String queue, String id, Definition definition, State state) {
        Instant next = state.tickId().isEmpty() ? null : Instant.ofEpochMilli(state.cursor());
        return new ScheduleInfo(definition.spec(queue, id), definition.origin().equals(Definition.DECLARED), next,
                state.paused(), lastRun(state));
    }

    /** The instant of the latest tick whose handler was let run, from its message id; null if none. */
    static @Nullable Instant lastRun(State state) {
        int at = state.running().lastIndexOf('@');
        if (at >= 0) {
            String tail = state.running().substring(at + 1);
            int tilde = tail.indexOf('~');
            String digits = tilde < 0 ? tail : tail.substring(0, tilde);
            if (!digits.isEmpty() && digits.chars().allMatch(Character::isDigit)) {
                return Instant.ofEpochMilli(Long.parseLong(digits));
            }
        }
        return null;
    }

    /** One schedule's partition of its queue: its keys, and tick ids that land in it. */
    final class Target {
        final String queue;
        final String id;
        final int partition;
        final int partitions;
        private final List<Object> keys;
        private final String wake;

        Target(String queue, String id, int partition, int partitions) {
            this.queue = queue;
            this.id = id;
            this.partition = partition;
            this.partitions = partitions;
            this.keys = Protocol.keys(client, queue, partition, KEYS);
            this.wake = Protocol.wakeChannel(client, queue, partition);
        }

        /**
         * The message id of a tick: {@code <schedule>@<suffix>}, or {@code <schedule>@<suffix>~<k>} with the smallest
         * {@code k} that puts it in this schedule's partition (the rule of docs/internals/redis-layout.md), so that the schedule's
         * state and its ticks are in one slot.
         */
        String tickId(String suffix) {
            String base = id + "@" + suffix;
            for (int k = 0; ; k++) {
                String candidate = k == 0 ? base : base + "~" + k;
                if (Protocol.partitionOf(candidate, partitions) == partition) {
                    return candidate;
                }
            }
        }

        List<Object> run(String op, Object... args) {
            Object[] all = new Object[args.length + 3];
            all[0] = wake;
            all[1] = op;
            all[2] = id;
            System.arraycopy(args, 0, all, 3, args.length);
            return Protocol.run(client, keys, all);
        }
    }

    private <R> R redis(Target target, String what, Supplier<R> call) {
        return redis(target.queue, what, call);
    }

    private <R> R redis(String queue, String what, Supplier<R> call) {
        try {
            Protocol.checkPartitions(client, queue);
            return call.get();
        } catch (IllegalArgumentException | DelayQueueException | io.github.delayqueue.core.PartitionCountException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new DelayQueueException("could not " + what + ": " + e, e);
        }
    }

    static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    /** Builder of {@link Schedules}. */
    public static final class Builder {
        private final DelayQueueClient client;
        private final Map<String, TickFunction.Factory> kinds = new LinkedHashMap<>();
        private ScheduleListener listener = ScheduleListener.NONE;

        private Builder(DelayQueueClient client) {
            require(client != null, "client must not be null");
            this.client = client;
            kinds.put("every", FixedRate.FACTORY);
        }

        /** Registers a kind of schedule, such as {@code cron}, by the factory of its tick functions. */
        public Builder kind(String kind, TickFunction.Factory factory) {
            require(kind != null && kind.matches("[a-z][a-z0-9-]{0,30}"), "kind must be a lower-case name, was '" + kind + "'");
            require(factory != null, "factory must not be null");
            kinds.put(kind, factory);
            return this;
        }

        public Builder listener(ScheduleListener listener) {
            require(listener != null, "listener must not be null");
            this.listener = listener;
            return this;
        }

        public Schedules build() {
            return new Schedules(this);
        }
    }
}
