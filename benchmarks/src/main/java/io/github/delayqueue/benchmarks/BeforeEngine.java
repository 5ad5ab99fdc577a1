package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.redisson.api.RedissonClient;

/**
 * The before side's end inside its class loader ({@link BeforeSide.Loader}): an {@link OursSide} whose
 * {@code io.github.delayqueue.core} classes and Lua scripts are the before jar's. {@link BeforeSide} creates it with
 * {@link #open} and calls {@link #run} by reflection; only JDK types and Redisson's (the parent loader's, one class in
 * both loaders) cross, never a class of this package or of the engine, which exist once per loader.
 *
 * <p>Public so that the parent loader can call it (this package is another runtime package in the child loader). It
 * starts no thread of its own: {@link OursSide}'s are named and stopped as in ours ({@code bench-worker},
 * {@code bench-steady-sender}, the engine's consumers stopped when each scenario's keys are deleted).
 */
public final class BeforeEngine implements AutoCloseable {

    private final Bench bench;
    private final OursSide ours;

    private BeforeEngine(Bench bench) {
        this.bench = bench;
        this.ours = new OursSide(bench);
    }

    /**
     * The before engine on the run's Redis ({@code url}, {@code embedded}), its two Redisson clients and its Redis clock
     * (the four numbers of {@link RedisClock#of}), with the run's flags ({@code args}, parsed again here).
     */
    public static BeforeEngine open(List<String> args, String url, boolean embedded, RedissonClient producer,
            RedissonClient consumer, long clockAnchorNanos, double clockAnchorServerMs, double clockOffsetMs,
            double clockRttMs) {
        Settings settings = new Settings(args.toArray(String[]::new));
        RedisClock clock = RedisClock.of(clockAnchorNanos, clockAnchorServerMs, clockOffsetMs, clockRttMs);
        return new BeforeEngine(new Bench(settings, url, embedded, producer, consumer, clock));
    }

    /**
     * Runs {@link OursSide}'s method {@code op} with {@code args} (each an int or, for a timeout, a long) and returns
     * its value and detail. {@code warmUp} returns NaN.
     */
    public Map.Entry<Double, Map<String, String>> run(String op, long[] args) throws Exception {
        Side.Measure m = switch (op) {
            case "burstDrain" -> ours.burstDrain(i(args, 0), args[1]);
            case "burstDrain10m" -> ours.burstDrain10m(i(args, 0), args[1]);
            case "replaceById" -> ours.replaceById(i(args, 0), i(args, 1), i(args, 2));
            case "lateness" -> ours.lateness(i(args, 0), i(args, 1), i(args, 2));
            case "enqueueRate" -> ours.enqueueRate(i(args, 0), i(args, 1));
            case "enqueueBatchRate" -> ours.enqueueBatchRate(i(args, 0), i(args, 1), i(args, 2));
            case "endToEnd" -> ours.endToEnd(i(args, 0), i(args, 1), i(args, 2), i(args, 3));
            case "bytesPerMessage" -> ours.bytesPerMessage(i(args, 0));
            case "warmUp" -> {
                ours.warmUp();
                yield Side.Measure.of(Double.NaN);
            }
            default -> throw new IllegalArgumentException("no before-side operation " + op);
        };
        return Map.entry(m.value(), new LinkedHashMap<>(m.detail()));
    }

    private static int i(long[] args, int at) {
        return Math.toIntExact(args[at]);
    }

    /**
     * Where this loader's engine comes from: the location of {@code DelayQueueClient} and the SHA-256 (first 12 hex
     * digits) of the {@code claim.lua} this loader finds, with its URL.
     */
    public String origin() {
        URL client = io.github.delayqueue.core.DelayQueueClient.class.getProtectionDomain().getCodeSource().getLocation();
        return "engine classes from " + client + ", claim.lua " + claimScript(BeforeEngine.class.getClassLoader());
    }

    /** {@code sha256:<12 hex digits> (<url>)} of the claim script {@code loader} finds, or why none. */
    static String claimScript(ClassLoader loader) {
        String name = "io/github/delayqueue/core/protocol/lua/claim.lua";
        URL url = loader.getResource(name);
        if (url == null) {
            return "not found";
        }
        try (InputStream in = url.openStream()) {
            byte[] sha = MessageDigest.getInstance("SHA-256").digest(in.readAllBytes());
            return "sha256:" + HexFormat.of().formatHex(sha).substring(0, 12) + " (" + url + ")";
        } catch (IOException | NoSuchAlgorithmException e) {
            return "unreadable (" + e + ")";
        }
    }

    /** Closes this side's measuring connection; the Redisson clients are the run's. */
    @Override
    public void close() {
        bench.close();
    }
}
