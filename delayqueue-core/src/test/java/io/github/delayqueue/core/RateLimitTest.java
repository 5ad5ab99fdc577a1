package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.github.delayqueue.core.protocol.ClaimLimits;

/** The written form of a rate limit, and what a bad one gets: a message naming it and what is wrong. */
class RateLimitTest {

    @Test
    void parsesPermitsPerPeriodInEveryUnit() {
        assertThat(RateLimit.parse("200/1s")).satisfies(r -> {
            assertThat(r.permits()).isEqualTo(200);
            assertThat(r.period()).isEqualTo(Duration.ofSeconds(1));
            assertThat(r.burst()).isEqualTo(10); // the permits of 50 ms
        });
        assertThat(RateLimit.parse("100/1s").burst()).isEqualTo(5);
        assertThat(RateLimit.parse("20/1s").burst()).isEqualTo(1);
        assertThat(RateLimit.parse("10/1m").burst()).isEqualTo(1);
        assertThat(RateLimit.parse("100/1s").withBurst(1)).hasToString("100/1s burst 1");
        assertThat(RateLimit.parse("10/1m").period()).isEqualTo(Duration.ofMinutes(1));
        assertThat(RateLimit.parse(" 5 / 500ms ").period()).isEqualTo(Duration.ofMillis(500));
        assertThat(RateLimit.parse("1000/h").period()).isEqualTo(Duration.ofHours(1));
        assertThat(RateLimit.parse("3/2D").period()).isEqualTo(Duration.ofDays(2));
        assertThat(RateLimit.parse("200/1s").withBurst(20)).hasToString("200/1s burst 20")
                .isEqualTo(RateLimit.of(200, Duration.ofSeconds(1)).withBurst(20));
        assertThat(RateLimit.parse("10/60s")).hasToString("10/1m");
    }

    @Test
    void refusesZeroNegativeAndUnknownUnitsNamingTheValue() {
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("0/1s"))
                .withMessage("rate limit '0/1s': permits must be at least 1, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("-1/1s"))
                .withMessage("rate limit '-1/1s': permits must be at least 1, was -1");
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("10/0s"))
                .withMessageContaining("the period must be positive");
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("10/1x"))
                .withMessage("rate limit '10/1x': unknown unit 'x' (use ms, s, m, h or d)");
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("10/1"))
                .withMessageContaining("has no unit");
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("-1"))
                .withMessageContaining("is not <permits>/<period>");
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse(""))
                .withMessageContaining("must not be empty");
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("99999999999999999999/1s"))
                .withMessageContaining("permits is not a number");
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("2000/1ms"))
                .withMessageContaining("at most 1000000 permits per second");
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("1/31d"))
                .withMessageContaining("at most");
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("10/1s").withBurst(0))
                .withMessageContaining("the burst must be between 1 and");
    }

    @Test
    void aPartitionedQueueGetsAnEvenShareOfEachLimit() {
        ClaimLimits whole = ClaimLimits.of(RateLimit.parse("20/1s").withBurst(5), 5, 0, 1);
        assertThat(whole.intervalMicros()).isEqualTo(50_000);
        assertThat(whole.toleranceMicros()).isEqualTo(200_000);
        assertThat(whole.maxInFlight()).isEqualTo(5);
        // 3 partitions: one permit every 150 ms each, a burst of 2 each, caps 2 + 2 + 1
        assertThat(ClaimLimits.of(RateLimit.parse("20/1s").withBurst(5), 5, 0, 3).intervalMicros()).isEqualTo(150_000);
        assertThat(ClaimLimits.of(RateLimit.parse("20/1s").withBurst(5), 5, 0, 3).toleranceMicros()).isEqualTo(150_000);
        assertThat(ClaimLimits.of(null, 5, 0, 3).maxInFlight()).isEqualTo(2);
        assertThat(ClaimLimits.of(null, 5, 1, 3).maxInFlight()).isEqualTo(2);
        assertThat(ClaimLimits.of(null, 5, 2, 3).maxInFlight()).isEqualTo(1);
        assertThat(ClaimLimits.of(null, 0, 2, 3).scriptArgs()).containsExactly("0", "0", "0", "0");
        // a held-back claim wakes when half the burst (rounded down) is free: 2 of 5, an interval after the next permit
        assertThat(whole.gatherMicros()).isEqualTo(50_000);
        assertThat(ClaimLimits.of(RateLimit.parse("20/1s"), 0, 0, 1).gatherMicros()).isZero();
        assertThatIllegalArgumentException().isThrownBy(() -> ClaimLimits.of(null, 2, 0, 3))
                .withMessageContaining("maxInFlight 2 is below the queue's 3 partitions");
    }
    @Test
    void itsJsonIsItsTextAndReadsBackWithTheBurst() {
        tools.jackson.databind.json.JsonMapper json = tools.jackson.databind.json.JsonMapper.builder().build();
        for (RateLimit limit : new RateLimit[] { RateLimit.parse("200/1s"), RateLimit.parse("1/1m").withBurst(4),
                RateLimit.parse("5/500ms"), RateLimit.parse("3/2d").withBurst(2) }) {
            String written = json.writeValueAsString(limit);
            assertThat(written).isEqualTo("\"" + limit + "\"");
            assertThat(json.readValue(written, RateLimit.class)).isEqualTo(limit);
        }
        assertThat(json.readValue("\"200/1s burst 20\"", RateLimit.class).burst()).isEqualTo(20);
        // a stats snapshot an application answered with reads back whole, its flow's limit included
        QueueStats stats = new QueueStats("q", 3, 2, 1, 0, null, java.time.Instant.ofEpochMilli(1_000),
                new QueueFlow(RateLimit.parse("1/1m").withBurst(4), 5, 0.4, 2, null, false));
        assertThat(json.readValue(json.writeValueAsString(stats), QueueStats.class)).isEqualTo(stats);
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.fromText("200/1s burst x"))
                .withMessageContaining("200/1s burst x").withMessageContaining("burst");
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.fromText("200/1s burst 0"))
                .withMessageContaining("burst");
    }

    @Test
    void queueStatsWithoutAFlowHasNone() {
        QueueStats stats = new QueueStats("q", 0, 0, 0, 0, null, java.time.Instant.EPOCH, null);
        assertThat(stats.flow()).isSameAs(QueueFlow.NONE);
    }
}
