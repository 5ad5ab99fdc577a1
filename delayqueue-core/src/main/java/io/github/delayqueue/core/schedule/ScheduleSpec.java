package io.github.delayqueue.core.schedule;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Objects;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * What a schedule is: the queue its ticks go to, its id (unique within the queue), its kind and expression
 * ({@code every} with an ISO-8601 duration, {@code cron} with a cron expression, or a kind of your own registered
 * with {@link Schedules.Builder#kind}), the zone its expression is read in, the payload of every tick, and what it
 * does with missed ticks and overlapping runs. Built with {@link #every} or {@link #cron}; the checks that need the
 * client (the expression, the payload) run in {@link Schedules#put}, which writes nothing when they fail.
 */
public final class ScheduleSpec {

    /** Longest schedule id: tick ids are {@code <id>@<epochMs>} plus a few characters, within the id limit. */
    public static final int MAX_ID_LENGTH = 200;

    /** Most missed ticks {@link Misfire#FIRE_ALL} may run after one outage. */
    public static final int MAX_CATCH_UP = 10_000;

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.:\\-]{1," + MAX_ID_LENGTH + "}");

    private final String queue;
    private final String id;
    private final String kind;
    private final String expression;
    private final ZoneId zone;
    private final @Nullable Object payload;
    private final @Nullable String payloadJson;
    private final Misfire misfire;
    private final int catchUpLimit;
    private final Overlap overlap;

    private ScheduleSpec(Builder b) {
        this.queue = b.queue;
        this.id = b.id;
        this.kind = b.kind;
        this.expression = b.expression;
        this.zone = b.zone;
        this.payload = b.payload;
        this.payloadJson = b.payloadJson;
        this.misfire = b.misfire;
        this.catchUpLimit = b.catchUpLimit;
        this.overlap = b.overlap;
    }

    /** A fixed-rate schedule: ticks at every multiple of {@code period} since the epoch (see docs/guides/recurring-jobs.md). */
    public static Builder every(String queue, String id, Duration period) {
        require(period != null, "period must not be null");
        FixedRate.parse(period.toString());
        return new Builder(queue, id, "every", period.toString());
    }

    /** A cron schedule: {@code expression} as the registered {@code cron} kind reads it (Spring's CronExpression in the starter). */
    public static Builder cron(String queue, String id, String expression) {
        return new Builder(queue, id, "cron", expression);
    }

    /** A schedule of any registered kind. */
    public static Builder of(String queue, String id, String kind, String expression) {
        return new Builder(queue, id, kind, expression);
    }

    public String queue() {
        return queue;
    }

    public String id() {
        return id;
    }

    public String kind() {
        return kind;
    }

    public String expression() {
        return expression;
    }

    /** The zone the expression is read in; {@code ZoneId.of("UTC")} unless set (as in yaml), so every instance agrees whatever its default zone. */
    public ZoneId zone() {
        return zone;
    }

    /** The payload object given to {@link Builder#payload(Object)}, or null. */
    public @Nullable Object payload() {
        return payload;
    }

    /** The payload as JSON: given with {@link Builder#payloadJson}, or read back from Redis; null when an object (or none) was given. */
    public @Nullable String payloadJson() {
        return payloadJson;
    }

    public Misfire misfire() {
        return misfire;
    }

    /** Most missed ticks {@link Misfire#FIRE_ALL} runs after one outage (default 100). */
    public int catchUpLimit() {
        return catchUpLimit;
    }

    public Overlap overlap() {
        return overlap;
    }

    @Override
    public String toString() {
        return "ScheduleSpec[" + queue + "/" + id + " " + kind + " '" + expression + "' " + zone + ", misfire " + misfire
                + (misfire == Misfire.FIRE_ALL ? " up to " + catchUpLimit : "") + ", overlap " + overlap + "]";
    }

    static void validateId(@Nullable String id) {
        require(id != null && ID.matcher(id).matches(), "schedule id must be 1 to " + MAX_ID_LENGTH
                + " characters of A-Z a-z 0-9 _ . : -, was '" + id + "'");
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    /** Builder of a {@link ScheduleSpec}; each setter checks its argument. */
    public static final class Builder {
        private final String queue;
        private final String id;
        private final String kind;
        private final String expression;
        private ZoneId zone = ZoneId.of("UTC");
        private @Nullable Object payload;
        private @Nullable String payloadJson;
        private Misfire misfire = Misfire.FIRE_ONCE;
        private int catchUpLimit = 100;
        private Overlap overlap = Overlap.ALLOW;

        private Builder(String queue, String id, String kind, String expression) {
            Protocol.validateQueue(queue);
            validateId(id);
            require(kind != null && kind.matches("[a-z][a-z0-9-]{0,30}"), "kind must be a lower-case name such as 'cron' or 'every', was '" + kind + "'");
            require(expression != null && !expression.isBlank(), "expression must not be null or blank");
            this.queue = queue;
            this.id = id;
            this.kind = kind;
            this.expression = expression.trim();
        }

        public Builder zone(ZoneId zone) {
            require(zone != null, "zone must not be null");
            this.zone = zone;
            return this;
        }

        /**
         * The payload of every tick, encoded by the client's codec. Required (this or {@link #payloadJson}): a
         * schedule without one, or with one that encodes to JSON {@code null}, is refused by {@link Schedules#put}.
         */
        public Builder payload(@Nullable Object payload) {
            this.payload = payload;
            this.payloadJson = null;
            return this;
        }

        /** The payload of every tick as JSON text, as in yaml; checked to be JSON when the schedule is put. */
        public Builder payloadJson(String json) {
            require(json != null && !json.isBlank(), "payload JSON must not be null or blank");
            this.payloadJson = json;
            this.payload = null;
            return this;
        }

        public Builder misfire(Misfire misfire) {
            require(misfire != null, "misfire must not be null");
            this.misfire = misfire;
            return this;
        }

        /** Most missed ticks {@link Misfire#FIRE_ALL} runs after one outage: 1 to {@value ScheduleSpec#MAX_CATCH_UP}. */
        public Builder catchUpLimit(int limit) {
            require(limit >= 1 && limit <= MAX_CATCH_UP, "catch-up limit must be between 1 and " + MAX_CATCH_UP
                    + ", was " + limit);
            this.catchUpLimit = limit;
            return this;
        }

        public Builder overlap(Overlap overlap) {
            require(overlap != null, "overlap must not be null");
            this.overlap = overlap;
            return this;
        }

        public ScheduleSpec build() {
            return new ScheduleSpec(this);
        }
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof ScheduleSpec s && queue.equals(s.queue) && id.equals(s.id) && kind.equals(s.kind)
                && expression.equals(s.expression) && zone.equals(s.zone) && Objects.equals(payload, s.payload)
                && Objects.equals(payloadJson, s.payloadJson) && misfire == s.misfire && catchUpLimit == s.catchUpLimit
                && overlap == s.overlap;
    }

    @Override
    public int hashCode() {
        return Objects.hash(queue, id, kind, expression, zone, payloadJson, misfire, catchUpLimit, overlap);
    }
}
