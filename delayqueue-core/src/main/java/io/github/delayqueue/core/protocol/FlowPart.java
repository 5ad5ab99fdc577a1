package io.github.delayqueue.core.protocol;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.QueueFlow;
import io.github.delayqueue.core.RateLimit;

/**
 * One partition's flow state as stats.lua reads it (flow.lua's {@code flow_view}), and the queue's
 * {@link QueueFlow}: the sum over its partitions.
 *
 * @param limits    the limits recorded by the partition's claims, or {@code null} for none
 * @param rate      messages claimed per second, or {@code null} when not counted
 * @param throttled due messages the limits or a hold hold back now
 * @param holdMs    the end of an active hold (ms, Redis clock), or {@code null}
 * @param byGroups  the part of {@code throttled} their groups' limits or holds hold back
 */
record FlowPart(@Nullable ClaimLimits limits, @Nullable Double rate, long throttled, @Nullable Long holdMs,
        long byGroups) {

    /** The most periods a rate is written in: the first in which its permits are a whole number is used. */
    private static final List<Duration> PERIODS = List.of(Duration.ofSeconds(1), Duration.ofMinutes(1),
            Duration.ofHours(1), Duration.ofDays(1));

    /**
     * stats.lua's five flow items: limits ("interval:tolerance:cap" or ""), rate ("" none), throttled, hold ("" none),
     * the part of throttled held by groups.
     */
    static FlowPart of(String limits, String rate, long throttled, String hold, long byGroups) {
        return new FlowPart(recorded(limits), rate.isEmpty() ? null : Double.valueOf(rate), throttled,
                hold.isEmpty() ? null : Long.valueOf(hold), byGroups);
    }

    /** flow.lua's record of the limits, as {@link ClaimLimits#scriptArgs()} wrote its first three. */
    static @Nullable ClaimLimits recorded(String limits) {
        if (limits.isEmpty()) {
            return null;
        }
        String[] parts = limits.split(":");
        if (parts.length != 3) {
            throw new IllegalStateException("unreadable flow limits '" + limits + "' in Redis");
        }
        return new ClaimLimits(Double.parseDouble(parts[0]), Double.parseDouble(parts[1]), Integer.parseInt(parts[2]), 0);
    }

    /** The queue's flow: its partitions' limits, rates and throttled messages (by groups too) summed, the latest hold. */
    static QueueFlow sum(List<FlowPart> parts, long inFlight) {
        double permitsPerSecond = 0;
        long burst = 0;
        int cap = 0;
        Double rate = null;
        long throttled = 0;
        long byGroups = 0;
        Long hold = null;
        for (FlowPart part : parts) {
            ClaimLimits limits = part.limits();
            if (limits != null && limits.intervalMicros() > 0) {
                permitsPerSecond += 1e6 / limits.intervalMicros();
                burst += Math.round(limits.toleranceMicros() / limits.intervalMicros()) + 1;
            }
            if (limits != null) {
                cap += limits.maxInFlight();
            }
            if (part.rate() != null) {
                rate = (rate == null ? 0 : rate) + part.rate();
            }
            throttled += part.throttled();
            byGroups += part.byGroups();
            if (part.holdMs() != null && (hold == null || part.holdMs() > hold)) {
                hold = part.holdMs();
            }
        }
        return new QueueFlow(permitsPerSecond > 0 ? rateLimit(permitsPerSecond, burst) : null, cap, rate, throttled,
                byGroups, hold == null ? null : Instant.ofEpochMilli(hold), cap > 0 && inFlight >= cap);
    }

    /**
     * {@code perSecond} written with the first period in which its permits are whole: 100/1s, 10/1m; then with the
     * fewest permits in a whole number of milliseconds under a minute (50/1100ms reads as 1/22ms); then with the
     * fewest days up to {@link RateLimit#MAX_PERIOD} (1/2d, 3/2d, 1/30d); else rounded to whole permits a day, or to
     * one permit in a whole number of days for a rate slower than one a day.
     */
    static RateLimit rateLimit(double perSecond, long burst) {
        int shown = (int) Math.min(RateLimit.MAX_BURST, Math.max(1, burst));
        for (Duration period : PERIODS) {
            RateLimit whole = whole(perSecond, period);
            if (whole != null) {
                return whole.withBurst(shown);
            }
        }
        RateLimit inMillis = wholeMillis(perSecond);
        if (inMillis != null) {
            return inMillis.withBurst(shown);
        }
        long maxDays = RateLimit.MAX_PERIOD.toDays();
        for (long days = 2; days <= maxDays; days++) {
            RateLimit whole = whole(perSecond, Duration.ofDays(days));
            if (whole != null) {
                return whole.withBurst(shown);
            }
        }
        double perDay = perSecond * 86_400;
        if (perDay >= 1) {
            return RateLimit.of(Math.round(perDay), Duration.ofDays(1)).withBurst(shown);
        }
        long days = Math.min(maxDays, Math.max(1, Math.round(1 / perDay)));
        return RateLimit.of(1, Duration.ofDays(days)).withBurst(shown);
    }

    /**
     * A rate given over a period of milliseconds, such as {@code 50/1100ms}: the fewest permits (up to 1,000) in a whole
     * number of milliseconds under a minute ({@code 1/22ms}), or {@code null}. Rather that than whole permits a day.
     */
    private static @Nullable RateLimit wholeMillis(double perSecond) {
        for (int permits = 1; permits <= 1_000; permits++) {
            double millis = permits * 1000 / perSecond;
            long whole = Math.round(millis);
            if (whole >= 1 && whole < 60_000 && Math.abs(millis - whole) <= 1e-9 * millis) {
                return RateLimit.of(permits, Duration.ofMillis(whole));
            }
        }
        return null;
    }

    /** {@code perSecond} as whole permits per {@code period}, or {@code null} when they are not whole. */
    private static @Nullable RateLimit whole(double perSecond, Duration period) {
        double permits = perSecond * period.toSeconds();
        long whole = Math.round(permits);
        return whole >= 1 && Math.abs(permits - whole) <= 1e-9 * permits ? RateLimit.of(whole, period) : null;
    }
}
