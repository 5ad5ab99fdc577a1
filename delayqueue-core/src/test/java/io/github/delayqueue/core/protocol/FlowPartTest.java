package io.github.delayqueue.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.delayqueue.core.RateLimit;

/** How the flow view writes a recorded rate: the limit the consumers were given comes back as it was written. */
class FlowPartTest {

    @ParameterizedTest
    @ValueSource(strings = { "100/1s", "10/1m", "1/1h", "1/1d", "1/2d", "3/2d", "1/30d", "7/30d" })
    void aRecordedRateReadsAsTheLimitItCameFrom(String spec) {
        RateLimit limit = RateLimit.parse(spec);
        double perSecond = limit.permits() / (limit.period().toMillis() / 1000.0);
        assertThat(FlowPart.rateLimit(perSecond, 1)).hasToString(RateLimit.parse(spec).withBurst(1).toString());
    }

    @org.junit.jupiter.api.Test
    void aRateWithNoWholePermitsInAnyPeriodIsRoundedToThePeriodNearestIt() {
        // 1 every 45 days (slower than RateLimit allows, as a sum of shares cannot be, but never 1/1d)
        assertThat(FlowPart.rateLimit(1.0 / (45 * 86_400), 1).period()).isEqualTo(Duration.ofDays(30));
        // 1 every 2.37 days: not whole in any period up to 30 days (1 every 2.4 days is 5/12d); one in the nearest days
        assertThat(FlowPart.rateLimit(1.0 / (2.37 * 86_400), 1)).hasToString("1/2d");
    }

    /** A limit over a period of milliseconds used to read as whole permits a day (50/1100ms as 3927273/1d). */
    @org.junit.jupiter.api.Test
    void aRateOverMillisecondsReadsOverMilliseconds() {
        RateLimit given = RateLimit.parse("50/1100ms");
        RateLimit shown = FlowPart.rateLimit(1e6 / given.intervalMicros(1), 1);
        assertThat(shown).hasToString(RateLimit.parse("1/22ms").withBurst(1).toString());
        assertThat(shown.intervalMicros(1)).isEqualTo(given.intervalMicros(1));
        assertThat(FlowPart.rateLimit(1e6 / RateLimit.parse("3/250ms").intervalMicros(1), 1).period())
                .isLessThan(Duration.ofMinutes(1));
    }
}
