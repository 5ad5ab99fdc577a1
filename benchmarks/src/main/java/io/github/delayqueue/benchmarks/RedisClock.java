package io.github.delayqueue.benchmarks;

import java.time.Instant;
import java.util.List;

/**
 * The Redis server clock as seen from this JVM: one anchor sampled with TIME (the sample with the
 * shortest round trip of several, its midpoint taken as the instant the server read its clock), then
 * advanced by {@link System#nanoTime()}. Lateness is measured in Redis-clock terms: handler start
 * (converted with this) minus the due time the engine reported (Redis clock) or, for Redisson, the due
 * time it computed on this JVM's wall clock (converted with {@link #offsetMs()}).
 */
final class RedisClock {

    private final long anchorNanos;
    private final double anchorServerMs;
    private final double offsetMs;
    private final double rttMs;

    private RedisClock(long anchorNanos, double anchorServerMs, double offsetMs, double rttMs) {
        this.anchorNanos = anchorNanos;
        this.anchorServerMs = anchorServerMs;
        this.offsetMs = offsetMs;
        this.rttMs = rttMs;
    }

    static RedisClock sample(Resp resp) {
        long bestRtt = Long.MAX_VALUE;
        long bestMid = 0;
        double bestServerMs = 0;
        double bestLocalMs = 0;
        for (int i = 0; i < 25; i++) {
            Instant wall0 = Instant.now();
            long t0 = System.nanoTime();
            List<?> time = (List<?>) resp.call("TIME");
            long t1 = System.nanoTime();
            Instant wall1 = Instant.now();
            if (t1 - t0 < bestRtt) {
                bestRtt = t1 - t0;
                bestMid = t0 + (t1 - t0) / 2;
                bestServerMs = Long.parseLong((String) time.get(0)) * 1000.0 + Long.parseLong((String) time.get(1)) / 1000.0;
                bestLocalMs = (micros(wall0) + micros(wall1)) / 2000.0;
            }
        }
        return new RedisClock(bestMid, bestServerMs, bestServerMs - bestLocalMs, bestRtt / 1e6);
    }

    /**
     * This clock again from its anchor ({@link #anchorNanos()}, {@link #anchorServerMs()}, {@link #offsetMs()},
     * {@link #rttMs()}): the before side's copy, in its own class loader, reads the Redis clock exactly as ours does.
     */
    static RedisClock of(long anchorNanos, double anchorServerMs, double offsetMs, double rttMs) {
        return new RedisClock(anchorNanos, anchorServerMs, offsetMs, rttMs);
    }

    long anchorNanos() {
        return anchorNanos;
    }

    double anchorServerMs() {
        return anchorServerMs;
    }

    private static double micros(Instant t) {
        return t.getEpochSecond() * 1_000_000.0 + t.getNano() / 1_000.0;
    }

    /** Redis-clock milliseconds at a {@link System#nanoTime()} stamp. */
    double redisMs(long nanoStamp) {
        return anchorServerMs + (nanoStamp - anchorNanos) / 1e6;
    }

    /** Redis-clock milliseconds now. */
    double nowMs() {
        return redisMs(System.nanoTime());
    }

    /** The local wall-clock instant {@code localMs} in Redis-clock milliseconds. */
    double fromLocalMs(double localMs) {
        return localMs + offsetMs;
    }

    /** Redis clock minus this JVM's wall clock, ms. */
    double offsetMs() {
        return offsetMs;
    }

    double rttMs() {
        return rttMs;
    }
}
