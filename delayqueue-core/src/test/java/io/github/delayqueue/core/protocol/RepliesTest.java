package io.github.delayqueue.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The settle and claim replies with and without the history records they deleted: a reply without them (a script of an
 * earlier release still cached, or a call that deleted none) reads as none deleted.
 */
class RepliesTest {

    @Test
    void aSettleReplyEndsWithTheRecordsItsCountBoundDeleted() {
        QueueOps.Settled plain = QueueOps.Settled.read("101");
        assertThat(plain.applied()).containsExactly(true, false, true);
        assertThat(plain.historyTrimmed()).isZero();

        QueueOps.Settled trimmed = QueueOps.Settled.read("110:250");
        assertThat(trimmed.applied()).containsExactly(true, true, false);
        assertThat(trimmed.historyTrimmed()).isEqualTo(250);
    }

    @Test
    void aClaimReplyOfSixOrSevenFieldsIsRead() {
        QueueOps.ClaimResult older = QueueOps.ClaimResult.read(List.<Object>of("1000000", "", "1:2:3:4:5:6", ""), 0, 0);
        assertThat(older.redelivered()).isEqualTo(1);
        assertThat(older.deadTrimmed()).isEqualTo(6);
        assertThat(older.historyTrimmed()).isZero();

        QueueOps.ClaimResult current = QueueOps.ClaimResult.read(List.<Object>of("1000000", "", "0:0:0:0:0:100:100", ""), 0, 0);
        assertThat(current.deadTrimmed()).isEqualTo(100);
        assertThat(current.historyTrimmed()).isEqualTo(100);

        assertThat(QueueOps.ClaimResult.read(List.<Object>of("1000000", "", "", ""), 0, 0).historyTrimmed()).isZero();
    }
}
