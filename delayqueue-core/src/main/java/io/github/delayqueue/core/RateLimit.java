package io.github.delayqueue.core;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * A rate limit of one queue over every instance consuming it: at most {@code permits} messages claimed per
 * {@code period}, spread evenly (a generic cell rate algorithm on the Redis clock: one message every
 * {@code period / permits}, never twice the rate across a window edge as a fixed window allows), with up to
 * {@code burst} claimed at once after a quiet spell. Over any window of length {@code w}, at most
 * {@code permits * w / period + burst} messages are claimed (a queue of {@code n} partitions gives each
 * {@code ceil(burst / n)}: then {@code permits * w / period + n * ceil(burst / n)}).
 *
 * <p>The default burst is the permits of {@value #DEFAULT_BURST_MILLIS} ms, at least 1 ({@code 100/1s}: 5, so
 * at most 105 in any second; {@code 20/1s} and {@code 10/1m}: 1). A permit nobody takes in time is lost beyond the
 * burst, so a burst of 1 at a high rate loses the permits of every late wake-up (on a loaded 2-core machine,
 * {@code 100/1s} with a burst of 1 drained at 0.82 of the rate); a few permits of slack let late consumers catch
 * up without a rush.
 *
 * <p>Written {@code <permits>/<period>}: {@code 200/1s}, {@code 10/1m}, {@code 5/500ms}, {@code 1000/h} (a
 * period without a number is one of its unit; units {@code ms}, {@code s}, {@code m}, {@code h}, {@code d}).
 * Immutable; {@link #parse} and {@link #of} reject a bad value with an {@link IllegalArgumentException} that
 * names it.
 */
public final class RateLimit {

    /** The most permits per second: one every microsecond (the script's clock resolution). */
    public static final long MAX_PER_SECOND = 1_000_000;
    /** The longest period. */
    public static final Duration MAX_PERIOD = Duration.ofDays(30);
    /** The largest burst. */
    public static final int MAX_BURST = 1_000_000;
    /** The default burst is the permits of this many milliseconds, at least 1. */
    public static final int DEFAULT_BURST_MILLIS = 50;

    private static final Pattern BURST = Pattern.compile("(.*\\S)\\s+burst\\s+(\\S+)\\s*");
    private static final Pattern SPEC = Pattern.compile("\\s*(-?\\d+)\\s*/\\s*(-?\\d*)\\s*([A-Za-z]*)\\s*");

    private final long permits;
    private final Duration period;
    private final int burst;

    private RateLimit(long permits, Duration period, int burst, String what) {
        require(permits >= 1, what + ": permits must be at least 1, was " + permits);
        require(period != null && !period.isNegative() && !period.isZero(), what + ": the period must be positive");
        require(period.compareTo(MAX_PERIOD) <= 0, what + ": the period must be at most " + MAX_PERIOD + ", was " + period);
        require(permits <= period.toNanos() / 1000, what + ": at most " + MAX_PER_SECOND + " permits per second");
        require(burst >= 1 && burst <= MAX_BURST, what + ": the burst must be between 1 and " + MAX_BURST + ", was " + burst);
        this.permits = permits;
        this.period = period;
        this.burst = burst;
    }

    /** {@code permits} per {@code period}, with the default burst. */
    public static RateLimit of(long permits, Duration period) {
        String what = "rate limit " + permits + "/" + period;
        return new RateLimit(permits, period, defaultBurst(permits, period), what);
    }

    /** The permits of {@value #DEFAULT_BURST_MILLIS} ms at this rate, at least 1. */
    private static int defaultBurst(long permits, @Nullable Duration period) {
        if (period == null || period.isNegative() || period.isZero()) {
            return 1;
        }
        double perWindow = permits * (DEFAULT_BURST_MILLIS * 1e6) / period.toNanos();
        return (int) Math.max(1, Math.min(MAX_BURST, Math.floor(perWindow)));
    }

    /**
     * Parses {@code <permits>/<period>} ({@code 200/1s}, {@code 10/1m}), with the default burst.
     *
     * @throws IllegalArgumentException naming the value and what is wrong with it
     */
    public static RateLimit parse(@Nullable String spec) {
        require(spec != null && !spec.isBlank(), "rate limit must not be empty: write it as <permits>/<period>, "
                + "for example 200/1s or 10/1m");
        String what = "rate limit '" + spec + "'";
        Matcher m = SPEC.matcher(spec);
        require(m.matches(), what + " is not <permits>/<period> (for example 200/1s, 10/1m, 5/500ms)");
        long permits = number(m.group(1), what, "permits");
        long amount = m.group(2).isEmpty() ? 1 : number(m.group(2), what, "the period");
        require(amount >= 1, what + ": the period must be positive, was " + amount);
        Duration unit = switch (m.group(3).toLowerCase(Locale.ROOT)) {
            case "ms" -> Duration.ofMillis(1);
            case "s" -> Duration.ofSeconds(1);
            case "m" -> Duration.ofMinutes(1);
            case "h" -> Duration.ofHours(1);
            case "d" -> Duration.ofDays(1);
            case "" -> throw new IllegalArgumentException(what + ": the period has no unit (use ms, s, m, h or d)");
            default -> throw new IllegalArgumentException(what + ": unknown unit '" + m.group(3)
                    + "' (use ms, s, m, h or d)");
        };
        require(amount <= MAX_PERIOD.toMillis(), what + ": the period must be at most " + MAX_PERIOD);
        Duration period = unit.multipliedBy(amount);
        return new RateLimit(permits, period, defaultBurst(permits, period), what);
    }

    /**
     * Reads what {@link #toString()} writes, {@code 200/1s} or {@code 200/1s burst 20}: a rate limit's JSON (a
     * {@link QueueStats} read back from an application's answer).
     *
     * @throws IllegalArgumentException naming the value and what is wrong with it
     */
    @JsonCreator
    static RateLimit fromText(String text) {
        Matcher m = text == null ? null : BURST.matcher(text);
        if (m == null || !m.matches()) {
            return parse(text);
        }
        return parse(m.group(1)).withBurst((int) Math.min(Integer.MAX_VALUE,
                number(m.group(2), "rate limit '" + text + "'", "the burst")));
    }

    /** This rate with up to {@code burst} messages claimed at once after a quiet spell (1 to {@value #MAX_BURST}). */
    public RateLimit withBurst(int burst) {
        return new RateLimit(permits, period, burst, "rate limit " + this);
    }

    public long permits() {
        return permits;
    }

    public Duration period() {
        return period;
    }

    public int burst() {
        return burst;
    }

    /**
     * Microseconds between two permits when the limit is shared by {@code shares} partitions (each gets 1/shares):
     * {@code period * shares / permits}.
     */
    public double intervalMicros(int shares) {
        return period.toNanos() / 1000.0 * shares / permits;
    }

    private static long number(String text, String what, String name) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + ": " + name + " is not a number: '" + text + "'", e);
        }
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RateLimit r && r.permits == permits && r.period.equals(period) && r.burst == burst;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(permits) * 31 + period.hashCode() * 17 + burst;
    }

    /**
     * {@code 200/1s}, with {@code burst 20} when the burst is not the default; also its JSON (a {@link QueueStats}
     * an application answers with shows its {@link QueueFlow#rateLimit()} so).
     */
    @JsonValue
    @Override
    public String toString() {
        String p;
        if (period.toMillis() % 86_400_000 == 0 && period.toNanos() % 1_000_000 == 0) {
            p = period.toDays() + "d";
        } else if (period.toMillis() % 3_600_000 == 0 && period.toNanos() % 1_000_000 == 0) {
            p = period.toHours() + "h";
        } else if (period.toMillis() % 60_000 == 0 && period.toNanos() % 1_000_000 == 0) {
            p = period.toMinutes() + "m";
        } else if (period.toMillis() % 1_000 == 0 && period.toNanos() % 1_000_000 == 0) {
            p = period.toSeconds() + "s";
        } else {
            p = period.toMillis() + "ms";
        }
        return permits + "/" + p + (burst == defaultBurst(permits, period) ? "" : " burst " + burst);
    }
}
