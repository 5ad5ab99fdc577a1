package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The stored format, version 1, as the scripts complete it. */
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
    void unknownOrCorruptFormatsAreRejected() {
        assertThatIllegalArgumentException().isThrownBy(() -> Envelope.parse("2:whatever"))
                .withMessageContaining("unknown envelope format");
        assertThatIllegalArgumentException().isThrownBy(() -> Envelope.parse(null))
                .withMessageContaining("unknown envelope format");
        assertThatIllegalArgumentException().isThrownBy(() -> Envelope.parse("1:000000000001:notanumber:0:x"))
                .withMessageContaining("corrupt envelope");
        assertThatIllegalArgumentException().isThrownBy(() -> Envelope.parse("1:000000000001:5:99:{}"))
                .withMessageContaining("corrupt envelope");
    }
}
