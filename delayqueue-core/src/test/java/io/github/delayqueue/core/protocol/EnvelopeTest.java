package io.github.delayqueue.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/** The stored formats as the scripts complete them: version 2 (written) and version 1 (still read). */
class EnvelopeTest {

    @Test
    void readsWhatTheScriptsWrite() {
        String body = Envelope.body(Map.of("tenant", "a:c|me"), "{\"n\":1}");
        Envelope envelope = Envelope.parse("1:00000000002a:1763900000123:" + body);

        assertThat(envelope.enqueuedAt()).isEqualTo(Instant.ofEpochMilli(1763900000123L));
        assertThat(envelope.headers()).containsExactly(Map.entry("tenant", "a:c|me"));
        assertThat(envelope.payload()).isEqualTo("{\"n\":1}");
    }

    /** The priority header is read (with or without the JSON parser) and hidden, as the scripts read it. */
    @Test
    void thePriorityIsReadAndHidden() {
        String prefix = "2" + "AAAAAAAA" + "BBBBBBBB";
        Envelope only = Envelope.parse(prefix + Envelope.body(Envelope.withReserved(null, null, null, 9, null, Map.of()), "1"));
        assertThat(only.priority()).isEqualTo(9);
        assertThat(only.headers()).isEmpty();
        assertThat(only.payload()).isEqualTo("1");
        Envelope withOthers = Envelope.parse(prefix + Envelope.body(Envelope.withReserved(60_000L, "+5", null, 0, null,
                Map.of("tenant", "acme")), "{\"n\":1}"));
        assertThat(withOthers.priority()).isZero();
        assertThat(withOthers.headers()).containsExactly(Map.entry("tenant", "acme"));
        assertThat(withOthers.payload()).isEqualTo("{\"n\":1}");
        // the default is written as no header; a group wins over a priority; a value of no digit is none
        assertThat(Envelope.body(Envelope.withReserved(null, null, null, Envelope.DEFAULT_PRIORITY, null, Map.of()), "1"))
                .isEqualTo("0:1");
        assertThat(Envelope.parse(prefix + "34:{\"dq-group\":\"G\",\"dq-priority\":\"9\"}1").priority())
                .isEqualTo(Envelope.DEFAULT_PRIORITY);
        assertThat(Envelope.parse(prefix + "20:{\"dq-priority\":\"12\"}1").priority()).isEqualTo(Envelope.DEFAULT_PRIORITY);
        assertThat(Envelope.parse(prefix + "19:{\"dq-priority\":\"x\"}1").priority()).isEqualTo(Envelope.DEFAULT_PRIORITY);
        assertThat(Envelope.idOf("^9" + "AAAAAAAA" + "order:1")).isEqualTo("order:1");
    }

    @Test
    void noHeadersCostTwoCharacters() {
        assertThat(Envelope.body(Map.of(), "\"x\"")).isEqualTo("0:\"x\"");
        assertThat(Envelope.parse("1:000000000001:5:0:\"x\"").payload()).isEqualTo("\"x\"");
    }

    @Test
    void payloadMayContainAnything() {
        String payload = "{\"text\":\"1:2:3: {} \\u0000 ünïcödé\"}";
        assertThat(Envelope.parse("1:000000000001:5:" + Envelope.body(Map.of("k", "v"), payload)).payload())
                .isEqualTo(payload);
    }

    @Test
    void readsFormat2() {
        String body = Envelope.body(Map.of("tenant", "acme"), "{\"n\":1}");
        Envelope envelope = Envelope.parse("2" + encode8(42) + encode8(1763900000123L) + body);

        assertThat(envelope.enqueuedAt()).isEqualTo(Instant.ofEpochMilli(1763900000123L));
        assertThat(envelope.headers()).containsExactly(Map.entry("tenant", "acme"));
        assertThat(envelope.payload()).isEqualTo("{\"n\":1}");
        // 19 characters around a payload without headers, against 31 in format 1
        assertThat(("2" + encode8(1) + encode8(1763900000123L) + Envelope.body(Map.of(), "")).length()).isEqualTo(19);
    }

