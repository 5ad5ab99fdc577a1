package io.github.delayqueue.core;

import java.time.Instant;
import java.util.Map;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The stored form of a message. Redis holds {@code "1:<seq12>:<enqueuedMs>:<body>"}; the scripts write
 * the prefix, Java writes the body {@code "<headersLength>:<headersJson><payloadJson>"}. The leading
 * {@code 1} is the format version: a new format gets a new number and this class keeps reading the
 * old ones, so an upgrade never strands pending messages.
 */
record Envelope(Instant enqueuedAt, Map<String, String> headers, String payload) {

    private static final JsonMapper HEADERS_JSON = JsonMapper.builder().build();
    private static final TypeReference<Map<String, String>> HEADERS_TYPE = new TypeReference<>() {
    };

    /** The body Java hands to the enqueue script. */
    static String body(Map<String, String> headers, String payloadJson) {
        if (headers.isEmpty()) {
            return "0:" + payloadJson;
        }
        String json = HEADERS_JSON.writeValueAsString(headers);
        return json.length() + ":" + json + payloadJson;
    }

    /**
     * Reads any known format version.
     *
     * @throws IllegalArgumentException if the stored value is not an envelope this release can read
     */
    static Envelope parse(String stored) {
        if (stored == null || !stored.startsWith("1:")) {
            throw new IllegalArgumentException("unknown envelope format: " + abbreviate(stored));
        }
        try {
            int enqueuedStart = 15; // "1:" + 12 hex digits + ":"
            int enqueuedEnd = stored.indexOf(':', enqueuedStart);
            long enqueuedMs = Long.parseLong(stored, enqueuedStart, enqueuedEnd, 10);
            int lengthEnd = stored.indexOf(':', enqueuedEnd + 1);
            int headersLength = Integer.parseInt(stored, enqueuedEnd + 1, lengthEnd, 10);
            int headersEnd = lengthEnd + 1 + headersLength;
            Map<String, String> headers = headersLength == 0 ? Map.of()
                    : Map.copyOf(HEADERS_JSON.readValue(stored.substring(lengthEnd + 1, headersEnd), HEADERS_TYPE));
            return new Envelope(Instant.ofEpochMilli(enqueuedMs), headers, stored.substring(headersEnd));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("corrupt envelope: " + abbreviate(stored), e);
        }
    }

    private static String abbreviate(String s) {
        if (s == null) {
            return "null";
        }
        return s.length() <= 120 ? s : s.substring(0, 120) + "…";
    }
}
