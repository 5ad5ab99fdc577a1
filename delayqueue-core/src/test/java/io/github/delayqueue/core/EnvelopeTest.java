package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;

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
}
