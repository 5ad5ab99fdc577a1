package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;

import org.jspecify.annotations.Nullable;

/** Command-line flags of {@link Benchmarks}; {@code --help} prints them with their defaults. */
final class Settings {

    static final List<String> ALL_SCENARIOS = List.of("burst-drain-50k", "burst-drain-1m", "replace-by-id-20k",
            "steady-lateness-p99", "enqueue-rate-1", "enqueue-rate-8", "enqueue-rate-32", "enqueue-batch-rate",
            "end-to-end-rate", "end-to-end-rate-observed", "observed-path-cost", "redis-bytes-per-message",
            "lateness-under-burst", "consumers-4", "burst-drain-10m");

    /**
     * Scenarios run only when named: outbox-tx-rate needs a PostgreSQL (embedded, started from Maven artifacts);
     * schedules-100k waits for its ticks (minutes); idle-cost starts a Redis of its own (its CPU figures need a Redis
     * no other client uses) and measures two designs at three instance counts (about 5.5 minutes). (burst-drain-10m,
     * about 3 GB of Redis memory and minutes, is in the default run since issue 37: its target is a ratio to
     * burst-drain-1m's rate in the same run.)
     */
    static final List<String> EXTRA_SCENARIOS = List.of("outbox-tx-rate", "end-to-end-rate-cluster",
            "schedules-100k", "rate-limited-drain", "end-to-end-batch", "groups-fairness", "idle-cost", "history",
            "set-completion", "priorities");

    /**
     * The scenarios the {@code before} side ({@code --before-jar}) runs in: issue 43 part 4's figures (single and batch
     * sends, end to end, the bursts, replace-by-id, bytes). Not end-to-end-rate-observed: its observed path is the
     * starter's, built on the current engine.
     */
    static final List<String> BEFORE_SCENARIOS = List.of("burst-drain-50k", "burst-drain-1m", "replace-by-id-20k",
            "enqueue-rate-1", "enqueue-rate-8", "enqueue-rate-32", "enqueue-batch-rate", "end-to-end-rate",
            "redis-bytes-per-message", "burst-drain-10m");

    /** Flag name to default value and description, in help order. */
    private static final Map<String, String[]> FLAGS = new LinkedHashMap<>();

