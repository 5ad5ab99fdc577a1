package io.github.delayqueue.spring.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Cron ticks across daylight-saving changes, on given instants (no waiting): in Europe/Berlin (2026-03-29 02:00 CET ->
 * 03:00 CEST, 2026-10-25 03:00 CEST -> 02:00 CET) and America/New_York (2026-03-08 02:00 EST -> 03:00 EDT,
 * 2026-11-01 02:00 EDT -> 01:00 EST), both directions: a wall-clock time that does not exist is skipped, one that
 * occurs twice fires once.
 */
class CronTicksTests {

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

    private static List<Instant> ticks(String cron, ZoneId zone, String from, int count) {
        CronTicks ticks = new CronTicks(cron, zone);
        List<Instant> out = new ArrayList<>();
        Instant t = Instant.parse(from);
        for (int i = 0; i < count; i++) {
            t = ticks.next(t);
            out.add(t);
        }
        return out;
    }

    /**
     * The put and misfire paths go on from now, not from a tick: replacing a daily 01:30 New York schedule at 01:10
     * EST on 2026-11-01, after 01:30 EDT ran, must not run 01:30 again (at 01:30 EST).
     */
    @Test
    void aSeriesGoingOnFromNowDoesNotFireARepeatedTimeAgain() {
        CronTicks ticks = new CronTicks("0 30 1 * * *", NEW_YORK);
        Instant ran = Instant.parse("2026-11-01T05:30:00Z"); // 01:30 EDT
        Instant now = Instant.parse("2026-11-01T06:10:00Z"); // 01:10 EST
        assertThat(ticks.next(now, ran)).isEqualTo(Instant.parse("2026-11-02T06:30:00Z"));
        assertThat(ticks.next(now, null)).as("a new series").isEqualTo(Instant.parse("2026-11-01T06:30:00Z"));
        assertThat(ticks.next(Instant.parse("2026-11-01T04:00:00Z"), Instant.parse("2026-10-31T05:30:00Z")))
                .as("no clock change in between").isEqualTo(ran);
    }

    @Test
    void berlinSpringForwardHasNoTickAtTheMissingTime() {
        assertThat(ticks("0 30 2 * * *", BERLIN, "2026-03-28T00:00:00Z", 3)).containsExactly(
                Instant.parse("2026-03-28T01:30:00Z"), // 02:30 CET
                Instant.parse("2026-03-30T00:30:00Z"), // 02:30 CEST: the 29th has no 02:30
                Instant.parse("2026-03-31T00:30:00Z"));
        assertThat(ticks("0 0 * * * *", BERLIN, "2026-03-29T00:30:00Z", 2)).containsExactly(
                Instant.parse("2026-03-29T01:00:00Z"), // 03:00 CEST: 02:00 CET does not exist
                Instant.parse("2026-03-29T02:00:00Z"));
    }

    @Test
    void berlinFallBackFiresTheRepeatedTimeOnce() {
        assertThat(ticks("0 30 2 * * *", BERLIN, "2026-10-24T00:00:00Z", 3)).containsExactly(
                Instant.parse("2026-10-24T00:30:00Z"),
                Instant.parse("2026-10-25T00:30:00Z"), // 02:30 CEST; not again at 02:30 CET (01:30Z)
                Instant.parse("2026-10-26T01:30:00Z"));
        assertThat(ticks("0 0 * * * *", BERLIN, "2026-10-24T23:30:00Z", 3)).containsExactly(
                Instant.parse("2026-10-25T00:00:00Z"), // 02:00 CEST
                Instant.parse("2026-10-25T02:00:00Z"), // 03:00 CET: 02:00 CET (01:00Z) was 02:00 already
                Instant.parse("2026-10-25T03:00:00Z"));
    }

    @Test
    void newYorkSpringForwardHasNoTickAtTheMissingTime() {
        assertThat(ticks("0 30 2 * * *", NEW_YORK, "2026-03-07T12:00:00Z", 2)).containsExactly(
                Instant.parse("2026-03-09T06:30:00Z"), // the 8th has no 02:30
                Instant.parse("2026-03-10T06:30:00Z"));
    }

    @Test
    void newYorkFallBackFiresTheRepeatedTimesOnce() {
        assertThat(ticks("0 30 1 * * *", NEW_YORK, "2026-10-31T12:00:00Z", 2)).containsExactly(
                Instant.parse("2026-11-01T05:30:00Z"), // 01:30 EDT; not again at 01:30 EST
                Instant.parse("2026-11-02T06:30:00Z"));
        assertThat(ticks("0 */30 * * * *", NEW_YORK, "2026-11-01T04:50:00Z", 4)).containsExactly(
                Instant.parse("2026-11-01T05:00:00Z"), // 01:00 EDT
                Instant.parse("2026-11-01T05:30:00Z"), // 01:30 EDT
                Instant.parse("2026-11-01T07:00:00Z"), // 02:00 EST: 01:00 and 01:30 EST were fired as EDT
                Instant.parse("2026-11-01T07:30:00Z"));
    }

    @Test
    void macrosAndBadExpressions() {
        assertThat(ticks("@daily", ZoneId.of("UTC"), "2026-01-01T10:00:00Z", 1))
                .containsExactly(Instant.parse("2026-01-02T00:00:00Z"));
        assertThatIllegalArgumentException().isThrownBy(() -> new CronTicks("0 0 2 * *", BERLIN));
    }
}