    @Test
    void anEnvelopeHoldsNoDedupWindowOnlyWhenItsHeadersDoNotStartWithOne() {
        String prefix = "2" + encode8(42) + encode8(1763900000123L);
        Map<String, String> windowFirst = new LinkedHashMap<>();
        windowFirst.put(Envelope.DEDUP_WINDOW_HEADER, "60000");
        windowFirst.put("tenant", "acme");
        Map<String, String> expiryOnly = new LinkedHashMap<>();
        expiryOnly.put(Envelope.EXPIRES_HEADER, "+5000");
        expiryOnly.put("tenant", "acme");

        assertThat(Envelope.holdsNoDedupWindow(prefix + Envelope.body(Map.of(), "{\"n\":1}"))).isTrue();
        assertThat(Envelope.holdsNoDedupWindow(prefix + Envelope.body(Map.of("tenant", "acme"), "{}"))).isTrue();
        assertThat(Envelope.holdsNoDedupWindow(prefix + Envelope.body(expiryOnly, "{}"))).isTrue();
        // settle.lua then remembers the id: an 'A' ack, not 'a'
        assertThat(Envelope.holdsNoDedupWindow(prefix + Envelope.body(windowFirst, "{}"))).isFalse();
        assertThat(Envelope.holdsNoDedupWindow(prefix + Envelope.body(Map.of(Envelope.DEDUP_WINDOW_HEADER, "1"), "1")))
                .isFalse();
        // in doubt (format 1, a truncated envelope): looked up
        assertThat(Envelope.holdsNoDedupWindow("1:00000000002a:1763900000123:" + Envelope.body(Map.of(), "1"))).isFalse();
        assertThat(Envelope.holdsNoDedupWindow(prefix)).isFalse();
    }

    @Test
    void base64DigitsKeepNumericOrderAsBytes() {
        long[] numbers = { 0, 1, 63, 64, 65, 4095, 4096, 1763900000123L, (1L << 48) - 1 };
        for (int i = 1; i < numbers.length; i++) {
            assertThat(encode8(numbers[i - 1]).compareTo(encode8(numbers[i]))).isNegative();
            assertThat(Envelope.decode64(encode8(numbers[i]), 0, 8)).isEqualTo(numbers[i]);
        }
    }

    @Test
    void idsOfBothMemberFormats() {
        assertThat(Envelope.idOf("~" + encode8(7) + "order-1")).isEqualTo("order-1");
        assertThat(Envelope.idOf("00000000002aorder-1")).isEqualTo("order-1");
    }

    /** What the scripts' {@code encode8} writes. */
    static String encode8(long n) {
        char[] digits = new char[8];
        for (int i = 7; i >= 0; i--) {
            digits[i] = Envelope.DIGITS64.charAt((int) (n % 64));
            n /= 64;
        }
        return new String(digits);
    }

    @Test
    void unknownOrCorruptFormatsAreRejected() {
        assertThatIllegalArgumentException().isThrownBy(() -> Envelope.parse("3:whatever"))
                .withMessageContaining("unknown envelope format");
        assertThatIllegalArgumentException().isThrownBy(() -> Envelope.parse(null))
                .withMessageContaining("unknown envelope format");
        assertThatIllegalArgumentException().isThrownBy(() -> Envelope.parse("1:000000000001:notanumber:0:x"))
                .withMessageContaining("corrupt envelope");
        assertThatIllegalArgumentException().isThrownBy(() -> Envelope.parse("1:000000000001:5:99:{}"))
                .withMessageContaining("corrupt envelope");
        assertThatIllegalArgumentException().isThrownBy(() -> Envelope.parse("2short"))
                .withMessageContaining("corrupt envelope");
        assertThatIllegalArgumentException().isThrownBy(() -> Envelope.parse("2" + "!".repeat(16) + "0:x"))
                .withMessageContaining("corrupt envelope");
    }

    private static final JsonMapper JACKSON = JsonMapper.builder().build();
    private static final TypeReference<Map<String, String>> STRINGS = new TypeReference<>() {
    };