    static {
        flag("scenarios", "all", "comma-separated scenarios to run: " + String.join(",", ALL_SCENARIOS)
                + "; only when named: " + String.join(",", EXTRA_SCENARIOS));
        flag("redis-url", "", "Redis to use: redis://host:port, or 'embedded'; default: DELAYQUEUE_REDIS_URL, else embedded");
        flag("rounds", "5", "rounds of each scenario in one JVM, alternating the engines (ours, redisson, ours, ...); "
                + "RESULT carries the medians, a DETAIL line every round");
        flag("threads", "8", "producer threads for enqueue-batch-rate and replace-by-id (enqueue-rate-N uses N)");
        flag("concurrency", "256", "our consumer: handlers running at once (ConsumerOptions.concurrency)");
        flag("batch-size", "256", "our consumer: most messages claimed per round trip (ConsumerOptions.batchSize)");
        flag("redisson-consumers", "8", "Redisson: threads looping on RBlockingQueue.poll(1 s)");
        flag("burst50k-size", "50000", "burst-drain-50k: messages due at the same instant");
        flag("burst1m-size", "1000000", "burst-drain-1m: messages due at the same instant");
        flag("redisson-1m", "false", "burst-drain-1m: measure Redisson too (superlinear: may hit --redisson-timeout)");
        flag("redisson-timeout", "900", "seconds after which a Redisson drain is given up (reported NaN)");
        flag("replace-pending", "20000", "replace-by-id: messages pending while ids are re-sent");
        flag("replace-seconds", "5", "replace-by-id: measured seconds (after 1 s of warm-up)");
        flag("lateness-rate", "1000", "steady-lateness and lateness-under-burst: messages sent per second");
        flag("lateness-seconds", "20", "steady-lateness: seconds of sending");
        flag("lateness-delay-ms", "2000", "steady-lateness and lateness-under-burst: delay of each message");
        flag("enqueue-count", "50000", "enqueue-rate-1, -8, -32: single sends in total over the scenario's threads");
        flag("batch-count", "500000", "enqueue-batch-rate: messages in total over --threads threads");
        flag("send-batch", "1000", "enqueue-batch-rate: messages per sendAll call");
        flag("e2e-seconds", "20", "end-to-end-rate: seconds of sending");
        flag("cluster-seconds", "10", "end-to-end-rate-cluster (only when named): seconds measured per round, on a "
                + "cluster of 3 masters it starts (1 partition and 6 alternating, with the e2e producers, batch and backlog)");
        flag("e2e-producers", "2", "end-to-end-rate: producer threads");
        flag("e2e-batch", "100", "end-to-end-rate: messages per send (ours: sendAll; Redisson: pipelined offerAsync)");
        flag("e2e-handler-batch", "100", "end-to-end-batch: messages per batch handler call (BatchOptions.size)");
        flag("e2e-backlog", "20000", "end-to-end-rate: producers pause while more than this are sent but not handled");
        flag("observe", "metrics", "end-to-end-rate-observed: what is bound (metrics: the starter's meters, its "
                + "defaults; observations: with Boot's meter handler; tracing: Brave, W3C), to see what costs what");
        flag("path-cost-batches", "400", "observed-path-cost: batches of 100 messages per variant and round (the "
                + "rounds are --rounds, after two of warm-up)");
        flag("trace-sampling", "1.0", "end-to-end-rate-observed: the fraction of traces Brave samples (1.0: every "
                + "message's spans, the worst case; Spring Boot's default management.tracing.sampling.probability is 0.1)");
        flag("history-count", "100000", "history (only when named): messages with ids sent and drained per round, "
                + "rounds alternating the history on and off");
        flag("history-max-count", "10000", "history: the count bound of the history on (keepHistory's maxCount)");
        flag("history-max-age-s", "3600", "history: the age bound of the history on, seconds (keepHistory's maxAge)");
        flag("set-count", "100000", "set-completion (only when named): members of the one set whose Redis CPU per "
                + "member is compared with the same messages sent without a set (rounds alternating), and members of the "
                + "--set-sets sets of the latency part");
        flag("set-sets", "100", "set-completion: sets of --set-count / --set-sets members, sent back to back, whose "
                + "callbacks' latency is measured (last member's handler return to the callback's handler start)");
        flag("priorities-count", "100000", "priorities (only when named): messages of the backlog, all due, levels 0 "
                + "to 9 one in ten each, drained with priorities and without (rounds alternating)");
        flag("priorities-rounds", "3", "priorities: its rounds, each with priorities then without (about 40 s a round "
                + "on a loaded 2-core box)");
        flag("memory-count", "100000", "redis-bytes-per-message: pending messages");
        flag("schedules-count", "100000", "schedules-100k (only when named): fixed-rate schedules on one queue (Redisson: cron tasks of RScheduledExecutorService)");
        flag("schedules-period-ms", "60000", "schedules-100k: their period (all tick at the same instants)");
        flag("schedules-ticks", "2", "schedules-100k: bursts of ticks measured per round");
        flag("under-burst-size", "50000", "lateness-under-burst: messages of queue B due at one instant while queue A "
                + "runs --lateness-rate msg/s with --lateness-delay-ms delays");
        flag("consumers4-size", "200000", "consumers-4: messages due at one instant, drained by 1 and by 4 instances");
        flag("redisson-consumers4", "false", "consumers-4: measure Redisson too (its drain of --consumers4-size takes "
                + "minutes per round)");
        flag("burst10m-size", "10000000", "burst-drain-10m: messages sent with sendAll, due at one instant; ours only "
                + "(about 3 GB of Redis memory)");
        flag("burst10m-rounds", "1", "burst-drain-10m: its rounds (it takes minutes each; its target is a ratio to "
                + "burst-drain-1m's median rate)");
        flag("ratelimit-size", "5000", "rate-limited-drain (only when named): messages due at one instant");
        flag("ratelimit-rate", "100/1s", "rate-limited-drain: the queue's rate limit (<permits>/<period>)");
        flag("ratelimit-instances", "3", "rate-limited-drain: consumer instances, each its own Redisson client");
        flag("groups-big", "2000", "groups-fairness (only when named): messages of the big group, due first");
        flag("groups-small", "100", "groups-fairness: messages of each of the two small groups");
        flag("groups-queue-rate", "200/1s", "groups-fairness: the queue's rate limit (the downstream's capacity)");
        flag("groups-group-rate", "20/1s", "groups-fairness: the group rate limit, with groups");
        flag("groups-instances", "3", "groups-fairness: consumer instances, each its own Redisson client");
        flag("idle-queues", "200", "idle-cost (only when named): idle queues, each consumed by every instance, on a "
                + "Redis of its own; both idle-polling designs (per-consumer, shared) at each instance count");
        flag("idle-instances", "1,4,10", "idle-cost: instance counts (each instance its own Redisson client)");
        flag("idle-seconds", "30", "idle-cost: measured window of each design and instance count");
        flag("idle-settle-seconds", "15", "idle-cost: seconds after the consumers start before the window (at least "
                + "12: the shared design registers its instances in about 6)");
        flag("idle-max-poll-ms", "1000", "idle-cost: the consumers' maxPollInterval");
        flag("idle-messages", "200", "idle-cost: lateness sends at the largest instance count, one every 50 ms, round "
                + "robin over the queues, delays 0 and 100 ms");
        flag("outbox-seconds", "10", "outbox-tx-rate: seconds of each of its 3 phases off and 3 on (alternating), in every one of --rounds");
        flag("outbox-threads", "8", "outbox-tx-rate: threads committing transactions");
        flag("postgres-url", "", "outbox-tx-rate: JDBC URL with credentials; default: DELAYQUEUE_POSTGRES_URL, else an embedded PostgreSQL 14");
        flag("sides", "ours,redisson,floor", "which sides to measure: ours, redisson, floor (the least a delay queue can "
                + "do, in enqueue-rate-N, enqueue-batch-rate, burst-drain-50k, burst-drain-1m, end-to-end-rate and "
                + "redis-bytes-per-message; e.g. 'ours' while profiling)");
        flag("warmup", "true", "run a short untimed pass of both engines first (JIT, script cache, connections)");
        flag("before-jar", "", "issue 43 part 4: a delayqueue-core jar (or classes directory) of an earlier commit; "
                + "its engine runs as a fourth side, 'before', in " + String.join(",", BEFORE_SCENARIOS)
                + " (rounds: ours, before, floor, redisson), loaded apart from ours (see BeforeSide)");
    }

