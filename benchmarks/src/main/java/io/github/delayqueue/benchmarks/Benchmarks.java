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
 * {@code --redis-url=}). Each scenario runs {@code --rounds} rounds (default 5) alternating the engines and
 * prints one line {@code RESULT scenario=<name> ours=<median> redisson=<median> unit=<unit> better=<ratio>}
 * ({@code better} is the ratio of the medians; above 1 means ours is better, whichever way the unit points;
 * {@code NaN} where not measured), a {@code DETAIL scenario=<name> rounds=<side>:<v1>,<v2>,...} line per side,
 * and a DETAIL line per side with the details of its median round. Lines starting with {@code #} describe the run. {@code --help} lists the flags.
 *
 * <p>Issue 43 part 4 (the engine before and after the refactor of its claim and settle scripts into stages, in one
 * run): {@code --before-jar=} adds a fourth side, {@code before}, the engine of an older delayqueue-core jar in a class
 * loader of its own ({@link BeforeSide}), in {@link Settings#BEFORE_SCENARIOS}, and a second table with issue 43 part
 * 4's targets. The before jar is delayqueue-core at ddcb2d3 (the last commit before the refactor began, 2591d91), built
 * in a worktree that is never committed:
 *
 * <pre>
 * git worktree add ../delayqueue-before ddcb2d3
 * (cd ../delayqueue-before &amp;&amp; ./mvnw -B -ntp -q -o -pl delayqueue-core package -DskipTests)
 * ./mvnw -B -ntp -q -o -pl benchmarks -am package -DskipTests
 * java -jar benchmarks/target/benchmarks.jar \
 *     --before-jar=../delayqueue-before/delayqueue-core/target/delayqueue-core-0.1.0-SNAPSHOT.jar
 * </pre>
 */
public final class Benchmarks {

    /** One RESULT line. */
    public record Result(String scenario, double ours, double redisson, String unit, double better) {
    }

    private final Settings settings;
    private final PrintStream out;
    private final List<String> sides;

    Benchmarks(Settings settings, PrintStream out) { // package-private: BenchmarksFiguresTest judges figures it sets
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

    /** The before side ({@code --before-jar}) while runAll runs; null without it. */
    private @Nullable BeforeSide before;

    /** {@code m} where the before side runs, else null (no before rounds). */
    private @Nullable Measurement before(Measurement m) {
        return before == null ? null : m;
    }

    private List<Result> runAll() throws Exception {
        List<Result> results = new ArrayList<>();
        long started = System.nanoTime();
        try (Bench bench = new Bench(settings); BeforeSide before = BeforeSide.openIfAsked(bench, settings)) {
            this.bench = bench;
            this.before = before;
            OursSide ours = new OursSide(bench);
            RedissonSide redisson = new RedissonSide(bench);
            FloorSide floor = new FloorSide(bench);
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
                    if (before != null) {
                        before.warmUp();
                    }
                    if (sides.contains("redisson")) {
                        redisson.warmUp();
                    }
                    if (sides.contains(FloorSide.NAME)) {
                        floor.endToEnd(1, 2, 100, 20_000);
                    }
                }
                out.printf(Locale.ROOT, "# warm-up done in %.1f s%n", (System.nanoTime() - w0) / 1e9);
            }
            int threads = settings.integer("threads");
            long timeout = settings.integer("redisson-timeout");
            for (String scenario : settings.scenarios) {
                long s0 = System.nanoTime();
                switch (scenario) {
                    case "burst-drain-50k": {
                        int n = settings.integer("burst50k-size");
                        results.add(compare(scenario, "s", true, () -> ours.burstDrain(n, 600),
                                before(() -> before.burstDrain(n, 600)), "redisson", () -> redisson.burstDrain(n, timeout),
                                () -> floor.burstDrain(n, 600), settings.integer("rounds")));
                        break;
                    }
                    case "burst-drain-1m": {
                        int n = settings.integer("burst1m-size");
                        results.add(compare(scenario, "s", true, () -> ours.burstDrain(n, 600),
                                before(() -> before.burstDrain(n, 600)), "redisson",
                                settings.bool("redisson-1m") ? () -> redisson.burstDrain(n, timeout) : null,
                                () -> floor.burstDrain(n, 600), settings.integer("rounds")));
                        break;
                    }
                    case "replace-by-id-20k": {
                        int pending = settings.integer("replace-pending");
                        int secs = settings.integer("replace-seconds");
                        results.add(compare(scenario, "msg/s", false, () -> ours.replaceById(pending, threads, secs),
                                before(() -> before.replaceById(pending, threads, secs)), "redisson",
                                () -> redisson.replaceById(pending, threads, secs), null, settings.integer("rounds")));
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
                    case "enqueue-rate-1", "enqueue-rate-8", "enqueue-rate-32": {
                        int count = settings.integer("enqueue-count");
                        int senders = Integer.parseInt(scenario.substring("enqueue-rate-".length()));
                        results.add(compare(scenario, "msg/s", false, () -> ours.enqueueRate(count, senders),
                                before(() -> before.enqueueRate(count, senders)), "redisson",
                                () -> redisson.enqueueRate(count, senders), () -> floor.enqueueRate(count, senders),
                                settings.integer("rounds")));
                        break;
                    }
                    case "enqueue-batch-rate": {
                        int count = settings.integer("batch-count");
                        int batch = settings.integer("send-batch");
                        results.add(compare(scenario, "msg/s", false, () -> ours.enqueueBatchRate(count, threads, batch),
                                before(() -> before.enqueueBatchRate(count, threads, batch)), "redisson", null,
                                () -> floor.enqueueBatchRate(count, threads, batch), settings.integer("rounds")));
                        break;
                    }
                    case "end-to-end-rate": {
                        int secs = settings.integer("e2e-seconds");
                        int producers = settings.integer("e2e-producers");
                        int batch = settings.integer("e2e-batch");
                        int backlog = settings.integer("e2e-backlog");
                        results.add(compare(scenario, "msg/s", false, () -> ours.endToEnd(secs, producers, batch, backlog),
                                before(() -> before.endToEnd(secs, producers, batch, backlog)), "redisson",
                                () -> redisson.endToEnd(secs, producers, batch, backlog),
                                () -> floor.endToEnd(secs, producers, batch, backlog), settings.integer("rounds")));
                        break;
                    }
                    case "end-to-end-rate-observed": {
                        int secs = settings.integer("e2e-seconds");
                        int producers = settings.integer("e2e-producers");
                        int batch = settings.integer("e2e-batch");
                        int backlog = settings.integer("e2e-backlog");
                        // observed and plain rounds alternate, so the share is of medians taken under the same load
                        results.add(compare(scenario, "msg/s", false,
                                () -> ours.endToEndObserved(secs, producers, batch, backlog), "plain",
                                () -> ours.endToEnd(secs, producers, batch, backlog)));
                        break;
                    }
                    case "history": {
                        int n = settings.integer("history-count");
                        java.time.Duration age = java.time.Duration.ofSeconds(settings.integer("history-max-age-s"));
                        int most = settings.integer("history-max-count");
                        // on and off rounds alternate (on first), so the ratio is of medians taken under the same load
                        results.add(compare(scenario, "msg/s", false, () -> ours.history(n, age, most), "off",
                                () -> ours.history(n, null, most)));
                        historyLine(scenario);
                        break;
                    }
                    case "set-completion": {
                        int n = settings.integer("set-count");
                        int sets = settings.integer("set-sets"); // Settings checked it: 1 to --set-count
                        setSamples.clear();
                        // set and plain rounds alternate (set first), so the ratio is of medians taken under the same load
                        results.add(compare(scenario, "redis_us/msg", true, () -> ours.setCompletion(n, sets, setSamples),
                                "plain", () -> ours.setPlain(n)));
                        setLine(scenario);
                        break;
                    }
                    case "priorities": {
                        int n = settings.integer("priorities-count");
                        io.github.delayqueue.core.ConsumerOptions options = ours.consumerOptions();
                        if (!settings.bool("warmup") && sides.contains("ours")) {
                            // without the run's warm-up (which includes this), its own: two untimed rounds of each
                            // side, of 20,000 messages each (of --priorities-count where that is fewer)
                            long w0 = System.nanoTime();
                            Priorities.warmUp(bench, options, Math.min(20_000, n));
                            out.printf(Locale.ROOT, "# priorities: its own warm-up done in %.1f s%n",
                                    (System.nanoTime() - w0) / 1e9);
                        }
                        // with and without rounds alternate (with first), so the ratios are of medians taken under the
                        // same load
                        results.add(compare(scenario, "msg/s", false,
                                () -> Priorities.measure(bench, options, n, true, 600), "without",
                                () -> Priorities.measure(bench, options, n, false, 600), null,
                                settings.integer("priorities-rounds")));
                        prioritiesLine(scenario);
                        break;
                    }
                    case "observed-path-cost": {
                        results.add(observedPathCost(scenario, settings.integer("rounds"),
                                settings.integer("path-cost-batches")));
                        break;
                    }
                    case "end-to-end-batch": {
                        int secs = settings.integer("e2e-seconds");
                        int producers = settings.integer("e2e-producers");
                        int batch = settings.integer("e2e-batch");
                        int backlog = settings.integer("e2e-backlog");
                        int handlerBatch = settings.integer("e2e-handler-batch");
                        // batch and single-message rounds alternate in one run; jvm_cpu_s / sent is CPU per message
                        results.add(compare(scenario, "msg/s", false,
                                () -> ours.endToEndBatch(secs, producers, batch, backlog, handlerBatch), "single",
                                () -> ours.endToEnd(secs, producers, batch, backlog)));
                        break;
                    }
                    case "redis-bytes-per-message": {
                        int count = settings.integer("memory-count");
                        if (!bench.embedded) {
                            out.println("# redis-bytes-per-message: external server; used_memory deltas include any "
                                    + "concurrent writes of other clients (memory_usage_of_keys_per_msg does not)");
                        }
                        results.add(compare(scenario, "bytes", true, () -> ours.bytesPerMessage(count),
                                before(() -> before.bytesPerMessage(count)), "redisson",
                                () -> redisson.bytesPerMessage(count), () -> floor.bytesPerMessage(count),
                                settings.integer("rounds")));
                        break;
                    }
                    case "lateness-under-burst": {
                        int rate = settings.integer("lateness-rate");
                        int delay = settings.integer("lateness-delay-ms");
                        int burst = settings.integer("under-burst-size");
                        results.add(compare(scenario, "ms", true, () -> ours.latenessUnderBurst(rate, delay, burst, 600),
                                () -> redisson.latenessUnderBurst(rate, delay, burst, timeout)));
                        break;
                    }
                    case "rate-limited-drain": {
                        int n = settings.integer("ratelimit-size");
                        io.github.delayqueue.core.RateLimit rate = io.github.delayqueue.core.RateLimit.parse(
                                settings.get("ratelimit-rate"));
                        int instances = settings.integer("ratelimit-instances");
                        results.add(compare(scenario, "ratio", false, () -> ours.rateLimitedDrain(n, rate, instances, 600),
                                null));
                        break;
                    }
                    case "groups-fairness": { // GroupsFairness: with groups against the same load without
                        Measurement with = () -> GroupsFairness.measure(bench, settings.integer("groups-big"),
                                settings.integer("groups-small"), io.github.delayqueue.core.RateLimit.parse(settings.get("groups-queue-rate")),
                                io.github.delayqueue.core.RateLimit.parse(settings.get("groups-group-rate")), settings.integer("groups-instances"), true, 600);
                        Measurement without = () -> GroupsFairness.measure(bench, settings.integer("groups-big"),
                                settings.integer("groups-small"), io.github.delayqueue.core.RateLimit.parse(settings.get("groups-queue-rate")),
                                io.github.delayqueue.core.RateLimit.parse(settings.get("groups-group-rate")), settings.integer("groups-instances"), false, 600);
                        results.add(compare(scenario, "s", true, with, "without-groups", without));
                        break;
                    }
                    case "consumers-4": {
                        int n = settings.integer("consumers4-size");
                        results.add(compare(scenario, "s", true, () -> ours.consumers4(n, 600),
                                settings.bool("redisson-consumers4") ? () -> redisson.consumers4(n, timeout) : null));
                        break;
                    }
                    case "burst-drain-10m": {
                        int n = settings.integer("burst10m-size");
                        // Redisson is not run: at its ~3,000 msg/s drain of 50k (and slower as the queue grows)
                        // 10,000,000 messages would take more than an hour
                        results.add(compare(scenario, "s", true, () -> ours.burstDrain10m(n, 1800),
                                before(() -> before.burstDrain10m(n, 1800)), "redisson", null, null,
                                settings.integer("burst10m-rounds")));
                        break;
                    }
                    case "end-to-end-rate-cluster": {
                        // issue 20: prints its own RESULT and DETAIL lines (one queue of 1 and of 6 partitions on 3
                        // masters it starts); the RESULT line goes into the table as well
                        List<String> lines = ClusterRate.run(out, settings.integer("cluster-seconds"),
                                settings.integer("e2e-producers"), settings.integer("e2e-batch"),
                                settings.integer("e2e-backlog"), settings.integer("rounds"));
                        double sixPartitions = Double.parseDouble(lines.get(0).replaceAll(".* ours=(\\S+) .*", "$1"));
                        clusterEven = lines.stream().anyMatch(l -> l.contains(" partitions=6 ")
                                && l.contains("even_within_15pct=true"));
                        results.add(new Result(scenario, sixPartitions, Double.NaN, "msg/s", Double.NaN));
                        break;
                    }
                    case "schedules-100k": {
                        // Redisson: RScheduledExecutorService.schedule(task, CronSchedule), run by its executor workers
                        results.add(compare(scenario, "ms", true, () -> ours.schedules(settings.integer("schedules-count"),
                                settings.integer("schedules-period-ms"), settings.integer("schedules-ticks"), threads),
                                () -> redisson.schedules(settings.integer("schedules-count"),
                                        settings.integer("schedules-period-ms"), settings.integer("schedules-ticks"), threads)));
                        break;
                    }
                    case "idle-cost": {
                        // IdleQueueCost: both idle-polling designs on a Redis of its own, once (no rounds: ~5.5 min);
                        // the "redisson" slot holds our per-consumer design, the better ratio per-consumer / shared
                        IdleQueueCost.Report report = IdleQueueCost.run(out, settings.integer("idle-queues"),
                                java.time.Duration.ofMillis(settings.integer("idle-max-poll-ms")),
                                settings.integer("idle-seconds"), settings.integer("idle-settle-seconds"),
                                IdleQueueCost.parseInstances(settings.get("idle-instances")),
                                settings.integer("idle-messages"));
                        idleReport = report;
                        int most = report.most();
                        double shared = report.commandsPerS(IdleQueueCost.SHARED, most);
                        double perConsumer = report.commandsPerS(IdleQueueCost.PER_CONSUMER, most);
                        double better = perConsumer / shared;
                        Result result = new Result(scenario, shared, perConsumer, "commands/s",
                                Double.isFinite(better) ? better : Double.NaN);
                        out.println("RESULT scenario=" + scenario + " ours=" + format(result.ours()) + " redisson="
                                + format(result.redisson()) + " unit=" + result.unit() + " better=" + format(result.better()));
                        out.println("DETAIL scenario=" + scenario + " ours=shared_at_" + most + "_instances redisson="
                                + "per-consumer_at_" + most + "_instances (ours, not Redisson) redis_cpu_pct_shared="
                                + format(report.cpuPct(IdleQueueCost.SHARED, most)) + " redis_cpu_pct_per_consumer="
                                + format(report.cpuPct(IdleQueueCost.PER_CONSUMER, most)));
                        report.table(out);
                        results.add(result);
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
        observedShare();
        out.printf(Locale.ROOT, "# total %.1f s%n", (System.nanoTime() - started) / 1e9);
        out.println("# load average at the end: " + loadAverage());
        table(results);
        out.flush();
        return results;
    }

    /**
     * The median observed end-to-end rate over the median plain one, both from end-to-end-rate-observed's own
     * alternating rounds; NaN without them.
     */
    private double observedShare = Double.NaN;

    void observedShare() {
        Rounds r = rounds.get("end-to-end-rate-observed");
        if (r == null || r.second() == null) {
            return;
        }
        double share = r.first().median() / r.second().median();
        if (Double.isFinite(share)) {
            observedShare = share;
            out.printf(Locale.ROOT, "# end-to-end-rate-observed / plain end-to-end rate (medians of alternating rounds) = %.3f%n",
                    share);
        }
    }

    /** history's median rate on over off, from its own alternating rounds; NaN without them. */
    private double historyShare = Double.NaN;

    /**
     * {@code DETAIL scenario=history on=<median msg/s> off=<median msg/s> on_vs_off=<ratio> redis_us_on=… redis_us_off=…
     * jvm_us_on=… jvm_us_off=… bytes_per_kept_entry=<median>}: the rate with the history on over off, the CPU per
     * message of each (medians over the rounds), and the bytes a kept record costs in Redis.
     */
    private void historyLine(String scenario) {
        Rounds r = rounds.get(scenario);
        if (r == null || r.second() == null) {
            return;
        }
        historyShare = r.first().median() / r.second().median();
        out.println("DETAIL scenario=" + scenario + " on=" + format(r.first().median()) + " off="
                + format(r.second().median()) + " on_vs_off=" + format(historyShare) + " redis_us_on="
                + format(cpuOf(scenario, "ours", 0)) + " redis_us_off=" + format(cpuOf(scenario, "off", 0)) + " jvm_us_on="
                + format(cpuOf(scenario, "ours", 1)) + " jvm_us_off=" + format(cpuOf(scenario, "off", 1))
                + " bytes_per_kept_entry=" + format(medianOfDetail(r.first().measures(), "bytes_per_kept_entry")));
    }

    /** set-completion's callback latencies of every round's sets, ms: {return → start, return → sent, sent → start}. */
    final List<double[]> setSamples = java.util.Collections.synchronizedList(new ArrayList<>()); // tests set them

    /** set-completion's median Redis CPU per member over per message without a set; NaN without them. */
    private double setShare = Double.NaN;

    /** set-completion's p50 and p99 (ms) of last member's return → callback's handler start, over every round's sets. */
    private double setP50 = Double.NaN;
    private double setP99 = Double.NaN;

    /** The bound on set-completion's ratio: Redis CPU per member ≤ 1.3× per message of the same messages without a set. */
    static final double SET_CPU_BOUND = 1.3;

    /**
     * {@code DETAIL scenario=set-completion set=<median µs> plain=<median µs> set_vs_plain=<ratio> within_1.3x=PASS|MISS
     * set_vs_plain_by_round=… jvm_us_set=… jvm_us_plain=… return_to_callback_p50_ms=… return_to_callback_p99_ms=…
     * return_to_callback_max_ms=… return_to_sent_p50_ms=… return_to_sent_p99_ms=… sent_to_start_p50_ms=…
     * sent_to_start_p99_ms=… sets=<n>}: Redis CPU per member of the set over per message of the same messages sent
     * without one (medians of the alternating rounds; each round's own ratio too), and the callbacks' latency over every
     * round's sets (nearest rank); then {@code DETAIL scenario=set-completion commands=usec_per_msg …}: per command, the
     * median over the rounds of its Redis microseconds per message, set and plain, and the difference.
     */
    void setLine(String scenario) { // package-private: BenchmarksFiguresTest judges figures it sets
        Rounds r = rounds.get(scenario);
        if (r == null || r.second() == null) {
            return;
        }
        setShare = r.first().median() / r.second().median();
        StringBuilder byRound = new StringBuilder();
        for (int i = 0; i < Math.min(r.first().measures().size(), r.second().measures().size()); i++) {
            byRound.append(i == 0 ? "" : ",").append(format(r.first().measures().get(i).value()
                    / r.second().measures().get(i).value()));
        }
        int n = setSamples.size();
        double[][] sorted = new double[3][n];
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < 3; k++) {
                sorted[k][i] = setSamples.get(i)[k];
            }
        }
        for (double[] s : sorted) {
            java.util.Arrays.sort(s);
        }
        setP50 = Side.percentile(sorted[0], n, 50);
        setP99 = Side.percentile(sorted[0], n, 99);
        out.println("DETAIL scenario=" + scenario + " set=" + format(r.first().median()) + " plain="
                + format(r.second().median()) + " set_vs_plain=" + format(setShare) + " within_" + format(SET_CPU_BOUND)
                + "x=" + (!Double.isFinite(setShare) ? "NaN" : setShare <= SET_CPU_BOUND ? "PASS" : "MISS")
                + " set_vs_plain_by_round=" + byRound + " jvm_us_set=" + format(cpuOf(scenario, "ours", 1))
                + " jvm_us_plain=" + format(cpuOf(scenario, "plain", 1)) + " return_to_callback_p50_ms=" + format(setP50)
                + " return_to_callback_p99_ms=" + format(setP99) + " return_to_callback_max_ms="
                + format(n == 0 ? Double.NaN : sorted[0][n - 1]) + " return_to_sent_p50_ms="
                + format(Side.percentile(sorted[1], n, 50)) + " return_to_sent_p99_ms="
                + format(Side.percentile(sorted[1], n, 99)) + " sent_to_start_p50_ms="
                + format(Side.percentile(sorted[2], n, 50)) + " sent_to_start_p99_ms="
                + format(Side.percentile(sorted[2], n, 99)) + " sets=" + n);
        Map<String, double[]> set = commandMedians(r.first().measures());
        Map<String, double[]> plain = commandMedians(r.second().measures());
        java.util.Set<String> commands = new java.util.LinkedHashSet<>(set.keySet());
        commands.addAll(plain.keySet());
        StringBuilder sb = new StringBuilder("DETAIL scenario=" + scenario + " commands=usec_per_msg(set/plain/set-plain)");
        for (String c : commands) {
            double a = set.containsKey(c) ? set.get(c)[0] : 0;
            double b = plain.containsKey(c) ? plain.get(c)[0] : 0;
            sb.append(' ').append(c).append('=').append(format(a)).append('/').append(format(b)).append('/')
                    .append(format(a - b));
        }
        out.println(sb);
    }

    /** priorities' median drain rate with priorities over without; NaN without them. */
    private double prioritiesShare = Double.NaN;

    /** priorities' median seconds until the last priority-9 message is handled, with priorities over without. */
    private double prioritiesHighShare = Double.NaN;

    /** The bound on priorities' rate: with priorities ≥ 0.9× the rate of the same backlog without. */
    static final double PRIORITIES_RATE_BOUND = 0.9;

    /**
     * {@code DETAIL scenario=priorities with=<median msg/s> without=<median msg/s> with_vs_without=<ratio>
     * within_0.9x=PASS|MISS with_vs_without_by_round=… redis_us_with=… redis_us_without=… jvm_us_with=… jvm_us_without=…
     * write_s_with=… write_s_without=…}: the drain rate of the backlog with priorities over without (medians of the
     * alternating rounds; each round's own ratio too), the CPU per message of each, and the seconds the backlog's sends
     * took (medians); then {@code DETAIL scenario=priorities last_high_s_with=<median>
     * last_high_s_without=<median> last_high_with_vs_without=<ratio> last_high_at_with=… last_high_at_without=…
     * last_high_s_by_round=<with>/<without>,…}: when the last priority-9 message was handled (seconds from the
     * consumer's start; and how many messages had been handled by then); then the per-command line as set-completion's.
     */
    void prioritiesLine(String scenario) { // package-private: BenchmarksFiguresTest judges figures it sets
        Rounds r = rounds.get(scenario);
        if (r == null || r.second() == null) {
            return;
        }
        List<Side.Measure> with = r.first().measures();
        List<Side.Measure> without = r.second().measures();
        prioritiesShare = r.first().median() / r.second().median();
        double highWith = medianOfDetail(with, "last_high_s");
        double highWithout = medianOfDetail(without, "last_high_s");
        prioritiesHighShare = highWith / highWithout;
        StringBuilder byRound = new StringBuilder();
        StringBuilder highByRound = new StringBuilder();
        for (int i = 0; i < Math.min(with.size(), without.size()); i++) {
            byRound.append(i == 0 ? "" : ",").append(format(with.get(i).value() / without.get(i).value()));
            highByRound.append(i == 0 ? "" : ",").append(with.get(i).detail().getOrDefault("last_high_s", "NaN"))
                    .append('/').append(without.get(i).detail().getOrDefault("last_high_s", "NaN"));
        }
        out.println("DETAIL scenario=" + scenario + " with=" + format(r.first().median()) + " without="
                + format(r.second().median()) + " with_vs_without=" + format(prioritiesShare) + " within_"
                + format(PRIORITIES_RATE_BOUND) + "x=" + (!Double.isFinite(prioritiesShare) ? "NaN"
                        : prioritiesShare >= PRIORITIES_RATE_BOUND ? "PASS" : "MISS")
                + " with_vs_without_by_round=" + byRound + " redis_us_with=" + format(cpuOf(scenario, "ours", 0))
                + " redis_us_without=" + format(cpuOf(scenario, "without", 0)) + " jvm_us_with="
                + format(cpuOf(scenario, "ours", 1)) + " jvm_us_without=" + format(cpuOf(scenario, "without", 1))
                + " write_s_with=" + format(medianOfDetail(with, "write_s")) + " write_s_without="
                + format(medianOfDetail(without, "write_s")));
        out.println("DETAIL scenario=" + scenario + " last_high_s_with=" + format(highWith) + " last_high_s_without="
                + format(highWithout) + " last_high_with_vs_without=" + format(prioritiesHighShare)
                + " last_high_at_with=" + format(medianOfDetail(with, "last_high_at")) + " last_high_at_without="
                + format(medianOfDetail(without, "last_high_at")) + " last_high_s_by_round=" + highByRound);
        Map<String, double[]> a = commandMedians(with);
        Map<String, double[]> b = commandMedians(without);
        java.util.Set<String> commands = new java.util.LinkedHashSet<>(a.keySet());
        commands.addAll(b.keySet());
        StringBuilder sb = new StringBuilder("DETAIL scenario=" + scenario
                + " commands=usec_per_msg(with/without/with-without)");
        for (String c : commands) {
            double x = a.containsKey(c) ? a.get(c)[0] : 0;
            double y = b.containsKey(c) ? b.get(c)[0] : 0;
            sb.append(' ').append(c).append('=').append(format(x)).append('/').append(format(y)).append('/')
                    .append(format(x - y));
        }
        out.println(sb);
    }

    /** Per command, the median over the rounds of its {@code cmd_usec_per_msg} (absent in a round: 0), largest first. */
    private static Map<String, double[]> commandMedians(List<Side.Measure> measures) {
        Map<String, List<Double>> by = new java.util.LinkedHashMap<>();
        int i = 0;
        for (Side.Measure m : measures) {
            String costs = m.detail().get("cmd_usec_per_msg");
            if (costs != null && !costs.isEmpty()) {
                for (String part : costs.split(",")) {
                    int colon = part.lastIndexOf(':');
                    List<Double> values = by.computeIfAbsent(part.substring(0, colon), k -> new ArrayList<>());
                    while (values.size() < i) {
                        values.add(0.0);
                    }
                    values.add(Double.parseDouble(part.substring(colon + 1)));
                }
            }
            i++;
        }
        Map<String, double[]> medians = new java.util.LinkedHashMap<>();
        by.forEach((c, values) -> {
            while (values.size() < measures.size()) {
                values.add(0.0);
            }
            medians.put(c, new double[] {median(values.stream().mapToDouble(Double::doubleValue).toArray(), true)});
        });
        List<Map.Entry<String, double[]>> entries = new ArrayList<>(medians.entrySet());
        entries.sort((x, y) -> Double.compare(y.getValue()[0], x.getValue()[0]));
        Map<String, double[]> ordered = new java.util.LinkedHashMap<>();
        entries.forEach(e -> ordered.put(e.getKey(), e.getValue()));
        return ordered;
    }

    /**
     * The issue's target for a scenario: a description and whether the result meets it; {@code measured} false when
     * the run did not take the figures it is judged on (then never met: the table says "not measured").
     */
    record Target(String text, boolean met, boolean measured) {
        Target {
            met &= measured;
        }

        Target(String text, boolean met) {
            this(text, met, true);
        }

        /** A target this run did not take the figures of: {@code text} says which. */
        static Target notMeasured(String text) {
            return new Target(text, false, false);
        }
    }

    /** idle-cost's figures, once it ran. */
    private IdleQueueCost.@Nullable Report idleReport;

    /** Whether end-to-end-rate-cluster's 6-partition variant spread the script calls evenly over the masters. */
    private boolean clusterEven;

    /** The floor's median figure in a scenario (NaN where the floor did not run). */
    private double floorValue(String scenario) {
        Rounds r = rounds.get(scenario);
        return r == null || r.floor() == null ? Double.NaN : r.floor().median();
    }

    /** "≤ 2× floor" style target on ours' Redis CPU per message over the floor's, with the run's ratio. */
    private Target redisVsFloor(String scenario, double most) {
        double ratio = cpuOf(scenario, "ours", 0) / cpuOf(scenario, FloorSide.NAME, 0);
        return new Target("Redis CPU per message ≤ " + format(most) + "× floor (" + ratioText(ratio) + ")", ratio <= most);
    }

    private static String ratioText(double ratio) {
        return Double.isFinite(ratio) ? format(ratio) + "×" : "floor not measured";
    }

    /** Issue 37's targets: ratios to Redisson and to the floor, measured in this run. */
    Target target(Result r) {
        switch (r.scenario()) {
            case "burst-drain-50k":
                return new Target("≥ 30× Redisson", r.better() >= 30);
            case "burst-drain-1m":
                return redisVsFloor(r.scenario(), 2);
            case "replace-by-id-20k":
                return new Target("≥ 500× Redisson", r.better() >= 500);
            case "steady-lateness-p99": {
                long early = oursDetailSum(r.scenario(), "early");
                return new Target("≤ Redisson's p99, never early (early in all rounds: " + early + ")",
                        r.ours() <= r.redisson() && early == 0);
            }
            case "enqueue-rate-1": {
                Target cpuTarget = redisVsFloor(r.scenario(), 1.5);
                return new Target("≥ 1.0× Redisson; " + cpuTarget.text().replace("per message", "per send"),
                        r.better() >= 1.0 && cpuTarget.met());
            }
            case "enqueue-rate-8":
                return new Target("≥ 1.2× Redisson", r.better() >= 1.2);
            case "enqueue-rate-32":
                return new Target("≥ 2× Redisson", r.better() >= 2);
            case "enqueue-batch-rate":
                return redisVsFloor(r.scenario(), 2);
            case "end-to-end-rate": {
                Target cpuTarget = redisVsFloor(r.scenario(), 2);
                return new Target(cpuTarget.text() + "; ≥ 5× Redisson", cpuTarget.met() && r.better() >= 5);
            }
            case "end-to-end-rate-observed": {
                String observe = settings.get("observe");
                String share = Double.isNaN(observedShare) ? "NaN" : format(100 * observedShare) + "%";
                if (!observe.equals("metrics")) { // the target is defined on the starter's defaults
                    return Target.notMeasured("the defaults (--observe=metrics) ≥ 90% of plain; this run: --observe="
                            + observe + " (" + share + ")");
                }
                return new Target("the defaults (meters on, observations off) ≥ 90% of plain (" + share + ")",
                        observedShare >= 0.9, Double.isFinite(observedShare));
            }
            case "observed-path-cost": {
                Rounds rr = rounds.get(r.scenario());
                double floor = rr == null || rr.second() == null ? Double.NaN : rr.second().median();
                double ratio = r.ours() / floor;
                // a floor of 0 or less (the instruments measured as free, or noise above their cost) gives no ratio
                return new Target("JVM CPU that observations and a tracer add per message ≤ 1.5× Micrometer's and "
                        + "Brave's own (" + format(floor) + " µs; " + (floor > 0 && Double.isFinite(ratio) ? format(ratio)
                        + "×" : "floor not above 0: no ratio") + ")", ratio <= 1.5, floor > 0 && Double.isFinite(ratio));
            }
            case "redis-bytes-per-message": {
                // MEMORY USAGE of each side's own keys: used_memory deltas also move with what other clients and the
                // previous side's deleted keys (freed lazily) do meanwhile, by megabytes at times
                Rounds rr = rounds.get(r.scenario());
                double ours = rr == null ? Double.NaN : medianOfDetail(rr.first().measures(), "memory_usage_of_keys_per_msg");
                double floor = rr == null || rr.floor() == null ? Double.NaN
                        : medianOfDetail(rr.floor().measures(), "memory_usage_of_keys_per_msg");
                double ratio = ours / floor;
                return new Target("≤ 1.15× the floor's bytes (MEMORY USAGE of the keys per message: " + format(ours) + " / "
                        + format(floor) + " = " + ratioText(ratio) + "; used_memory: " + ratioText(r.ours() / floorValue(
                                r.scenario())) + ")", floor > 0 && ratio <= 1.15);
            }
            case "lateness-under-burst":
                return new Target("≤ 20 ms", r.ours() <= 20);
            case "consumers-4": {
                Rounds rr = rounds.get(r.scenario());
                double one = rr == null ? Double.NaN : medianOfDetail(rr.first().measures(), "one_instance_s");
                long twice = oursDetailSum(r.scenario(), "handled_twice");
                return new Target("4 instances not slower than 1 (" + format(one) + " s), none handled twice (" + twice
                        + ")", r.ours() <= one && twice == 0);
            }
            case "burst-drain-10m":
                return burst10mTarget(r);
            case "rate-limited-drain":
                return new Target("measured / configured rate 0.98 to 1.0 (to 1.01: the clock reads of the first and last start)",
                        r.ours() >= 0.98 && r.ours() <= 1.01);
            case "groups-fairness": { // the small groups drain at their own limit whatever the big one does
                io.github.delayqueue.core.RateLimit group = io.github.delayqueue.core.RateLimit.parse(settings.get("groups-group-rate"));
                double own = (settings.integer("groups-small") - 1) * group.period().toNanos() / 1e9 / group.permits();
                long twice = oursDetailSum(r.scenario(), "handled_twice");
                return new Target("≤ 1.5 × the small groups' own limit time (" + format(own) + " s), none twice (" + twice
                        + ")", r.ours() <= 1.5 * own && twice == 0);
            }
            case "end-to-end-rate-cluster":
                return new Target("6 partitions: each master ±15% of a third of the script calls", clusterEven);
            case "idle-cost": {
                if (idleReport == null) {
                    return Target.notMeasured("idle-cost not run");
                }
                List<Target> all = idleReport.targets();
                boolean met = all.stream().allMatch(Target::met);
                boolean measured = all.stream().allMatch(Target::measured);
                return new Target(String.join("; ", all.stream().map(Target::text).toList()), met, measured);
            }
            case "outbox-tx-rate":
                return new Target("none (outbox on; off in DETAIL)", true);
            case "history":
                return new Target("history on ≥ 0.85× off, end to end (" + (Double.isFinite(historyShare)
                        ? format(historyShare) + "×" : "not measured") + ")", historyShare >= 0.85,
                        Double.isFinite(historyShare));
            case "set-completion":
                return new Target("Redis CPU per member ≤ " + format(SET_CPU_BOUND) + "× per message of the same messages "
                        + "without a set (" + (Double.isFinite(setShare) ? format(setShare) + "×" : "not measured")
                        + "); last member's handler return → callback's handler start p50 " + format(setP50) + " ms, p99 "
                        + format(setP99) + " ms (no target)", setShare <= SET_CPU_BOUND, Double.isFinite(setShare));
            case "priorities":
                return new Target("drain rate with priorities ≥ " + format(PRIORITIES_RATE_BOUND) + "× without ("
                        + (Double.isFinite(prioritiesShare) ? format(prioritiesShare) + "×" : "not measured")
                        + "); last priority-9 message handled at " + (Double.isFinite(prioritiesHighShare)
                                ? format(prioritiesHighShare) + "×" : "not measured") + " the time without (no target)",
                        prioritiesShare >= PRIORITIES_RATE_BOUND, Double.isFinite(prioritiesShare));
            case "end-to-end-batch":
                return new Target("none yet (batch handlers against single-message handlers; CPU in DETAIL)", true);
            case "schedules-100k": {
                long twice = oursDetailSum(r.scenario(), "handled_twice");
                return new Target("none yet; no tick handled twice (" + twice + ")", twice == 0);
            }
            default:
                return new Target("", false);
        }
    }

    /** Heap growth over the 10m drain that still counts as "as before it": 10% of the heap before, at least 16 MiB. */
    static boolean heapAsBefore(double beforeMb, double afterMb) {
        return afterMb - beforeMb <= Math.max(16, 0.1 * beforeMb);
    }

    /**
     * burst-drain-10m: its drain rate (median round) ≥ 0.8× burst-drain-1m's (the median of its rounds' drain rates)
     * in this run, and the heap used after the drain (after a GC) as before it.
     */
    private Target burst10mTarget(Result r) {
        Rounds ten = rounds.get(r.scenario());
        Rounds one = rounds.get("burst-drain-1m");
        double rate10 = ten == null ? Double.NaN : medianOfDetail(ten.first().measures(), "drain_rate_msg_s");
        double rate1 = one == null ? Double.NaN : medianOfDetail(one.first().measures(), "drain_rate_msg_s");
        double ratio = rate10 / rate1;
        double before = ten == null ? Double.NaN : medianOfDetail(ten.first().measures(), "heap_before_mb");
        double after = ten == null ? Double.NaN : medianOfDetail(ten.first().measures(), "heap_after_mb");
        boolean heap = heapAsBefore(before, after);
        return new Target("drain rate ≥ 0.8× the 1m drain's (" + format(rate10) + " / " + format(rate1) + " msg/s = "
                + (Double.isFinite(ratio) ? format(ratio) + "×" : (one == null ? "1m not run" : "NaN")) + "); heap after the drain "
                + "as before it (" + format(before) + " → " + format(after) + " MiB after GC)", ratio >= 0.8 && heap);
    }

    /**
     * The last row's target: our JVM CPU per message ≤ Redisson's in every scenario both ran (each scenario's
     * median over its rounds; see {@link #cpuPerMessage}). Not met where a scenario's ratio is not a number (one
     * side's CPU not measured); not measured when no scenario ran both sides.
     */
    Target jvmCpuTarget() {
        StringBuilder text = new StringBuilder("JVM CPU per message ≤ Redisson's in every scenario both run (ours ÷ "
                + "Redisson's:");
        boolean met = true;
        int compared = 0;
        for (String scenario : cpu.keySet()) {
            if (!cpu.get(scenario).containsKey("redisson")) {
                continue;
            }
            double ratio = cpuOf(scenario, "ours", 1) / cpuOf(scenario, "redisson", 1);
            text.append(compared == 0 ? " " : ", ").append(scenario).append(' ')
                    .append(Double.isFinite(ratio) ? format(ratio) : "not measured");
            met &= ratio <= 1; // false for NaN
            compared++;
        }
        return compared == 0 ? Target.notMeasured(text.append(" Redisson not run)").toString())
                : new Target(text.append(')').toString(), met);
    }

    /** The sum of a numeric DETAIL entry over every round of our side (0 where absent). */
    private long oursDetailSum(String scenario, String key) {
        Rounds r = rounds.get(scenario);
        if (r == null) {
            return 0;
        }
        long sum = 0;
        for (Side.Measure m : r.first().measures()) {
            String v = m.detail().get(key);
            if (v != null) {
                sum += Math.round(Double.parseDouble(v));
            }
        }
        return sum;
    }

    /** The median of a numeric DETAIL entry over rounds (NaN where absent). */
    private static double medianOfDetail(List<Side.Measure> measures, String key) {
        double[] values = new double[measures.size()];
        for (int i = 0; i < values.length; i++) {
            String v = measures.get(i).detail().get(key);
            values[i] = v == null ? Double.NaN : Double.parseDouble(v);
        }
        return median(values, true);
    }

    /**
     * The results as a markdown table (for docs/internals/benchmarks.md), every line starting with '|': each scenario's medians
     * (ours, Redisson's, the floor's where it ran), the ratio to Redisson's, and issue 37's target with whether this
     * run met it; a last row for the JVM CPU per message against Redisson's over every scenario both ran.
     */
    private void table(List<Result> results) {
        out.println();
        out.println("| scenario | ours | Redisson | floor | unit | better | target | met? |");
        out.println("| --- | ---: | ---: | ---: | --- | ---: | --- | --- |");
        for (Result r : results) {
            Target t = target(r);
            out.println("| `" + r.scenario() + "` | " + format(r.ours()) + " | " + format(r.redisson()) + " | "
                    + (Double.isNaN(floorValue(r.scenario())) ? "–" : format(floorValue(r.scenario()))) + " | "
                    + r.unit() + " | " + (Double.isNaN(r.better()) ? "–" : format(r.better()) + "×") + " | " + t.text()
                    + " | " + metText(Double.isNaN(r.ours()) ? Target.notMeasured(t.text()) : t) + " |");
        }
        Target jvm = jvmCpuTarget();
        out.println("| JVM CPU per message | | | | µs/msg | | " + jvm.text() + " | " + metText(jvm) + " |");
        if (settings.beforeJar != null) {
            part4Table();
        }
    }

    /**
     * Issue 43 part 4's targets (printed with {@code --before-jar}): each judged on ours (after the refactor), with the
     * before side's figure and the ratio of the two sides' figures beside it, all read from this run's medians.
     */
    private void part4Table() {
        out.println();
        out.println("| issue 43 part 4 target | after (ours) | before | after / before | met? (after) |");
        out.println("| --- | --- | --- | --- | --- |");
        for (Part4Row row : part4Rows()) {
            out.println("| " + row.target() + " | " + row.after() + " | " + row.before() + " | " + row.afterVsBefore()
                    + " | " + metText(row.met()) + " |");
        }
    }

    /**
     * One row of issue 43 part 4's table: the target, ours' and the before side's figure for it (each with the
     * quantity it is made of, the before side's with whether it too meets the target), the two sides' quantity in a
     * ratio, and whether ours meets it.
     */
    record Part4Row(String target, String after, String before, String afterVsBefore, Target met) {
    }

    /** The rows of issue 43 part 4's table, from the rounds and CPU figures of this run. */
    List<Part4Row> part4Rows() {
        List<Part4Row> rows = new ArrayList<>();
        for (String threads : List.of("1", "8")) {
            String scenario = "enqueue-rate-" + threads;
            rows.add(part4Row("single sends, " + threads + (threads.equals("1") ? " thread" : " threads")
                    + ": ≥ 0.95× the floor's rate", scenario, 0.95, true, "× floor",
                    side -> medianOf(scenario, side) / medianOf(scenario, FloorSide.NAME), side -> medianOf(scenario, side),
                    "msg/s", true));
        }
        rows.add(part4Row("single sends, 32 threads: ≥ 1.5× Redisson's rate", "enqueue-rate-32", 1.5, true, "× Redisson",
                side -> medianOf("enqueue-rate-32", side) / medianOf("enqueue-rate-32", "redisson"),
                side -> medianOf("enqueue-rate-32", side), "msg/s", true));
        String[][] cpuRows = {
            {"end-to-end-rate", "Redis CPU per message, end to end: ≤ 1.3× the floor's", "1.3"},
            {"burst-drain-1m", "Redis CPU per message, the 1m burst's drain: ≤ 1.3× the floor's", "1.3"},
            {"enqueue-rate-1", "Redis CPU per message, a lone thread's sends: ≤ 1.5× the floor's", "1.5"},
            {"enqueue-batch-rate", "Redis CPU per message, batch sends: ≤ 1.2× the floor's", "1.2"}};
        for (String[] c : cpuRows) {
            String scenario = c[0];
            rows.add(part4Row(c[1] + " (`" + scenario + "`)", scenario, Double.parseDouble(c[2]), false, "× floor",
                    side -> cpuOf(scenario, side, 0) / cpuOf(scenario, FloorSide.NAME, 0),
                    side -> cpuOf(scenario, side, 0), "Redis µs/msg", false));
        }
        rows.add(part4Row("burst-drain-50k: ≥ 30× Redisson", "burst-drain-50k", 30, true, "× Redisson",
                side -> medianOf("burst-drain-50k", "redisson") / medianOf("burst-drain-50k", side),
                side -> medianOf("burst-drain-50k", side), "s", false));
        rows.add(part4Row("replace-by-id-20k: ≥ 500× Redisson", "replace-by-id-20k", 500, true, "× Redisson",
                side -> medianOf("replace-by-id-20k", side) / medianOf("replace-by-id-20k", "redisson"),
                side -> medianOf("replace-by-id-20k", side), "msg/s", true));
        rows.add(part4Row("end-to-end-rate: ≥ 5× Redisson", "end-to-end-rate", 5, true, "× Redisson",
                side -> medianOf("end-to-end-rate", side) / medianOf("end-to-end-rate", "redisson"),
                side -> medianOf("end-to-end-rate", side), "msg/s", true));
        rows.add(part4Row("redis-bytes-per-message: ≤ 1.15× the floor's (MEMORY USAGE of the keys)",
                "redis-bytes-per-message", 1.15, false, "× floor",
                side -> detailMedian("redis-bytes-per-message", side, "memory_usage_of_keys_per_msg")
                        / detailMedian("redis-bytes-per-message", FloorSide.NAME, "memory_usage_of_keys_per_msg"),
                side -> detailMedian("redis-bytes-per-message", side, "memory_usage_of_keys_per_msg"), "bytes/msg", false));
        rows.add(part4Row("burst-drain-10m: drain rate ≥ 0.8× the 1m drain's (each side its own)", "burst-drain-10m", 0.8,
                true, "× its 1m drain's rate",
                side -> detailMedian("burst-drain-10m", side, "drain_rate_msg_s")
                        / detailMedian("burst-drain-1m", side, "drain_rate_msg_s"),
                side -> detailMedian("burst-drain-10m", side, "drain_rate_msg_s"), "msg/s", true));
        String share = Double.isNaN(observedShare) ? "n/a (end-to-end-rate-observed not run)"
                : format(100 * observedShare) + "% of plain";
        boolean defaults = settings.get("observe").equals("metrics");
        rows.add(new Part4Row("the defaults (meters on, observations off) ≥ 90% of plain (`end-to-end-rate-observed`)",
                defaults ? share : share + " (--observe=" + settings.get("observe") + ", not the defaults)",
                "n/a (not run: the observed path is the starter's, built on the current engine)", "n/a",
                new Target("", observedShare >= 0.9, defaults && Double.isFinite(observedShare))));
        return rows;
    }

    /**
     * A row whose target is {@code figure(side)} ≥ (or ≤) {@code bound}; {@code quantity(side)} in {@code unit} is what
     * the after / before column divides ({@code higherIsBetter} says which way it points).
     */
    private Part4Row part4Row(String target, String scenario, double bound, boolean atLeast, String figureUnit,
            java.util.function.ToDoubleFunction<String> figure, java.util.function.ToDoubleFunction<String> quantity,
            String unit, boolean higherIsBetter) {
        double after = figure.applyAsDouble("ours");
        double before = figure.applyAsDouble(BeforeSide.NAME);
        double qAfter = quantity.applyAsDouble("ours");
        double qBefore = quantity.applyAsDouble(BeforeSide.NAME);
        String absent = rounds.containsKey(scenario) ? "n/a (not measured)" : "n/a (" + scenario + " not run)";
        String afterText = Double.isFinite(after) ? format(after) + figureUnit + " (" + format(qAfter) + " " + unit + ")"
                : absent;
        String beforeText = Double.isFinite(before) ? format(before) + figureUnit + " (" + format(qBefore) + " " + unit
                + "); " + (meets(before, bound, atLeast) ? "met" : "not met") : absent;
        double ratio = qAfter / qBefore;
        String ratioText = Double.isFinite(ratio) ? format(ratio) + " (" + unit + ", " + (higherIsBetter ? "higher" : "lower")
                + " is better)" : "n/a";
        return new Part4Row(target, afterText, beforeText, ratioText,
                new Target(target, meets(after, bound, atLeast), Double.isFinite(after)));
    }

    private static boolean meets(double figure, double bound, boolean atLeast) {
        return atLeast ? figure >= bound : figure <= bound;
    }

    /** A side's rounds in a scenario by label (ours, before, floor, or the second side's: redisson), or null. */
    private @Nullable SideRounds sideRounds(String scenario, String label) {
        Rounds r = rounds.get(scenario);
        if (r == null) {
            return null;
        }
        return switch (label) {
            case "ours" -> r.first();
            case BeforeSide.NAME -> r.before();
            case FloorSide.NAME -> r.floor();
            default -> r.second() != null && r.second().label().equals(label) ? r.second() : null;
        };
    }

    /** A side's median figure in a scenario (NaN where it did not run). */
    private double medianOf(String scenario, String label) {
        SideRounds side = sideRounds(scenario, label);
        return side == null ? Double.NaN : side.median();
    }

    /** The median of a numeric DETAIL entry over a side's rounds in a scenario (NaN where absent). */
    private double detailMedian(String scenario, String label, String key) {
        SideRounds side = sideRounds(scenario, label);
        return side == null ? Double.NaN : medianOfDetail(side.measures(), key);
    }

    /** The table's "met?" column. */
    static String metText(Target t) {
        return !t.measured() ? "not measured" : t.met() ? "yes" : "**no**";
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
        out.println("# rounds: " + settings.integer("rounds") + " per scenario in this JVM, each round ours then the other "
                + "side (then the floor where it runs); RESULT = medians of the rounds, better = ratio of the medians; DETAIL rounds= every round");
        if (before != null) {
            out.println("# before (--before-jar, issue 43 part 4): " + before.origin());
            out.println("# before: in " + String.join(",", Settings.BEFORE_SCENARIOS) + " each round runs ours, before, "
                    + "floor, redisson; DETAIL before= has its median, after= ours', after_vs_before= their ratio");
        }
        out.println("# load average at the start: " + loadAverage());
        out.flush();
    }

    /**
     * observed-path-cost: {@link ObservedPathCost}'s variants on this thread, without Redis ({@code rounds} rounds
     * after two of warm-up, {@code batches} batches of 100 per variant and round). Ours: the JVM CPU per message that the
     * starter's observations with a tracer ({@code tracing}: metrics, observations with Boot's meter handler, Brave,
     * W3C, every trace sampled) add over {@code plain}; the second side, {@code micrometer-floor}: what the same
     * instruments add when called the least way any caller of Micrometer can (Micrometer's and Brave's own cost). Both
     * per round (the variants alternate within a round), in microseconds; the DETAIL of each round has every
     * variant's figure.
     */
    private Result observedPathCost(String scenario, int n, int batches) throws Exception {
        List<Side.Measure> added = new ArrayList<>();
        List<Side.Measure> floorAdded = new ArrayList<>();
        if (sides.contains("ours")) {
            Map<String, List<Double>> nanos = ObservedPathCost.rounds(n, batches);
            for (int i = 0; i < n; i++) {
                double plain = nanos.get("plain").get(i) / 1000;
                Side.Measure a = Side.Measure.of(nanos.get("tracing").get(i) / 1000 - plain);
                for (String variant : ObservedPathCost.VARIANTS) {
                    a.with(variant.replace('-', '_') + "_us", nanos.get(variant).get(i) / 1000);
                }
                a.with("messages", (long) batches * ObservedPathCost.BATCH).with("batch", ObservedPathCost.BATCH);
                added.add(a);
                floorAdded.add(Side.Measure.of(nanos.get("micrometer-floor").get(i) / 1000 - plain)
                        .with("micrometer_floor_us", nanos.get("micrometer-floor").get(i) / 1000).with("plain_us", plain));
            }
        } else {
            for (int i = 0; i < n; i++) {
                added.add(Side.Measure.of(Double.NaN).with("skipped", "--sides"));
            }
        }
        SideRounds ours = new SideRounds("ours", true, added);
        SideRounds floorRounds = floorAdded.isEmpty() ? null : new SideRounds("micrometer-floor", true, floorAdded);
        return print(scenario, "us/msg", true, ours, floorRounds, null);
    }

    interface Measurement {
        Side.Measure run() throws Exception;
    }

    /** Every round of one measured side: its label ("ours", "redisson", "plain") and its measures in round order. */
    record SideRounds(String label, boolean lowerIsBetter, List<Side.Measure> measures) {
        double median() {
            double[] values = measures.stream().mapToDouble(Side.Measure::value).toArray();
            return Benchmarks.median(values, lowerIsBetter);
        }

        /** The round whose value is nearest the median (the median round itself when the count is odd). */
        int medianRound() {
            double median = median();
            int best = 0;
            for (int i = 1; i < measures.size(); i++) {
                double d = Math.abs(measures.get(i).value() - median);
                double bestD = Math.abs(measures.get(best).value() - median);
                if (Double.isNaN(bestD) || d < bestD) {
                    best = i;
                }
            }
            return best;
        }
    }

    /**
     * The rounds of one scenario: ours, Redisson's or a second variant of ours, the floor's and the before side's (null
     * when not run).
     */
    record Rounds(SideRounds first, @Nullable SideRounds second, @Nullable SideRounds floor,
            @Nullable SideRounds before) {
        Rounds(SideRounds first, @Nullable SideRounds second, @Nullable SideRounds floor) {
            this(first, second, floor, null);
        }
    }

    /** The rounds of every scenario run so far, by scenario (package-private: tests set figures to judge). */
    final Map<String, Rounds> rounds = new java.util.LinkedHashMap<>();

    /**
     * The median of {@code values}; a NaN (a failed or skipped round) counts as the worst value, so that
     * failures cannot improve a median: the median is NaN when half the rounds or more failed.
     */
    static double median(double[] values, boolean lowerIsBetter) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double worst = lowerIsBetter ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
        double[] sorted = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            sorted[i] = Double.isNaN(values[i]) ? worst : values[i];
        }
        java.util.Arrays.sort(sorted);
        int n = sorted.length;
        double m = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        return Double.isInfinite(m) ? Double.NaN : m;
    }

    private Result compare(String scenario, String unit, boolean lowerIsBetter, Measurement ours,
            @Nullable Measurement redisson) {
        return compare(scenario, unit, lowerIsBetter, ours, "redisson", redisson);
    }

    /**
     * Runs {@code --rounds} rounds of a scenario, each round ours and then {@code second} (Redisson, or with
     * {@code secondLabel} "plain" another variant of ours), and prints its RESULT line (medians; {@code better}
     * is the ratio of the medians, only against Redisson) and DETAIL lines: one per side with every round's
     * value, and one per side with the details of its median round.
     */
    private Result compare(String scenario, String unit, boolean lowerIsBetter, Measurement ours, String secondLabel,
            @Nullable Measurement second) {
        return compare(scenario, unit, lowerIsBetter, ours, secondLabel, second, null);
    }

    /**
     * As above, with the {@link FloorSide floor} as a third side in the same rounds (after the other two) when
     * {@code floor} is given and {@code --sides} lists it: its {@code rounds=floor:} and {@code side=floor} DETAIL
     * lines, and a {@code floor=} DETAIL line with every side's CPU per message (medians over the rounds) and the
     * ratios to the floor's. The RESULT line is unchanged.
     */
    private Result compare(String scenario, String unit, boolean lowerIsBetter, Measurement ours, String secondLabel,
            @Nullable Measurement second, @Nullable Measurement floor) {
        return compare(scenario, unit, lowerIsBetter, ours, secondLabel, second, floor, settings.integer("rounds"));
    }

    /** As above, with {@code n} rounds instead of {@code --rounds}. */
    private Result compare(String scenario, String unit, boolean lowerIsBetter, Measurement ours, String secondLabel,
            @Nullable Measurement second, @Nullable Measurement floor, int n) {
        return compare(scenario, unit, lowerIsBetter, ours, null, secondLabel, second, floor, n);
    }

    /**
     * As above, with the {@link BeforeSide before} side as well where {@code before} is given ({@code --before-jar}):
     * each round runs ours, before, the floor, then {@code second} (without it: ours, {@code second}, the floor). It
     * adds the before side's {@code rounds=before:} and {@code side=before} DETAIL lines, a line
     * {@code DETAIL scenario=<s> before=<median> after=<ours' median> unit=<unit> after_vs_before=<ratio>}, and its CPU
     * per message on the {@code cpu_per_msg} line; the RESULT line is unchanged.
     */
    private Result compare(String scenario, String unit, boolean lowerIsBetter, Measurement ours,
            @Nullable Measurement before, String secondLabel, @Nullable Measurement second, @Nullable Measurement floor,
            int n) {
        boolean runOurs = sides.contains("ours");
        boolean runBefore = before != null;
        boolean runSecond = second != null && (secondLabel.equals("redisson") ? sides.contains("redisson") : runOurs);
        boolean runFloor = floor != null && sides.contains(FloorSide.NAME);
        List<Side.Measure> o = new ArrayList<>();
        List<Side.Measure> b = new ArrayList<>();
        List<Side.Measure> r = new ArrayList<>();
        List<Side.Measure> f = new ArrayList<>();
        for (int round = 0; round < n; round++) {
            o.add(runOurs ? measure(ours) : Side.Measure.of(Double.NaN).with("skipped", "--sides"));
            if (runBefore) { // issue 43 part 4's order: ours, before, floor, redisson
                b.add(measure(before));
                if (runFloor) {
                    f.add(measure(floor));
                }
                if (runSecond) {
                    r.add(measure(second));
                }
                continue;
            }
            if (runSecond) {
                r.add(measure(second));
            }
            if (runFloor) {
                f.add(measure(floor));
            }
        }
        SideRounds first = new SideRounds("ours", lowerIsBetter, o);
        SideRounds beforeRounds = runBefore ? new SideRounds(BeforeSide.NAME, lowerIsBetter, b) : null;
        SideRounds other = runSecond ? new SideRounds(secondLabel, lowerIsBetter, r) : null;
        SideRounds floorRounds = runFloor ? new SideRounds(FloorSide.NAME, lowerIsBetter, f) : null;
        return print(scenario, unit, lowerIsBetter, first, beforeRounds, other, floorRounds);
    }

    /**
     * Prints the RESULT line of a scenario's rounds and their DETAIL lines, keeps them for the table, and returns the
     * RESULT.
     */
    private Result print(String scenario, String unit, boolean lowerIsBetter, SideRounds first, @Nullable SideRounds other,
            @Nullable SideRounds floorRounds) {
        return print(scenario, unit, lowerIsBetter, first, null, other, floorRounds);
    }

    /** As above, with the before side's rounds where it ran. */
    private Result print(String scenario, String unit, boolean lowerIsBetter, SideRounds first,
            @Nullable SideRounds beforeRounds, @Nullable SideRounds other, @Nullable SideRounds floorRounds) {
        rounds.put(scenario, new Rounds(first, other, floorRounds, beforeRounds));
        double oursValue = first.median();
        boolean vsRedisson = other != null && other.label().equals("redisson");
        double redissonValue = vsRedisson ? other.median() : Double.NaN;
        double better = lowerIsBetter ? redissonValue / oursValue : oursValue / redissonValue;
        if (!Double.isFinite(better)) {
            better = Double.NaN;
        }
        Result result = new Result(scenario, oursValue, redissonValue, unit, better);
        out.println("RESULT scenario=" + scenario + " ours=" + format(oursValue) + " redisson=" + format(redissonValue)
                + " unit=" + unit + " better=" + format(better));
        roundsLine(scenario, first);
        if (beforeRounds != null) {
            roundsLine(scenario, beforeRounds);
        }
        if (other != null) {
            roundsLine(scenario, other);
        }
        if (floorRounds != null) {
            roundsLine(scenario, floorRounds);
        }
        detail(scenario, first);
        if (beforeRounds != null) {
            detail(scenario, beforeRounds);
            double beforeValue = beforeRounds.median();
            out.println("DETAIL scenario=" + scenario + " before=" + format(beforeValue) + " after=" + format(oursValue)
                    + " unit=" + unit + " after_vs_before=" + format(oursValue / beforeValue)
                    + (lowerIsBetter ? " (lower_is_better)" : " (higher_is_better)"));
        }
        if (other != null) {
            detail(scenario, other);
        }
        if (floorRounds != null) {
            detail(scenario, floorRounds);
        }
        cpuLine(scenario, first, beforeRounds, other, floorRounds);
        out.flush();
        return result;
    }

    /** Medians over the rounds of CPU microseconds per message, by scenario and side: {redis, jvm} (tests set them). */
    final Map<String, Map<String, double[]>> cpu = new java.util.LinkedHashMap<>();

    /**
     * {@code DETAIL scenario=<s> floor=cpu_per_msg <side>_redis_us=… <side>_jvm_us=… … ours_redis_vs_floor=…
     * ours_jvm_vs_floor=… [before_…_vs_floor=…] [redisson_redis_vs_floor=… redisson_jvm_vs_floor=…]
     * [ours_redis_vs_redisson=… ours_jvm_vs_redisson=…] [ours_redis_vs_before=… ours_jvm_vs_before=…]} where the floor ran, else the same from {@code cpu=cpu_per_msg} without the floor's
     * entries: each side's median over its rounds of Redis and JVM CPU microseconds per message (see
     * {@link #cpuPerMessage}), ours (and Redisson's) over the floor's, and ours over Redisson's. Not printed when no
     * side has a CPU figure per message.
     */
    private void cpuLine(String scenario, SideRounds ours, @Nullable SideRounds before, @Nullable SideRounds other,
            @Nullable SideRounds floor) {
        List<SideRounds> all = new ArrayList<>(List.of(ours));
        if (before != null) {
            all.add(before);
        }
        if (other != null) {
            all.add(other);
        }
        if (floor != null) {
            all.add(floor);
        }
        Map<String, double[]> perSide = new java.util.LinkedHashMap<>();
        boolean any = false;
        for (SideRounds side : all) {
            double[] v = {medianCpu(side, "redis"), medianCpu(side, "jvm")};
            perSide.put(side.label(), v);
            any |= Double.isFinite(v[0]) || Double.isFinite(v[1]);
        }
        if (!any) {
            return;
        }
        cpu.put(scenario, perSide);
        StringBuilder sb = new StringBuilder("DETAIL scenario=").append(scenario)
                .append(floor != null ? " floor=cpu_per_msg" : " cpu=cpu_per_msg");
        perSide.forEach((label, v) -> sb.append(' ').append(label).append("_redis_us=").append(format(v[0])).append(' ')
                .append(label).append("_jvm_us=").append(format(v[1])));
        if (floor != null) {
            double[] f = perSide.get(FloorSide.NAME);
            for (SideRounds side : all.subList(0, all.size() - 1)) {
                double[] v = perSide.get(side.label());
                sb.append(' ').append(side.label()).append("_redis_vs_floor=").append(format(v[0] / f[0])).append(' ')
                        .append(side.label()).append("_jvm_vs_floor=").append(format(v[1] / f[1]));
            }
        }
        if (other != null) {
            double[] o = perSide.get("ours");
            double[] r = perSide.get(other.label());
            sb.append(" ours_redis_vs_").append(other.label()).append('=').append(format(o[0] / r[0])).append(" ours_jvm_vs_")
                    .append(other.label()).append('=').append(format(o[1] / r[1]));
        }
        if (before != null) {
            double[] o = perSide.get("ours");
            double[] b = perSide.get(BeforeSide.NAME);
            sb.append(" ours_redis_vs_before=").append(format(o[0] / b[0])).append(" ours_jvm_vs_before=")
                    .append(format(o[1] / b[1]));
        }
        out.println(sb);
    }

    /** A side's median CPU per message ({@code 0} Redis, {@code 1} JVM) in a scenario, or NaN. */
    private double cpuOf(String scenario, String side, int which) {
        Map<String, double[]> perSide = cpu.get(scenario);
        double[] v = perSide == null ? null : perSide.get(side);
        return v == null ? Double.NaN : v[which];
    }

    private static double medianCpu(SideRounds side, String which) {
        double[] values = side.measures().stream().mapToDouble(m -> cpuPerMessage(m, which)).toArray();
        return median(values, true);
    }

    /**
     * Microseconds of {@code which} ("redis" or "jvm") CPU per message of one round: from the CPU measured around
     * the scenario's own window ({@code window_*_cpu_s}: the sends, or the sends and the drain; or the drain alone,
     * {@code *_cpu_s}, for a burst), else around the whole round ({@code run_*_cpu_s}, setup included), over its
     * messages (see {@link #messagesOf}); NaN when a round has no CPU figure or no count.
     */
    static double cpuPerMessage(Side.Measure m, String which) {
        Map<String, String> d = m.detail();
        String cpu = d.getOrDefault("window_" + which + "_cpu_s", d.getOrDefault(which + "_cpu_s",
                d.get("run_" + which + "_cpu_s")));
        double count = messagesOf(d);
        if (cpu == null || !(count > 0) || Double.isNaN(m.value())) {
            return Double.NaN;
        }
        return Double.parseDouble(cpu) * 1e6 / count;
    }

    /**
     * The messages a round's CPU figure covers: {@code messages} or {@code sent}; replace-by-id's {@code pending} plus
     * {@code replaced} (the round writes both; its CPU is the whole round's); lateness-under-burst's {@code burst}
     * plus {@code steady_messages}; NaN otherwise.
     */
    static double messagesOf(Map<String, String> d) {
        String count = d.getOrDefault("messages", d.get("sent"));
        if (count != null) {
            return Double.parseDouble(count);
        }
        if (d.containsKey("replaced") && d.containsKey("pending")) {
            return Double.parseDouble(d.get("replaced")) + Double.parseDouble(d.get("pending"));
        }
        if (d.containsKey("burst") && d.containsKey("steady_messages")) {
            return Double.parseDouble(d.get("burst")) + Double.parseDouble(d.get("steady_messages"));
        }
        return Double.NaN;
    }

    private void roundsLine(String scenario, SideRounds side) {
        StringBuilder sb = new StringBuilder("DETAIL scenario=").append(scenario).append(" rounds=").append(side.label())
                .append(':');
        for (int i = 0; i < side.measures().size(); i++) {
            sb.append(i == 0 ? "" : ",").append(format(side.measures().get(i).value()));
        }
        out.println(sb);
    }

    /**
     * Runs one side of one round; its DETAIL line ends with the CPU seconds of the whole run, setup included.
     * Each starts from a collected heap: the 1m burst leaves ~1 GB of garbage that otherwise shows up as GC
     * pauses in the lateness figures of what runs after it.
     */
    private Side.Measure measure(Measurement m) {
        try {
            System.gc();
            Thread.sleep(100);
            Bench.CpuMeter cpu = bench.cpu();
            return cpu.addTo(m.run(), "run_");
        } catch (Exception | AssertionError e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return Side.Measure.of(Double.NaN).with("error", String.valueOf(e).replace('\n', ' '));
        }
    }

    /** The DETAIL line of a side's median round (other rounds' values are on its {@code rounds=} line). */
    private void detail(String scenario, SideRounds side) {
        int at = side.medianRound();
        Side.Measure m = side.measures().get(at);
        StringBuilder sb = new StringBuilder("DETAIL scenario=").append(scenario).append(" side=").append(side.label());
        for (Map.Entry<String, String> e : m.detail().entrySet()) {
            sb.append(' ').append(e.getKey()).append('=').append(e.getValue().replace(' ', '_'));
        }
        sb.append(" round=").append(at + 1).append("_of_").append(side.measures().size()).append("(median)");
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
