package io.github.delayqueue.core.protocol;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.history.RunningMessage;
import io.github.delayqueue.core.history.SettledMessage;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one owner of a history record's format (includes/history.lua stores it without reading it): a JSON object written
 * by the engine when it settles a message of a queue that keeps its history, read back by {@code status}.
 * {@code {"v":1,"o":"completed"|"dead","d":<due ms>,"c":<claimed ms>,"a":<attempts>,"i":"<instance>","t":<ms>,
 * "g":"<group>","r":"<reason>","res":<result JSON>,"p":<progress JSON>}}; {@code g}, {@code r}, {@code res} and
 * {@code p} only when there is one. When it was settled is the score of {@code history-at}, on the Redis clock.
 * Two more outcomes share the shape: {@code "running"} (a delivery under way, {@link #writeRunning}, {@code t} 0, read by
 * {@link #running}) and {@code "cancelled"} (a running record a cancel
 * marked, {@code t} the time since its claim).
 */
public final class HistoryRecord {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };
    /** This JVM as a record names it: {@code <pid>@<host>}, as the JVM names itself. */
    public static final String INSTANCE = instance();
    /** {@link #INSTANCE} as a JSON string, quoted once. */
    private static final String INSTANCE_JSON = quoted(INSTANCE);

    private HistoryRecord() {
    }

    /** {@code text} as a JSON string, quotes included ({@link Envelope}'s quoting, as Jackson escapes). */
    public static String quoted(String text) {
        StringBuilder json = new StringBuilder(text.length() + 2);
        Envelope.quote(json, text);
        return json.toString();
    }

    private static String instance() {
        try {
            return ManagementFactory.getRuntimeMXBean().getName();
        } catch (RuntimeException | Error e) {
            return "unknown";
        }
    }

    /**
     * The record of a delivery settled as {@code dead} or not: due and claimed times (ms, Redis clock), the attempt it
     * was, how long it took from its dispatch to its outcome, its group and a dead letter's reason. Written by hand
     * rather than through a map and Jackson, once per settled message: the map and the generator were most of the
     * engine's own cost of keeping a history. Strings are escaped as Jackson escapes them ({@link Envelope}'s quoting);
     * {@link #read} reads the record with Jackson.
     */
    public static String write(boolean dead, long dueMs, long claimedMs, int attempts, long tookMs, @Nullable String group,
            @Nullable String reason) {
        return write(dead, dueMs, claimedMs, attempts, tookMs, group, reason, null, null);
    }

    /** As above, with the handler's result and last progress (JSON the engine encoded), either null when none. */
    public static String write(boolean dead, long dueMs, long claimedMs, int attempts, long tookMs, @Nullable String group,
            @Nullable String reason, @Nullable String result, @Nullable String progress) {
        StringBuilder json = new StringBuilder(96 + INSTANCE_JSON.length() + (group == null ? 0 : group.length() + 8)
                + (reason == null ? 0 : reason.length() + 8) + (result == null ? 0 : result.length() + 8)
                + (progress == null ? 0 : progress.length() + 6));
        json.append(dead ? "{\"v\":1,\"o\":\"dead\",\"d\":" : "{\"v\":1,\"o\":\"completed\",\"d\":").append(dueMs)
                .append(",\"c\":").append(claimedMs).append(",\"a\":").append(attempts).append(",\"i\":")
                .append(INSTANCE_JSON).append(",\"t\":").append(tookMs);
        if (group != null) {
            Envelope.quote(json.append(",\"g\":"), group);
        }
        if (reason != null) {
            Envelope.quote(json.append(",\"r\":"), reason);
        }
        // the values are JSON already (encoded by the consumer's codec, checked by the engine): spliced in as they are
        if (result != null) {
            json.append(",\"res\":").append(result);
        }
        if (progress != null) {
            json.append(",\"p\":").append(progress);
        }
        return json.append('}').toString();
    }

    /**
     * The running record of a delivery under way (running.lua writes it, includes/history.lua reads its fixed head):
     * {@code {"v":1,"o":"running","d":<due ms>,"c":<claimed ms>,"a":<attempt>,"i":"<instance>","t":0}}.
     */
    public static String writeRunning(long dueMs, long claimedMs, int attempt) {
        return new StringBuilder(72 + INSTANCE_JSON.length()).append("{\"v\":1,\"o\":\"running\",\"d\":").append(dueMs)
                .append(",\"c\":").append(claimedMs).append(",\"a\":").append(attempt).append(",\"i\":")
                .append(INSTANCE_JSON).append(",\"t\":0}").toString();
    }

    /**
     * The running record in {@code text} ({@link #writeRunning}'s, with its progress) when it is that of the delivery
     * {@code attempt} under way, whose lease runs until {@code leaseMs}; else null (another record, or unreadable).
     */
    public static @Nullable RunningMessage running(String text, int attempt, long leaseMs) {
        Map<String, Object> record = parse(text);
        if (record == null || !"running".equals(record.get("o")) || !(record.get("c") instanceof Number claimed)
                || !(record.get("a") instanceof Number attempts) || attempts.intValue() != attempt) {
            return null;
        }
        return new RunningMessage(record.get("i") instanceof String instance ? instance : "unknown",
                Instant.ofEpochMilli(claimed.longValue()), Instant.ofEpochMilli(leaseMs), attempt, json(record.get("p")));
    }

    private static @Nullable Map<String, Object> parse(String text) {
        try {
            return JSON.readValue(text, MAP);
        } catch (JacksonException e) {
            return null;
        }
    }

    private static final JsonMapper STRICT = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    /**
     * Whether {@code text} is one JSON value, as a record splices a result or progress in (a codec for another format
     * gives text that is not: the engine then keeps it as a JSON string).
     */
    public static boolean isJson(String text) {
        try {
            STRICT.readTree(text);
            return true;
        } catch (JacksonException e) {
            return false;
        }
    }

    /** A value read back from a record as the JSON text it was written as; null when absent. */
    private static @Nullable String json(@Nullable Object value) {
        return value == null ? null : JSON.writeValueAsString(value);
    }

    /**
     * Reads a record kept for {@code id}, settled at {@code settledMs}; null when it is not one of a settled message
     * (a running record, or one this class cannot read).
     */
    public static @Nullable SettledMessage read(String id, String text, long settledMs) {
        Map<String, Object> record = parse(text);
        if (record == null || !(record.get("o") instanceof String outcome) || !(record.get("d") instanceof Number due)
                || !(record.get("c") instanceof Number claimed) || !(record.get("a") instanceof Number attempts)
                || !(record.get("t") instanceof Number took)) {
            return null;
        }
        SettledMessage.Outcome settled = switch (outcome) {
            case "completed" -> SettledMessage.Outcome.COMPLETED;
            case "dead" -> SettledMessage.Outcome.DEAD_LETTERED;
            case "cancelled" -> SettledMessage.Outcome.CANCELLED;
            default -> null; // running: not settled
        };
        if (settled == null) {
            return null;
        }
        return new SettledMessage(id, settled, Instant.ofEpochMilli(settledMs), Instant.ofEpochMilli(due.longValue()),
                Instant.ofEpochMilli(claimed.longValue()), attempts.intValue(),
                record.get("i") instanceof String instance ? instance : "unknown", Duration.ofMillis(took.longValue()),
                record.get("g") instanceof String group ? group : null,
                record.get("r") instanceof String reason ? reason : null, json(record.get("res")), json(record.get("p")));
    }
}
