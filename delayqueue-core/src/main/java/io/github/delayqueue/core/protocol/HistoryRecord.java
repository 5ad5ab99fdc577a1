package io.github.delayqueue.core.protocol;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.history.SettledMessage;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one owner of a history record's format (includes/history.lua stores it without reading it): a JSON object written
 * by the engine when it settles a message of a queue that keeps its history, read back by {@code status}.
 * {@code {"v":1,"o":"completed"|"dead","d":<due ms>,"c":<claimed ms>,"a":<attempts>,"i":"<instance>","t":<ms>,
 * "g":"<group>","r":"<reason>"}}; {@code g} and {@code r} only when there is one. When it was settled is the score of
 * {@code history-at}, on the Redis clock.
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

    private static String quoted(String text) {
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
        StringBuilder json = new StringBuilder(96 + INSTANCE_JSON.length() + (group == null ? 0 : group.length() + 8)
                + (reason == null ? 0 : reason.length() + 8));
        json.append(dead ? "{\"v\":1,\"o\":\"dead\",\"d\":" : "{\"v\":1,\"o\":\"completed\",\"d\":").append(dueMs)
                .append(",\"c\":").append(claimedMs).append(",\"a\":").append(attempts).append(",\"i\":")
                .append(INSTANCE_JSON).append(",\"t\":").append(tookMs);
        if (group != null) {
            Envelope.quote(json.append(",\"g\":"), group);
        }
        if (reason != null) {
            Envelope.quote(json.append(",\"r\":"), reason);
        }
        return json.append('}').toString();
    }

    /** Reads a record kept for {@code id}, settled at {@code settledMs}; null when it is not one this class wrote. */
    public static @Nullable SettledMessage read(String id, String text, long settledMs) {
        try {
            Map<String, Object> record = JSON.readValue(text, MAP);
            if (!(record.get("o") instanceof String outcome) || !(record.get("d") instanceof Number due)
                    || !(record.get("c") instanceof Number claimed) || !(record.get("a") instanceof Number attempts)
                    || !(record.get("t") instanceof Number took)) {
                return null;
            }
            return new SettledMessage(id, outcome.equals("dead") ? SettledMessage.Outcome.DEAD_LETTERED
                    : SettledMessage.Outcome.COMPLETED, Instant.ofEpochMilli(settledMs), Instant.ofEpochMilli(due.longValue()),
                    Instant.ofEpochMilli(claimed.longValue()), attempts.intValue(),
                    record.get("i") instanceof String instance ? instance : "unknown", Duration.ofMillis(took.longValue()),
                    record.get("g") instanceof String group ? group : null,
                    record.get("r") instanceof String reason ? reason : null);
        } catch (JacksonException e) {
            return null;
        }
    }
}
