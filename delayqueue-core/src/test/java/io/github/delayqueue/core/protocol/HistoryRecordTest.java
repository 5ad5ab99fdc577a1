package io.github.delayqueue.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.delayqueue.core.history.SettledMessage;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/** The record written by hand is JSON that Jackson reads back as it was written, whatever its group and reason hold. */
class HistoryRecordTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void aCompletedRecordReadsBack() {
        String text = HistoryRecord.write(false, 1_000, 1_250, 1, 7, null, null);
        assertThat(text).isEqualTo("{\"v\":1,\"o\":\"completed\",\"d\":1000,\"c\":1250,\"a\":1,\"i\":"
                + JSON.writeValueAsString(HistoryRecord.INSTANCE) + ",\"t\":7}");
        SettledMessage read = HistoryRecord.read("order-1", text, 1_300);
        assertThat(read.outcome()).isEqualTo(SettledMessage.Outcome.COMPLETED);
        assertThat(read.dueAt()).isEqualTo(Instant.ofEpochMilli(1_000));
        assertThat(read.claimedAt()).isEqualTo(Instant.ofEpochMilli(1_250));
        assertThat(read.settledAt()).isEqualTo(Instant.ofEpochMilli(1_300));
        assertThat(read.attempts()).isEqualTo(1);
        assertThat(read.instance()).isEqualTo(HistoryRecord.INSTANCE);
        assertThat(read.took()).isEqualTo(Duration.ofMillis(7));
        assertThat(read.group()).isNull();
        assertThat(read.reason()).isNull();
    }

    @Test
    void groupsAndReasonsWithAnyCharacterReadBack() {
        String group = "customer \"7\" \\ é 中 😀";
        StringBuilder controls = new StringBuilder();
        for (char c = 0; c < 0x20; c++) {
            controls.append(c);
        }
        String reason = "java.lang.IllegalStateException: \"payment\" failed\n\tat a.b(C.java:1)\r\n\\ "
                + controls + " \u007f \u2028 end";
        String text = HistoryRecord.write(true, Long.MAX_VALUE, -1, Integer.MAX_VALUE, 0, group, reason);
        Map<String, Object> parsed = JSON.readValue(text, new TypeReference<Map<String, Object>>() {
        });
        assertThat(parsed).containsEntry("o", "dead").containsEntry("g", group).containsEntry("r", reason)
                .containsEntry("d", Long.MAX_VALUE).containsEntry("a", Integer.MAX_VALUE);
        SettledMessage read = HistoryRecord.read("x", text, 5);
        assertThat(read.outcome()).isEqualTo(SettledMessage.Outcome.DEAD_LETTERED);
        assertThat(read.group()).isEqualTo(group);
        assertThat(read.reason()).isEqualTo(reason);
    }
}
