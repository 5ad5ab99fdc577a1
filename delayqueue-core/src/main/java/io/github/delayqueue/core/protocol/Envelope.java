package io.github.delayqueue.core.protocol;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
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
public record Envelope(Instant enqueuedAt, Map<String, String> headers, String payload, @Nullable String group,
        int priority) {

    /** An envelope of a message of the default priority (the constructor of releases before priorities). */
    public Envelope(Instant enqueuedAt, Map<String, String> headers, String payload, @Nullable String group) {
        this(enqueuedAt, headers, payload, group, DEFAULT_PRIORITY);
    }

    /** An envelope of an ungrouped message of the default priority. */
    public Envelope(Instant enqueuedAt, Map<String, String> headers, String payload) {
        this(enqueuedAt, headers, payload, null, DEFAULT_PRIORITY);
    }

    /** The priority of a message whose envelope carries none ({@code SendOptions.DEFAULT_PRIORITY}). */
    public static final int DEFAULT_PRIORITY = 4;

    private static final JsonMapper HEADERS_JSON = JsonMapper.builder().build();
    private static final TypeReference<Map<String, String>> HEADERS_TYPE = new TypeReference<>() {
    };

    /**
     * The header carrying a send's dedup window (milliseconds), written first among the headers so that the scripts
     * find it at a fixed place ({@code includes/remember.lua}); never shown to handlers or in reads. The same name as
     * {@code SendOptions.DEDUP_WINDOW_HEADER}.
     */
    public static final String DEDUP_WINDOW_HEADER = "dq-dedup-window";

    /**
     * The header carrying a send's expiry (epoch ms, or {@code +<ms>} after the enqueue time), written right after the
     * dedup window (or first without one) so that the scripts find it at a fixed place ({@code includes/format.lua});
     * never shown to handlers or in reads. The same name as {@code SendOptions.EXPIRES_HEADER}.
     */
    public static final String EXPIRES_HEADER = "dq-expires";

    /**
     * The header that carries a message's group (fair shares per group, includes/groups.lua), after the dedup window
     * and the expiry and before the caller's headers; never shown to handlers or in reads. The same name as
     * {@code SendOptions.GROUP_HEADER}.
     */
    public static final String GROUP_HEADER = "dq-group";

    /**
     * The header that carries the job set a message belongs to ({@code io.github.delayqueue.core.sets}), after the
     * group and before the caller's headers; unlike the other reserved headers it stays among the headers a handler and
     * a read see (a member reads its set there). The scripts find it by its name ({@code includes/format.lua}'s
     * set_in). The same name as {@code JobSet.SET_HEADER}.
     */
    public static final String SET_HEADER = "dq-set";

    /**
     * The header that carries a priority other than {@link #DEFAULT_PRIORITY} (one digit), after the group (never with
     * one) and before the set; never shown to handlers or in reads. The scripts find it by its name
     * ({@code includes/format.lua}'s priority_in). The same name as {@code SendOptions.PRIORITY_HEADER}.
     */
    public static final String PRIORITY_HEADER = "dq-priority";

    private static final String SET_AT = "\"" + SET_HEADER + "\":\"";

    /**
     * The job set a stored envelope's message belongs to, or null: one character compared for a message without
     * headers, one search of its headers otherwise.
     */
    public static @Nullable String setOf(String stored) {
        if (stored.length() <= PREFIX_LENGTH || stored.charAt(0) != '2' || stored.charAt(PREFIX_LENGTH) == '0') {
            return null;
        }
        int colon = stored.indexOf(':', PREFIX_LENGTH);
        if (colon < 0) {
            return null;
        }
        int end;
        try {
            end = Math.min(stored.length(), colon + 1 + Integer.parseInt(stored, PREFIX_LENGTH, colon, 10));
        } catch (NumberFormatException e) {
            return null;
        }
        int at = -1;
        for (int i = stored.indexOf('"', colon); i >= 0 && i + SET_AT.length() <= end; i = stored.indexOf('"', i + 1)) {
            if (stored.startsWith(SET_AT, i)) { // within the headers only: a payload is never searched
                at = i;
                break;
            }
        }
        if (at < 0) {
            return null;
        }
        int from = at + SET_AT.length();
        int to = stored.indexOf('"', from);
        return to <= from || to > end ? null : stored.substring(from, to);
    }

    /** Characters the enqueue script puts before the body: the version, {@code <seq8>} and {@code <enqueued8>}. */
    public static final int PREFIX_LENGTH = 17;

    private static final String WINDOW_AT_HEADERS_START = "{\"" + DEDUP_WINDOW_HEADER + "\":\"";

    /**
     * Whether a stored envelope certainly carries no dedup window: format 2 with no headers, or with headers that do
     * not start with the window (where {@code Sends} writes it and {@code includes/remember.lua} looks for it). The
     * settle script then skips the look-up of the id in the queue's windows hash (an ack of such a delivery is sent as
     * {@code 'a'}, see settle.lua): a message has an entry there exactly while its envelope carries a window. False
     * when in doubt (format 1, a body this release does not write).
     */
    public static boolean holdsNoDedupWindow(String stored) {
        if (stored.length() <= PREFIX_LENGTH || stored.charAt(0) != '2') {
            return false;
        }
        if (stored.charAt(PREFIX_LENGTH) == '0') {
            return true; // "0:": no headers
        }
        int colon = stored.indexOf(':', PREFIX_LENGTH);
        return colon > 0 && !stored.startsWith(WINDOW_AT_HEADERS_START, colon + 1);
    }

    /**
     * The headers to store: the reserved ones first, each only when set, in the order the scripts read them at fixed
     * places ({@code includes/format.lua}: the dedup window, the expiry, the group), then the caller's.
     *
     * @param dedupWindowMs the dedup window, ms, or null
     * @param expiry        the expiry header's value (epoch ms, or {@code +<ms>} after the enqueue time), or null
     * @param group         the group, or null
     */
    public static Map<String, String> withReserved(@Nullable Long dedupWindowMs, @Nullable String expiry,
            @Nullable String group, Map<String, String> headers) {
        return withReserved(dedupWindowMs, expiry, group, null, headers);
    }

    /** {@link #withReserved(Long, String, String, Map)}, and the job set after the group ({@link #SET_HEADER}). */
    public static Map<String, String> withReserved(@Nullable Long dedupWindowMs, @Nullable String expiry,
            @Nullable String group, @Nullable String set, Map<String, String> headers) {
        return withReserved(dedupWindowMs, expiry, group, DEFAULT_PRIORITY, set, headers);
    }

    /**
     * {@link #withReserved(Long, String, String, String, Map)}, and a priority other than {@link #DEFAULT_PRIORITY}
     * after the group ({@link #PRIORITY_HEADER}).
     */
    public static Map<String, String> withReserved(@Nullable Long dedupWindowMs, @Nullable String expiry,
            @Nullable String group, int priority, @Nullable String set, Map<String, String> headers) {
        if (dedupWindowMs == null && expiry == null && group == null && set == null && priority == DEFAULT_PRIORITY) {
            return headers;
        }
        Map<String, String> all = new java.util.LinkedHashMap<>();
        if (dedupWindowMs != null) {
            all.put(DEDUP_WINDOW_HEADER, Long.toString(dedupWindowMs));
        }
        if (expiry != null) {
            all.put(EXPIRES_HEADER, expiry);
        }
        if (group != null) {
            all.put(GROUP_HEADER, group);
        }
        if (priority != DEFAULT_PRIORITY) {
            all.put(PRIORITY_HEADER, Integer.toString(priority));
        }
        if (set != null) {
            all.put(SET_HEADER, set);
        }
        all.putAll(headers);
        return all;
    }

    /**
     * The reserved headers a body ({@code <length>:{...}<payload>}, as {@link #body} writes it) carries where the
     * scripts read them.
     *
     * @param dedupWindowMs the dedup window, or null (not a number: 0)
     * @param group         the group, or null
     * @param priority      the priority header's value as written (one digit when a release wrote it), or null
     */
    public record Reserved(@Nullable Long dedupWindowMs, @Nullable String group, @Nullable String priority) {

        /** Reserved headers without a priority. */
        public Reserved(@Nullable Long dedupWindowMs, @Nullable String group) {
            this(dedupWindowMs, group, null);
        }
    }

    private static final String PRIORITY_AT = "\"" + PRIORITY_HEADER + "\":\"";

    private static final String GROUP_AT = "\"" + GROUP_HEADER + "\":\"";

    /**
     * Reads the reserved headers of a body from outside (a restored {@code PreparedSend}): the dedup window only as the
     * first header, the group only once, as a JSON string, and the priority; the values are the caller's to check.
     *
     * @throws IllegalArgumentException naming what is misplaced ("a dedup window elsewhere than as its first header")
     */
    public static Reserved reservedOf(String body) {
        int colon = body.indexOf(':');
        int headersEnd = colon < 0 ? 0 : Math.min(body.length(), colon + 1 + Integer.parseInt(body, 0, colon, 10));
        String headers = colon < 0 ? "" : body.substring(colon + 1, headersEnd);
        Long window = null;
        if (headers.startsWith(WINDOW_AT_HEADERS_START)) {
            int from = WINDOW_AT_HEADERS_START.length();
            int to = headers.indexOf('"', from);
            try {
                window = Long.parseLong(headers, from, to < 0 ? from : to, 10);
            } catch (NumberFormatException e) {
                window = 0L;
            }
        } else if (headers.contains("\"" + DEDUP_WINDOW_HEADER + "\"")) {
            throw new IllegalArgumentException("a dedup window elsewhere than as its first header");
        }
        String group = null;
        int at = headers.indexOf(GROUP_AT);
        if (at < 0) {
            if (headers.contains("\"" + GROUP_HEADER + "\"")) {
                throw new IllegalArgumentException("a group header that is not a JSON string");
            }
        } else {
            int to = headers.indexOf('"', at + GROUP_AT.length());
            if (to < 0) {
                throw new IllegalArgumentException("a group header that does not end");
            }
            if (headers.indexOf(GROUP_AT, to) >= 0) {
                throw new IllegalArgumentException("two group headers");
            }
            group = headers.substring(at + GROUP_AT.length(), to);
        }
        String priority = null;
        int p = headers.indexOf(PRIORITY_AT);
        if (p >= 0) {
            int to = headers.indexOf('"', p + PRIORITY_AT.length());
            priority = to < 0 ? headers.substring(p + PRIORITY_AT.length()) : headers.substring(p + PRIORITY_AT.length(), to);
        }
        return new Reserved(window, group, priority);
    }

    /** The body Java hands to the enqueue script. */
    public static String body(Map<String, String> headers, String payloadJson) {
        if (headers.isEmpty()) {
            return "0:" + payloadJson;
        }
        String json = headersJson(headers);
        return json.length() + ":" + json + payloadJson;
    }

    /**
     * The headers as a JSON object, character for character as Jackson writes them (the same escapes), without
     * Jackson's per-call cost: with tracing, every message carries a {@code traceparent} header, so this runs once
     * per message sent.
     */
    static String headersJson(Map<String, String> headers) {
        StringBuilder out = new StringBuilder(2 + 80 * headers.size());
        out.append('{');
        for (Map.Entry<String, String> header : headers.entrySet()) {
            String name = header.getKey();
            String value = header.getValue();
            if (name == null || value == null) { // SendOptions rejects these; Jackson writes what it writes
                return HEADERS_JSON.writeValueAsString(headers);
            }
            if (out.length() > 1) {
                out.append(',');
            }
            quote(out, name);
            out.append(':');
            quote(out, value);
        }
        return out.append('}').toString();
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /**
     * A JSON string as Jackson's default generator escapes it: quote, backslash and control characters (also
     * {@link HistoryRecord}'s).
     */
    static void quote(StringBuilder out, String text) {
        out.append('"');
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                continue;
            }
            out.append(text, start, i);
            start = i + 1;
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\f' -> out.append("\\f");
                case '\r' -> out.append("\\r");
                default -> out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        out.append(text, start, text.length()).append('"');
    }

    /**
     * The headers stored between {@code from} and {@code to}: a flat object of strings is read here (once per
     * delivery with tracing: the {@code traceparent}); anything else (other whitespace, other value types,
     * malformed text) goes to Jackson, which reads or rejects it as it always did.
     */
    static Map<String, String> readHeaders(String stored, int from, int to) {
        Map<String, String> read = new FlatObjectReader(stored, from, to).read();
        return read != null ? read
                : Map.copyOf(HEADERS_JSON.readValue(stored.substring(from, to), HEADERS_TYPE));
    }

    /** Reads {@code {"name":"value",...}} with JSON's string escapes; null for anything else. */
    private static final class FlatObjectReader {
        private final String s;
        private final int to;
        private int i;

        FlatObjectReader(String s, int from, int to) {
            this.s = s;
            this.i = from;
            this.to = to;
        }

        @Nullable Map<String, String> read() {
            if (!take('{')) {
                return null;
            }
            if (take('}')) {
                return i == to ? Map.of() : null;
            }
            Map<String, String> headers = new HashMap<>(4);
            while (true) {
                String name = string();
                if (name == null || !take(':')) {
                    return null;
                }
                String value = string();
                if (value == null) {
                    return null;
                }
                headers.put(name, value); // a repeated name: the last wins, as with Jackson
                if (take('}')) {
                    return i == to ? Map.copyOf(headers) : null;
                }
                if (!take(',')) {
                    return null;
                }
            }
        }

        private boolean take(char c) {
            if (i < to && s.charAt(i) == c) {
                i++;
                return true;
            }
            return false;
        }

        private @Nullable String string() {
            if (!take('"')) {
                return null;
            }
            int start = i;
            StringBuilder escaped = null;
            while (i < to) {
                char c = s.charAt(i);
                if (c == '"') {
                    String text = escaped == null ? s.substring(start, i) : escaped.append(s, start, i).toString();
                    i++;
                    return text;
                }
                if (c < 0x20) {
                    return null; // not valid JSON: Jackson says so
                }
                if (c != '\\') {
                    i++;
                    continue;
                }
                if (i + 1 >= to) {
                    return null;
                }
                if (escaped == null) {
                    escaped = new StringBuilder(i - start + 16);
                }
                escaped.append(s, start, i);
                char e = s.charAt(i + 1);
                i += 2;
                switch (e) {
                    case '"', '\\', '/' -> escaped.append(e);
                    case 'b' -> escaped.append('\b');
                    case 't' -> escaped.append('\t');
                    case 'n' -> escaped.append('\n');
                    case 'f' -> escaped.append('\f');
                    case 'r' -> escaped.append('\r');
                    case 'u' -> {
                        if (i + 4 > to) {
                            return null;
                        }
                        int code = 0;
                        for (int k = 0; k < 4; k++) {
                            int digit = Character.digit(s.charAt(i + k), 16);
                            if (digit < 0) {
                                return null;
                            }
                            code = code * 16 + digit;
                        }
                        escaped.append((char) code);
                        i += 4;
                    }
                    default -> {
                        return null;
                    }
                }
                start = i;
            }
            return null;
        }
    }

    /**
     * Reads any known format version. A failure's message says which part is unreadable, never the stored
     * text: it becomes a dead letter's reason, shown where payloads are hidden.
     *
     * @throws IllegalArgumentException if the stored value is not an envelope this release can read
     */
    public static Envelope parse(@Nullable String stored) {
        boolean v2 = stored != null && stored.startsWith("2");
        if (stored == null || !(v2 || stored.startsWith("1:"))) {
            throw new IllegalArgumentException("unknown envelope format: " + (stored == null ? "no value"
                    : "it starts with neither '1:' nor '2' (" + stored.length() + " characters)"));
        }
        String problem = "the enqueue time is unreadable";
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
            problem = "the headers' length is unreadable";
            int lengthEnd = stored.indexOf(':', bodyStart);
            int headersLength = Integer.parseInt(stored, bodyStart, lengthEnd, 10);
            int headersEnd = lengthEnd + 1 + headersLength;
            if (headersEnd > stored.length()) {
                problem = "the headers run past the end";
                throw new IllegalArgumentException(problem);
            }
            problem = "the headers are not a JSON object of strings";
            if (headersLength == PRIORITY_ONLY_LENGTH && stored.startsWith(PRIORITY_ONLY, lengthEnd + 1)
                    && stored.startsWith("\"}", headersEnd - 2)) {
                // a message whose only header is its priority, as most prioritized messages are: no JSON parser
                return new Envelope(Instant.ofEpochMilli(enqueuedMs), Map.of(), stored.substring(headersEnd), null,
                        priorityOf(stored.substring(headersEnd - 3, headersEnd - 2)));
            }
            Map<String, String> headers = headersLength == 0 ? Map.of() : readHeaders(stored, lengthEnd + 1, headersEnd);
            String group = headers.get(GROUP_HEADER);
            // as the scripts read it (includes/format.lua's member_of): a group wins over a priority, which Java never
            // writes with one
            int priority = group != null ? DEFAULT_PRIORITY : priorityOf(headers.get(PRIORITY_HEADER));
            if (headersLength != 0 && (headers.containsKey(DEDUP_WINDOW_HEADER) || headers.containsKey(EXPIRES_HEADER)
                    || headers.containsKey(GROUP_HEADER) || headers.containsKey(PRIORITY_HEADER))) {
                headers = new HashMap<>(headers);
                headers.remove(DEDUP_WINDOW_HEADER);
                headers.remove(EXPIRES_HEADER);
                headers.remove(GROUP_HEADER);
                headers.remove(PRIORITY_HEADER);
                headers = Map.copyOf(headers);
            }
            return new Envelope(Instant.ofEpochMilli(enqueuedMs), headers, stored.substring(headersEnd), group, priority);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("corrupt envelope (format " + (v2 ? 2 : 1) + ", " + stored.length()
                    + " characters): " + problem + (e instanceof JacksonException ? ": " + Unreadable.describe(e) : ""), e);
        }
    }

    /** The headers of a message whose only header is its priority: {@code {"dq-priority":"<digit>"}}. */
    private static final String PRIORITY_ONLY = "{\"" + PRIORITY_HEADER + "\":\"";
    private static final int PRIORITY_ONLY_LENGTH = PRIORITY_ONLY.length() + 3;

    /**
     * The priority a {@link #PRIORITY_HEADER} value names: one digit, as {@code includes/format.lua}'s priority_in
     * reads it; {@link #DEFAULT_PRIORITY} for none or any other value (which the scripts read as none too).
     */
    public static int priorityOf(@Nullable String value) {
        return value != null && value.length() == 1 && value.charAt(0) >= '0' && value.charAt(0) <= '9'
                ? value.charAt(0) - '0' : DEFAULT_PRIORITY;
    }

    /**
     * The message id in a sorted-set member: {@code "~<seq8><id>"}, {@code "|<seq8><group>\u001f<id>"} (a grouped
     * message), {@code "^<priority><seq8><id>"} (a priority other than the default), or {@code "<seq12><id>"}
     * (format 1).
     */
    public static String idOf(String member) {
        if (member.startsWith("~")) {
            return member.substring(9);
        }
        if (member.startsWith("^")) {
            return member.substring(10);
        }
        return member.startsWith("|") ? member.substring(member.indexOf('\u001f', 9) + 1) : member.substring(12);
    }

    /** The group of a grouped message's member ({@link #idOf}), or null for an ungrouped one. */
    public static @Nullable String groupOf(String member) {
        return member.startsWith("|") ? member.substring(9, member.indexOf('\u001f', 9)) : null;
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
}