    /** The headers' JSON is written without Jackson now: the very text Jackson wrote, so stored sizes and old readers agree. */
    @Test
    void headersAreWrittenAsJacksonWritesThem() {
        StringBuilder everyChar = new StringBuilder();
        for (char c = 0; c < 0xD800; c++) {
            everyChar.append(c);
        }
        for (char c = 0xE000; c != 0; c++) {
            everyChar.append(c);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        headers.put("every \"char\"", everyChar.toString());
        headers.put("emoji \uD83D\uDE00", "\\ / \u0000\u001f\u007f\u2028");
        headers.put("", "");
        assertThat(Envelope.headersJson(headers)).isEqualTo(JACKSON.writeValueAsString(headers));
        Random random = new Random(17);
        for (int n = 0; n < 2_000; n++) {
            Map<String, String> some = randomHeaders(random);
            assertThat(Envelope.headersJson(some)).isEqualTo(JACKSON.writeValueAsString(some));
            String body = Envelope.body(some, "1");
            assertThat(Envelope.parse("2" + encode8(1) + encode8(2) + body).headers()).isEqualTo(some);
        }
    }

    /** What Jackson wrote, and any JSON it reads, is read the same; what it rejects is still rejected. */
    @Test
    void headersAreReadAsJacksonReadsThem() {
        List<String> readable = List.of("{}", "{\"a\":\"b\"}", "{\"a\":\"b\",\"a\":\"c\"}",
                "{\"k\":\"\\u00e9\\u00E9\\/\\\"\\\\\\b\\f\\n\\r\\t\"}", "{ \"a\" : \"b\" }", "{\"a\":\"\\ud83d\\ude00\"}",
                "\n{\"a\":\"b\"}\n", "{\"n\":1}", "{\"t\":true}");
        for (String json : readable) {
            String stored = "2" + encode8(1) + encode8(2) + json.length() + ":" + json + "1";
            assertThat(Envelope.parse(stored).headers()).as(json).isEqualTo(Map.copyOf(JACKSON.readValue(json, STRINGS)));
        }
        List<String> rejected = List.of("{", "{\"a\"}", "{\"a\":}", "{\"a\":\"b\",}", "{\"a\":\"b\"", "{\"a\":\"\u0001\"}",
                "{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}", "{\"a\":null}", "{\"a\":{}}", "[]", "\"a\"", "{\"a\":\"b\"}x");
        for (String json : rejected) {
            String stored = "2" + encode8(1) + encode8(2) + json.length() + ":" + json + "1";
            assertThatIllegalArgumentException().as(json).isThrownBy(() -> Envelope.parse(stored))
                    .withMessageContaining("corrupt envelope");
        }
    }

    private static Map<String, String> randomHeaders(Random random) {
        Map<String, String> headers = new LinkedHashMap<>();
        int count = 1 + random.nextInt(4);
        for (int i = 0; i < count; i++) {
            headers.put(randomText(random), randomText(random));
        }
        return headers;
    }

    private static String randomText(Random random) {
        String alphabet = "ab-_:{}[],\"\\/\u0000\u0001\u001f \u007f\u00e9\u2028\uffff";
        StringBuilder text = new StringBuilder();
        int length = random.nextInt(12);
        for (int i = 0; i < length; i++) {
            if (random.nextInt(10) == 0) {
                text.append("\uD83D\uDE00"); // a surrogate pair
            } else {
                text.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
        }
        return text.toString();
    }

    @Test
    void theSetOfAStoredEnvelopeIsReadFromItsHeadersOnly() {
        String prefix = "2" + "AAAAAAAA" + "BBBBBBBB";
        assertThat(Envelope.setOf(prefix + Envelope.body(java.util.Map.of(), "{\"dq-set\":\"no\"}"))).isNull();
        assertThat(Envelope.setOf(prefix + Envelope.body(java.util.Map.of("a", "b"), "{\"dq-set\":\"no\"}"))).isNull();
        assertThat(Envelope.setOf(prefix + Envelope.body(Envelope.withReserved(60_000L, "+5", "g", "campaign-1",
                java.util.Map.of("x", "\"dq-set\":\"fake")), "{}"))).isEqualTo("campaign-1");
        assertThat(Envelope.setOf(prefix + Envelope.body(java.util.Map.of("x", "\"dq-set\":\"fake"), "{}"))).isNull();
        assertThat(Envelope.setOf("1:000000000001:5:0:{}")).isNull();
        assertThat(Envelope.setOf("")).isNull();
    }
}