    private static void flag(String name, String value, String description) {
        FLAGS.put(name, new String[] {value, description});
    }

    private final Map<String, String> values = new LinkedHashMap<>();
    final Set<String> scenarios = new LinkedHashSet<>();
    final boolean help;

    Settings(String... args) {
        boolean helpAsked = false;
        FLAGS.forEach((name, spec) -> values.put(name, spec[0]));
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                helpAsked = true;
                continue;
            }
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument '" + arg + "' (flags look like --name=value; see --help)");
            }
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg.substring(2) : arg.substring(2, eq);
            String value = eq < 0 ? "true" : arg.substring(eq + 1);
            if (!FLAGS.containsKey(name)) {
                throw new IllegalArgumentException("unknown flag --" + name + " (see --help)");
            }
            values.put(name, value);
        }
        help = helpAsked;
        String list = values.get("scenarios");
        if (list.equals("all")) {
            scenarios.addAll(ALL_SCENARIOS);
        } else {
            for (String s : list.split(",")) {
                String name = s.trim();
                if (!ALL_SCENARIOS.contains(name) && !EXTRA_SCENARIOS.contains(name)) {
                    throw new IllegalArgumentException("unknown scenario '" + name + "'; known: " + ALL_SCENARIOS
                            + " and " + EXTRA_SCENARIOS);
                }
                scenarios.add(name);
            }
        }
        // validate numbers early
        for (String name : FLAGS.keySet()) {
            String v = values.get(name);
            if (FLAGS.get(name)[0].matches("\\d+") && (!v.matches("\\d+") || Long.parseLong(v) <= 0)) {
                throw new IllegalArgumentException("--" + name + " must be a positive integer, was '" + v + "'");
            }
            if (FLAGS.get(name)[0].matches("true|false") && !v.matches("true|false")) {
                throw new IllegalArgumentException("--" + name + " must be true or false, was '" + v + "'");
            }
        }
        for (String side : values.get("sides").split(",", -1)) {
            if (!side.equals("ours") && !side.equals("redisson") && !side.equals(FloorSide.NAME)) {
                throw new IllegalArgumentException("--sides must list ours, redisson and/or floor, was '" + values.get("sides")
                        + "'");
            }
        }
        traceSampling = fraction("trace-sampling");
        beforeJar = beforeJar(values.get("before-jar"));
        if (Long.parseLong(values.get("set-sets")) > Long.parseLong(values.get("set-count"))) {
            throw new IllegalArgumentException("--set-sets must be at most --set-count (sets of at least one member), was "
                    + values.get("set-sets") + " sets of " + values.get("set-count"));
        }
        try {
            IdleQueueCost.parseInstances(values.get("idle-instances"));
        } catch (IllegalArgumentException e) { // NumberFormatException too
            throw new IllegalArgumentException("--idle-instances must list positive integers, was '"
                    + values.get("idle-instances") + "'");
        }
    }

    /** {@code --before-jar}, checked (a jar or directory holding delayqueue-core's classes), or null when not given. */
    final @Nullable Path beforeJar;

    private static @Nullable Path beforeJar(String value) {
        if (value.isBlank()) {
            return null;
        }
        Path path = Path.of(value.trim()).toAbsolutePath().normalize();
        String client = "io/github/delayqueue/core/DelayQueueClient.class";
        boolean found;
        if (Files.isDirectory(path)) {
            found = Files.isRegularFile(path.resolve(client));
        } else {
            try (JarFile jar = new JarFile(path.toFile())) {
                found = jar.getEntry(client) != null;
            } catch (IOException e) {
                throw new IllegalArgumentException("--before-jar must be a readable delayqueue-core jar, was '" + value
                        + "' (" + e.getMessage() + ")");
            }
        }
        if (!found) {
            throw new IllegalArgumentException("--before-jar must hold delayqueue-core's classes (no " + client + " in '"
                    + value + "')");
        }
        return path;
    }

    /** The flags in effect as {@code --name=value} arguments (the before side parses them again in its class loader). */
    List<String> asArgs() {
        List<String> args = new ArrayList<>();
        values.forEach((k, v) -> args.add("--" + k + "=" + v));
        return args;
    }

    /** {@code --trace-sampling}, checked: a fraction from 0 to 1. */
    final float traceSampling;

    private float fraction(String name) {
        String value = values.get(name);
        float f;
        try {
            f = Float.parseFloat(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a number from 0 to 1, was '" + value + "'");
        }
        if (!(f >= 0f && f <= 1f)) {
            throw new IllegalArgumentException("--" + name + " must be a number from 0 to 1, was '" + value + "'");
        }
        return f;
    }

    int integer(String name) {
        return Integer.parseInt(get(name));
    }

    boolean bool(String name) {
        return Boolean.parseBoolean(get(name));
    }

    String get(String name) {
        if (!values.containsKey(name)) {
            throw new IllegalArgumentException("no flag --" + name);
        }
        return values.get(name);
    }

    /** The flags in effect, for the header of the output. */
    String describe() {
        List<String> parts = new ArrayList<>();
        values.forEach((k, v) -> {
            if (!k.equals("scenarios") && !k.equals("redis-url") && !k.equals("postgres-url")) {
                parts.add(k + "=" + v);
            }
        });
        return String.join(" ", parts);
    }

    static String usage() {
        StringBuilder sb = new StringBuilder("usage: java -jar benchmarks/target/benchmarks.jar [--flag=value ...]\n");
        FLAGS.forEach((name, spec) -> sb.append(String.format(Locale.ROOT, "  --%-20s %s (default %s)%n", name,
                spec[1], spec[0].isEmpty() ? "none" : spec[0])));
        return sb.toString();
    }
}
