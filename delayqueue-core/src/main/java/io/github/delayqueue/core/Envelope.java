package io.github.delayqueue.core;

import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The stored form of a message. Redis holds {@code "2<seq8><enqueued8><body>"}; the scripts write the
 * prefix, Java writes the body {@code "<headersLength>:<headersJson><payloadJson>"}. {@code <seq8>} and
 * {@code <enqueued8>} (milliseconds, Redis clock) are 8 digits of an order-preserving base-64 alphabet.
 * The leading character is the format version: format 1, {@code "1:<seq12>:<enqueuedMs>:<body>"} with
 * hex and decimal numbers, is still read, so an upgrade never strands pending messages. Format 2 is 12
 * bytes shorter, which puts a 100-byte payload into a smaller allocation class in Redis.
 */
record Envelope(Instant enqueuedAt, Map<String, String> headers, String payload) {

    private static final JsonMapper HEADERS_JSON = JsonMapper.builder().build();
    private static final TypeReference<Map<String, String>> HEADERS_TYPE = new TypeReference<>() {
    };

    /** Characters the enqueue script puts before the body: the version, {@code <seq8>} and {@code <enqueued8>}. */
    static final int PREFIX_LENGTH = 17;

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
    static Envelope parse(@Nullable String stored) {
        boolean v2 = stored != null && stored.startsWith("2");
        if (stored == null || !(v2 || stored.startsWith("1:"))) {
            throw new IllegalArgumentException("unknown envelope format: " + abbreviate(stored));
        }
        try {
            long enqueuedMs;
            int bodyStart;
            if (v2) {
                enqueuedMs = decode64(stored, 9, 17); // "2" + 8 sequence digits, then 8 time digits
                bodyStart = 17;
            } else {
                int enqueuedStart = 15; // "1:" + 12 hex digits + ":"
                int enqueuedEnd = stored.indexOf(':', enqueuedStart);
                enqueuedMs = Long.parseLong(stored, enqueuedStart, enqueuedEnd, 10);
                bodyStart = enqueuedEnd + 1;
            }
            int lengthEnd = stored.indexOf(':', bodyStart);
            int headersLength = Integer.parseInt(stored, bodyStart, lengthEnd, 10);
            int headersEnd = lengthEnd + 1 + headersLength;
            Map<String, String> headers = headersLength == 0 ? Map.of()
                    : Map.copyOf(HEADERS_JSON.readValue(stored.substring(lengthEnd + 1, headersEnd), HEADERS_TYPE));
            return new Envelope(Instant.ofEpochMilli(enqueuedMs), headers, stored.substring(headersEnd));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("corrupt envelope: " + abbreviate(stored), e);
        }
    }

    /** The message id in a sorted-set member: {@code "~<seq8><id>"}, or {@code "<seq12><id>"} (format 1). */
    static String idOf(String member) {
        return member.startsWith("~") ? member.substring(9) : member.substring(12);
    }

    /** The order-preserving base-64 alphabet of the scripts' {@code encode8}, in ASCII order. */
    static final String DIGITS64 = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";

    static long decode64(String s, int from, int to) {
        long n = 0;
        for (int i = from; i < to; i++) {
            int digit = DIGITS64.indexOf(s.charAt(i));
            if (digit < 0) {
                throw new IllegalArgumentException("not a base-64 digit: " + s.charAt(i));
            }
            n = n * 64 + digit;
        }
        return n;
    }

    private static String abbreviate(@Nullable String s) {
        if (s == null) {
            return "null";
        }
        return s.length() <= 120 ? s : s.substring(0, 120) + "…";
    }
}
