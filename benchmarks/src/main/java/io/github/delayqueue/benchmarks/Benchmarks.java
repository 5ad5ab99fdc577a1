package io.github.delayqueue.benchmarks;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.MathContext;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Side-by-side benchmarks of delayqueue and Redisson's {@code RDelayedQueue} (issue #5). Run every
 * scenario with
 *
 * <pre>
 * ./mvnw -q -pl benchmarks -am package -DskipTests &amp;&amp; java -jar benchmarks/target/benchmarks.jar
 * </pre>
 *
 * <p>against an embedded Redis started for the run, or against {@code DELAYQUEUE_REDIS_URL} (or
 * {@code --redis-url=}). Each scenario prints one line
 * {@code RESULT scenario=<name> ours=<n> redisson=<n> unit=<unit> better=<ratio>} ({@code better} above
 * 1 means ours is better, whichever way the unit points; {@code NaN} where not measured) and
 * {@code DETAIL} lines. Lines starting with {@code #} describe the run. {@code --help} lists the flags.
 */
public final class Benchmarks {

    /** One RESULT line. */
    public record Result(String scenario, double ours, double redisson, String unit, double better) {
    }

    private final Settings settings;
    private final PrintStream out;
    private final List<String> sides;

    private Benchmarks(Settings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
        this.sides = List.of(settings.get("sides").split(","));
    }

    public static void main(String[] args) throws Exception {
        Settings settings;
        try {
            settings = new Settings(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.print(Settings.usage());
            System.exit(2);
            return;
        }
        if (settings.help) {
            System.out.print(Settings.usage());
            return;
        }
        new Benchmarks(settings, System.out).runAll();
        System.exit(0); // Redisson's and Netty's threads must not keep the JVM alive
    }

    /** Runs the benchmarks with these flags, printing to {@code out}; returns the RESULT lines. */
    public static List<Result> run(PrintStream out, String... args) throws Exception {
        return new Benchmarks(new Settings(args), out).runAll();
    }

    private Bench bench; // while runAll runs

    private List<Result> runAll() throws Exception {
        List<Result> results = new ArrayList<>();
        long started = System.nanoTime();
        try (Bench bench = new Bench(settings)) {
            this.bench = bench;
            OursSide ours = new OursSide(bench);
            RedissonSide redisson = new RedissonSide(bench);
            header(bench, ours);
            if (settings.bool("warmup")) {
                long w0 = System.nanoTime();
                // Two rounds. Both engines run on the same Redisson and Netty code, and the JIT compiles
                // that code for the calls it has seen: after one round, the side warmed first met code
                // recompiled for the other side's calls, and its first measured scenario paid the
                // deoptimization and recompilation (-XX:+PrintCompilation showed C2 code such as
                // CommandDecoder.decodeList "made not entrant" during ours' first burst, which used 0.97 s
                // of JVM CPU against 0.40-0.45 s for the same burst repeated). The second round runs on
                // code compiled for both.
                for (int round = 0; round < 2; round++) {
                    if (sides.contains("ours")) {
                        ours.warmUp();
                    }
                    if (sides.contains("redisson")) {
                        redisson.warmUp();
                    }
                }
                out.printf(Locale.ROOT, "# warm-up done in %.1f s%n", (System.nanoTime() - w0) / 1e9);
            }
            int threads = settings.integer("threads");
            long timeout = settings.integer("redisson-timeout");
            List<String> runs = new ArrayList<>();
            for (String scenario : settings.scenarios) {
                for (int i = 0; i < settings.integer("repeat"); i++) {
                    runs.add(scenario);
                }
            }
            for (String scenario : runs) {
                // start each scenario from a collected heap: the 1m burst leaves ~1 GB of garbage that
                // otherwise shows up as GC pauses in the lateness figures of the scenario after it
                System.gc();
                Thread.sleep(500);
                long s0 = System.nanoTime();
                switch (scenario) {
                    case "burst-drain-50k": {
                        int n = settings.integer("burst50k-size");
                        results.add(compare(scenario, "s", true, () -> ours.burstDrain(n, 600),
                                () -> redisson.burstDrain(n, timeout)));
                        break;
                    }
                    case "burst-drain-1m": {
                        int n = settings.integer("burst1m-size");
                        results.add(compare(scenario, "s", true, () -> ours.burstDrain(n, 600),
                                settings.bool("redisson-1m") ? () -> redisson.burstDrain(n, timeout) : null));
                        break;
                    }
                    case "replace-by-id-20k": {
                        int pending = settings.integer("replace-pending");
                        int secs = settings.integer("replace-seconds");
                        results.add(compare(scenario, "msg/s", false, () -> ours.replaceById(pending, threads, secs),
                                () -> redisson.replaceById(pending, threads, secs)));
                        break;
                    }
                    case "steady-lateness-p99": {
                        int rate = settings.integer("lateness-rate");
                        int secs = settings.integer("lateness-seconds");
                        int delay = settings.integer("lateness-delay-ms");
                        results.add(compare(scenario, "ms", true, () -> ours.lateness(rate, secs, delay),
                                () -> redisson.lateness(rate, secs, delay)));
                        break;
                    }
                    case "enqueue-rate": {
                        int count = settings.integer("enqueue-count");
                        results.add(compare(scenario, "msg/s", false, () -> ours.enqueueRate(count, threads),
                                () -> redisson.enqueueRate(count, threads)));
                        break;
                    }
                    case "enqueue-batch-rate": {
                        int count = settings.integer("batch-count");
                        int batch = settings.integer("send-batch");
                        results.add(compare(scenario, "msg/s", false, () -> ours.enqueueBatchRate(count, threads, batch),
                                null));
                        break;
                    }
                    case "end-to-end-rate": {
                        int secs = settings.integer("e2e-seconds");
                        int producers = settings.integer("e2e-producers");
                        int batch = settings.integer("e2e-batch");
                        int backlog = settings.integer("e2e-backlog");
                        results.add(compare(scenario, "msg/s", false, () -> ours.endToEnd(secs, producers, batch, backlog),
                                () -> redisson.endToEnd(secs, producers, batch, backlog)));
                        break;
                    }
                    case "end-to-end-rate-observed": {
                        int secs = settings.integer("e2e-seconds");
                        int producers = settings.integer("e2e-producers");
                        int batch = settings.integer("e2e-batch");
                        int backlog = settings.integer("e2e-backlog");
                        results.add(compare(scenario, "msg/s", false,
                                () -> ours.endToEndObserved(secs, producers, batch, backlog), null));
                        break;
                    }
                    case "redis-bytes-per-message": {
                        int count = settings.integer("memory-count");
                        if (!bench.embedded) {
                            out.println("# redis-bytes-per-message: external server; used_memory deltas include any "
                                    + "concurrent writes of other clients (memory_usage_of_keys_per_msg does not)");
                        }
                        results.add(compare(scenario, "bytes", true, () -> ours.bytesPerMessage(count),
                                () -> redisson.bytesPerMessage(count)));
                        break;
                    }
                    case "outbox-tx-rate": {
                        // not against Redisson: the starter's sends in JDBC transactions, outbox off and on
                        results.add(compare(scenario, "tx/s", false, () -> OutboxTxRate.run(bench, settings.get("postgres-url"),
                                settings.integer("outbox-threads"), settings.integer("outbox-seconds")), null));
                        break;
                    }
                    default:
                        throw new IllegalStateException(scenario);
                }
                out.printf(Locale.ROOT, "# %s took %.1f s%n", scenario, (System.nanoTime() - s0) / 1e9);
                out.flush();
            }
        }
        observedShare = observedShare(results);
        out.printf(Locale.ROOT, "# total %.1f s%n", (System.nanoTime() - started) / 1e9);
        out.println("# load average at the end: " + loadAverage());
        table(results);
        out.flush();
        return results;
    }

    /** Mean observed end-to-end rate over the mean plain one, of this run; NaN without both. */
    private double observedShare = Double.NaN;

    private double observedShare(List<Result> results) {
        double plain = results.stream().filter(r -> r.scenario().equals("end-to-end-rate")).mapToDouble(Result::ours)
                .average().orElse(Double.NaN);
        double observed = results.stream().filter(r -> r.scenario().equals("end-to-end-rate-observed"))
                .mapToDouble(Result::ours).average().orElse(Double.NaN);
        double share = observed / plain;
        if (Double.isFinite(share)) {
            out.printf(Locale.ROOT, "# end-to-end-rate-observed / end-to-end-rate (means) = %.3f%n", share);
        }
        return share;
    }

    /** The issue's target for a scenario: a description and whether the result meets it. */
    record Target(String text, boolean met) {
    }

    Target target(Result r) {
        switch (r.scenario()) {
            case "burst-drain-50k":
                return new Target("≥ 20× better", r.better() >= 20);
            case "burst-drain-1m":
                return new Target("< 20 s", r.ours() < 20);
            case "replace-by-id-20k":
                return new Target("≥ 50× better", r.better() >= 50);
            case "steady-lateness-p99":
                return new Target("≤ 10 ms", r.ours() <= 10);
            case "enqueue-rate":
                return new Target("≥ 1.5× better", r.better() >= 1.5);
            case "enqueue-batch-rate":
                return new Target("≥ 100,000 msg/s", r.ours() >= 100_000);
            case "end-to-end-rate":
                return new Target("≥ 30,000 msg/s", r.ours() >= 30_000);
            case "end-to-end-rate-observed":
                return new Target("≥ 90% of end-to-end-rate", observedShare >= 0.9);
            case "redis-bytes-per-message":
                return new Target("≤ Redisson", r.ours() <= r.redisson());
            case "outbox-tx-rate":
                return new Target("none (outbox on; off in DETAIL)", true);
            default:
                return new Target("", false);
        }
    }

    /** The results as a markdown table (for docs/benchmarks.md), every line starting with '|'. */
    private void table(List<Result> results) {
        out.println();
        out.println("| scenario | ours | Redisson | unit | better | target | met? |");
        out.println("| --- | ---: | ---: | --- | ---: | --- | --- |");
        for (Result r : results) {
            Target t = target(r);
            out.println("| `" + r.scenario() + "` | " + format(r.ours()) + " | " + format(r.redisson()) + " | "
                    + r.unit() + " | " + (Double.isNaN(r.better()) ? "–" : format(r.better()) + "×") + " | " + t.text()
                    + " | " + (Double.isNaN(r.ours()) ? "not measured" : t.met() ? "yes" : "**no**") + " |");
        }
    }

    static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private void header(Bench bench, OursSide ours) {
        out.println("# delayqueue benchmarks " + LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME));
        out.println("# redis " + bench.redisVersion() + " at " + bench.url.replaceAll("//[^@/]*@", "//***@") + (bench.embedded ? " (embedded, started for this run)"
                : " (external: DELAYQUEUE_REDIS_URL / --redis-url; may be shared)"));
        out.printf(Locale.ROOT, "# redis clock offset %.3f ms (server minus JVM wall clock), TIME round trip %.3f ms%n",
                bench.clock.offsetMs(), bench.clock.rttMs());
        out.println("# jvm " + System.getProperty("java.vm.name") + " " + System.getProperty("java.version") + ", "
                + Runtime.getRuntime().availableProcessors() + " cores, max heap "
                + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB");
        out.println("# payload: a String of " + Side.PAYLOAD_CHARS + " ASCII chars (our stored JSON: "
                + (Side.PAYLOAD_CHARS + 2) + " bytes; Redisson: StringCodec, " + Side.PAYLOAD_CHARS + " bytes)");
        out.println("# our consumer: " + ours.consumerOptions());
        out.println("# flags: " + settings.describe());
        out.println("# load average at the start: " + loadAverage());
        out.flush();
    }

    interface Measurement {
        Side.Measure run() throws Exception;
    }

    private Result compare(String scenario, String unit, boolean lowerIsBetter, Measurement ours,
            @Nullable Measurement redisson) {
        Side.Measure o = sides.contains("ours") ? measure(ours) : Side.Measure.of(Double.NaN).with("skipped", "--sides");
        Side.Measure r = redisson == null || !sides.contains("redisson") ? null : measure(redisson);
        double oursValue = o.value();
        double redissonValue = r == null ? Double.NaN : r.value();
        double better = lowerIsBetter ? redissonValue / oursValue : oursValue / redissonValue;
        if (!Double.isFinite(better)) {
            better = Double.NaN;
        }
        Result result = new Result(scenario, oursValue, redissonValue, unit, better);
        out.println("RESULT scenario=" + scenario + " ours=" + format(oursValue) + " redisson=" + format(redissonValue)
                + " unit=" + unit + " better=" + format(better));
        detail(scenario, "ours", o);
        if (r != null) {
            detail(scenario, "redisson", r);
        }
        out.flush();
        return result;
    }

    /** Runs one side of a scenario; its DETAIL line ends with the CPU seconds of the whole run, setup included. */
    private Side.Measure measure(Measurement m) {
        try {
            Bench.CpuMeter cpu = bench.cpu();
            return cpu.addTo(m.run(), "run_");
        } catch (Exception | AssertionError e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return Side.Measure.of(Double.NaN).with("error", String.valueOf(e).replace('\n', ' '));
        }
    }

    private void detail(String scenario, String side, Side.Measure m) {
        StringBuilder sb = new StringBuilder("DETAIL scenario=").append(scenario).append(" side=").append(side);
        for (Map.Entry<String, String> e : m.detail().entrySet()) {
            sb.append(' ').append(e.getKey()).append('=').append(e.getValue().replace(' ', '_'));
        }
        out.println(sb);
    }

    /** Four significant digits, plain notation; NaN as {@code NaN}. */
    static String format(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "NaN";
        }
        if (Math.abs(value) >= 10_000) {
            return Long.toString(Math.round(value));
        }
        if (value == 0) {
            return "0";
        }
        return new BigDecimal(value).round(new MathContext(4)).stripTrailingZeros().toPlainString();
    }
}
