package io.github.delayqueue.benchmarks;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.MessageContext;

/**
 * What idle queues cost Redis, per-consumer idle polling against shared idle polling
 * ({@link ClientOptions.Builder#sharedIdlePolling}). On an embedded Redis of its own (no other client, so its CPU is
 * the consumers'), for each instance count: {@code instances} instances, each its own Redisson client and
 * {@link DelayQueueClient} (as many application JVMs), each consuming every one of {@code queues} queues (one
 * consumer per queue and instance, default {@link ConsumerOptions} but {@code maxPollInterval}), none with a message.
 * Each instance count is measured with {@code sharedIdlePolling(false)} ("per-consumer": each consumer claims at
 * least every {@code maxPollInterval} on its own) and then {@code true} ("shared": the instances take turns), each on
 * a fresh key prefix after a FLUSHALL, all consumers stopped and all clients shut down in between. After a settle
 * period (at least 12 s: the shared design takes about 6 s to register the instances) it reads {@code INFO
 * commandstats} and {@code INFO cpu} before and after a window of {@code seconds} and prints, per measurement:
 *
 * <pre>
 * IDLE-COST-CMD design=&lt;d&gt; instances=&lt;n&gt; command=&lt;c&gt; calls=&lt;calls&gt; per_s=&lt;calls/s&gt; usec=&lt;µs&gt;
 * IDLE-COST design=&lt;per-consumer|shared&gt; instances=&lt;n&gt; queues=&lt;q&gt; max_poll_interval=&lt;PT1S&gt; window_s=&lt;s&gt;
 *     commands_per_s=&lt;…&gt; redis_cpu_pct=&lt;…&gt; per_queue=&lt;…&gt; pings_per_s=&lt;…&gt; claims_per_s=&lt;…&gt;
 *     jvm_cpu_pct=&lt;…&gt; threads_left=&lt;…&gt;
 * </pre>
 *
 * <p>{@code commands_per_s}: every command Redis ran over the window (a script's call and each command it runs counted
 * apart) except the measurement's own {@code info} and the clients' connection {@code ping}s, which are per
 * connection, not per queue ({@code pings_per_s}); {@code redis_cpu_pct}: Redis's {@code used_cpu_sys +
 * used_cpu_user} over the wall window, in percent of one core (its cron included); {@code per_queue}: commands per
 * second per queue; {@code claims_per_s}: {@code evalsha} calls a second; {@code jvm_cpu_pct}: this JVM's CPU (all
 * instances) in percent of one core; {@code threads_left}: live threads once the measurement's consumers are stopped
 * and its clients shut down that were not there before it (0: nothing leaked; their names follow on a {@code #}
 * line).
 *
 * <p>Then, at the largest instance count in each design (consumers still running), the lateness through the wake-up:
 * {@code messages} sends from another client, one every 50 ms, round robin over the queues, delays alternating 0 and
 * 100 ms; lateness is the handler's start (Redis clock, {@link RedisClock}) minus the message's
 * {@link MessageContext#dueAt() due time} (Redis clock):
 *
 * <pre>
 * IDLE-LATENESS design=&lt;d&gt; instances=&lt;n&gt; queues=&lt;q&gt; messages=&lt;m&gt; handled=&lt;h&gt; handled_twice=&lt;t&gt;
 *     p50_ms=&lt;…&gt; p99_ms=&lt;…&gt; max_ms=&lt;…&gt; min_ms=&lt;…&gt; early=&lt;lateness &lt; 0&gt;
 *     p99_delay0_ms=&lt;…&gt; p99_delay100_ms=&lt;…&gt; gc_ms=&lt;…&gt; load1=&lt;…&gt;
 * </pre>
 *
 * <p>({@code p99_delay0_ms} and {@code p99_delay100_ms}: the p99 of the messages sent without and with the small
 * delay; {@code gc_ms}: this JVM's collection time meanwhile; {@code load1}: the machine's 1-minute load average
 * after it, for reading a p99 taken on a shared machine; {@code script_calls_per_message}: EVALSHA calls over the
 * phase, less the idle rate of the window, per message sent: the sends and the claims each message's wake-up set off
 * on the instances.)
 *
 * <p>and last a markdown table of both designs per instance count and one of the targets (shared at the largest
 * count, 10 by default: at most 1% of a Redis core and 500 commands/s; shared at the largest count over shared at the
 * smallest, 1 by default: at most 1.2 in commands/s; lateness p99 at most 5 ms and never early), the per-consumer
 * figures beside them.
 *
 * <p>Standalone, after {@code ./mvnw -B -ntp -pl benchmarks -am package -DskipTests}:
 * {@code java -cp benchmarks/target/benchmarks.jar io.github.delayqueue.benchmarks.IdleQueueCost QUEUES
 * MAX_POLL_INTERVAL SECONDS [INSTANCES [SETTLE_SECONDS [MESSAGES]]]}, for example {@code 200 PT1S 30 1,4,10} (the
 * full run: about 5.5 minutes) or {@code 20 PT1S 10 1,2}; INSTANCES is a comma-separated list (default 1), SETTLE_SECONDS
 * defaults to 15 and MESSAGES (lateness sends, 0 for none) to 200. In the benchmark command it is the scenario
 * {@code idle-cost} (only when named): {@code java -jar benchmarks/target/benchmarks.jar --scenarios=idle-cost}
 * with {@code --idle-queues}, {@code --idle-instances}, {@code --idle-seconds}, {@code --idle-settle-seconds},
 * {@code --idle-max-poll-ms} and {@code --idle-messages}; there it also prints {@code RESULT scenario=idle-cost
 * ours=<shared commands/s at the largest count> redisson=<per-consumer commands/s at the largest count>
 * unit=commands/s better=<per-consumer / shared>} (the "redisson" slot holds our per-consumer design: Redisson is not
 * measured).
 */
public final class IdleQueueCost {

    static final String PER_CONSUMER = "per-consumer";
    static final String SHARED = "shared";

    /** Targets of the shared design at the largest instance count. */
    static final double MAX_CPU_PCT = 1.0;
    static final double MAX_COMMANDS_PER_S = 500;
    static final double MAX_GROWTH = 1.2;
    static final double MAX_P99_MS = 5;

    private static final Pattern STAT = Pattern.compile("calls=(\\d+),usec=(\\d+)");
    private static final long SEND_EVERY_MS = 50;
    private static final long SMALL_DELAY_MS = 100;

    private IdleQueueCost() {
    }

    /** One design at one instance count. */
    record Figures(String design, int instances, int queues, Duration maxPollInterval, double windowS,
            double commandsPerS, double redisCpuPct, double pingsPerS, double claimsPerS, double jvmCpuPct,
            int threadsLeft) {

        double perQueue() {
            return commandsPerS / queues;
        }
    }

    /** Lateness through the wake-up in one design, ms on the Redis clock. */
    record Lateness(String design, int instances, int queues, int messages, int handled, long handledTwice, double p50Ms,
            double p99Ms, double maxMs, double minMs, long early, double p99NoDelayMs, double p99SmallDelayMs, long gcMs,
            String load, double claimsPerMessage) {
    }

    /** Everything one run measured. */
    record Report(List<Figures> figures, List<Lateness> lateness) {

        @Nullable Figures find(String design, int instances) {
            for (Figures f : figures) {
                if (f.design().equals(design) && f.instances() == instances) {
                    return f;
                }
            }
            return null;
        }

        @Nullable Lateness lateness(String design) {
            for (Lateness l : lateness) {
                if (l.design().equals(design)) {
                    return l;
                }
            }
            return null;
        }

        int most() {
            return figures.stream().mapToInt(Figures::instances).max().orElse(0);
        }

        int least() {
            return figures.stream().mapToInt(Figures::instances).min().orElse(0);
        }

        double commandsPerS(String design, int instances) {
            Figures f = find(design, instances);
            return f == null ? Double.NaN : f.commandsPerS();
        }

        double cpuPct(String design, int instances) {
            Figures f = find(design, instances);
            return f == null ? Double.NaN : f.redisCpuPct();
        }

        /** Shared commands/s at the largest instance count over shared at the smallest. */
        double growth(String design) {
            return commandsPerS(design, most()) / commandsPerS(design, least());
        }

        /** Each target: its text with the shared and per-consumer figures, and whether shared met it. */
        List<Benchmarks.Target> targets() {
            int n = most();
            int one = least();
            List<Benchmarks.Target> t = new ArrayList<>();
            double cpu = cpuPct(SHARED, n);
            t.add(new Benchmarks.Target("shared at " + n + " instances ≤ " + fmt(MAX_CPU_PCT) + "% of a Redis core ("
                    + pct(cpu) + "; per-consumer " + pct(cpuPct(PER_CONSUMER, n)) + ")", cpu <= MAX_CPU_PCT,
                    Double.isFinite(cpu)));
            double commands = commandsPerS(SHARED, n);
            t.add(new Benchmarks.Target("shared at " + n + " instances ≤ " + fmt(MAX_COMMANDS_PER_S) + " commands/s ("
                    + fmt(commands) + "; per-consumer " + fmt(commandsPerS(PER_CONSUMER, n)) + ")",
                    commands <= MAX_COMMANDS_PER_S, Double.isFinite(commands)));
            double growth = growth(SHARED);
            t.add(new Benchmarks.Target("shared(" + n + ") / shared(" + one + ") commands/s ≤ " + fmt(MAX_GROWTH) + " ("
                    + fmt(growth) + "; per-consumer " + fmt(growth(PER_CONSUMER)) + ")", growth <= MAX_GROWTH,
                    n > one && Double.isFinite(growth)));
            Lateness l = lateness(SHARED);
            Lateness p = lateness(PER_CONSUMER);
            boolean measured = l != null && l.handled() > 0;
            t.add(new Benchmarks.Target("shared at " + n + " instances: lateness p99 ≤ " + fmt(MAX_P99_MS)
                    + " ms, never early, all handled once (" + latenessText(l) + "; per-consumer " + latenessText(p)
                    + ")", measured && l.p99Ms() <= MAX_P99_MS && l.early() == 0 && l.handled() == l.messages()
                            && l.handledTwice() == 0, measured));
            return t;
        }

        /** The markdown tables: both designs per instance count, then the targets. */
        void table(PrintStream out) {
            out.println();
            out.println("| instances | queues | design | commands/s | Redis CPU (% of a core) | commands/s per queue "
                    + "| claims/s | client pings/s | JVM CPU (% of a core) |");
            out.println("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
            for (Figures f : figures) {
                out.println("| " + f.instances() + " | " + f.queues() + " | " + f.design() + " | " + fmt(f.commandsPerS())
                        + " | " + fmt(f.redisCpuPct()) + " | " + fmt(f.perQueue()) + " | " + fmt(f.claimsPerS()) + " | "
                        + fmt(f.pingsPerS()) + " | " + fmt(f.jvmCpuPct()) + " |");
            }
            out.println();
            out.println("| target | met? |");
            out.println("| --- | --- |");
            for (Benchmarks.Target t : targets()) {
                out.println("| " + t.text() + " | " + (t.measured() ? (t.met() ? "yes" : "**no**") : "not measured") + " |");
            }
            out.flush();
        }
    }

    private static String latenessText(@Nullable Lateness l) {
        if (l == null) {
            return "not measured";
        }
        return "p50 " + fmt(l.p50Ms()) + " ms, p99 " + fmt(l.p99Ms()) + " ms, max " + fmt(l.maxMs()) + " ms, early "
                + l.early() + ", handled " + l.handled() + "/" + l.messages() + ", twice " + l.handledTwice();
    }

    private static String pct(double v) {
        return Double.isFinite(v) ? fmt(v) + "%" : "NaN";
    }

    private static String fmt(double v) {
        return Benchmarks.format(v);
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: IdleQueueCost QUEUES MAX_POLL_INTERVAL SECONDS [INSTANCES [SETTLE_SECONDS "
                    + "[MESSAGES]]], e.g. 200 PT1S 30 1,4,10");
            System.exit(2);
        }
        int queues = Integer.parseInt(args[0]);
        Duration maxPollInterval = Duration.parse(args[1]);
        int seconds = Integer.parseInt(args[2]);
        int[] instances = parseInstances(args.length > 3 ? args[3] : "1");
        int settle = args.length > 4 ? Integer.parseInt(args[4]) : 15;
        int messages = args.length > 5 ? Integer.parseInt(args[5]) : 200;
        Report report = run(System.out, queues, maxPollInterval, seconds, settle, instances, messages);
        report.table(System.out);
        System.exit(0); // Redisson's and Netty's threads must not keep the JVM alive
    }

    /** "1,4,10" → {1, 4, 10}, each positive, in the order given. */
    static int[] parseInstances(String list) {
        int[] counts = Arrays.stream(list.split(",")).map(String::trim).mapToInt(Integer::parseInt).toArray();
        for (int n : counts) {
            if (n <= 0) {
                throw new IllegalArgumentException("instance counts must be positive, was " + list);
            }
        }
        return counts;
    }

    /**
     * Measures both designs at every instance count (per-consumer then shared for each), on an embedded Redis started
     * for the run, printing the lines the class comment describes (not the tables: {@link Report#table}).
     */
    static Report run(PrintStream out, int queues, Duration maxPollInterval, int seconds, int settleSeconds,
            int[] instances, int messages) throws Exception {
        List<Figures> figures = new ArrayList<>();
        List<Lateness> lateness = new ArrayList<>();
        int most = Arrays.stream(instances).max().orElse(0);
        try (EmbeddedRedis server = new EmbeddedRedis(); Resp resp = new Resp(server.url())) {
            out.printf(Locale.ROOT, "# idle-cost: redis %s, %d queues, maxPollInterval %s, settle %d s, window %d s, "
                    + "instances %s, %d lateness messages, %d cores%n", resp.info("server").get("redis_version"), queues,
                    maxPollInterval, settleSeconds, seconds, Arrays.toString(instances), messages,
                    Runtime.getRuntime().availableProcessors());
            // the JDK's one CompletableFuture timeout thread (Setup.close's orTimeout) before any count of threads
            new CompletableFuture<Void>().orTimeout(1, TimeUnit.MILLISECONDS);
            int run = 0;
            for (int n : instances) {
                for (boolean shared : new boolean[] { false, true }) {
                    resp.call("FLUSHALL");
                    Setup setup = new Setup(server.url(), "idle" + run++, n, queues, maxPollInterval, shared);
                    Figures f;
                    Lateness l = null;
                    try {
                        setup.start();
                        Thread.sleep(TimeUnit.SECONDS.toMillis(settleSeconds));
                        f = setup.measure(resp, seconds);
                        if (n == most && messages > 0) {
                            l = setup.lateness(resp, messages);
                        }
                    } finally {
                        setup.close();
                    }
                    f = new Figures(f.design(), f.instances(), f.queues(), f.maxPollInterval(), f.windowS(),
                            f.commandsPerS(), f.redisCpuPct(), f.pingsPerS(), f.claimsPerS(), f.jvmCpuPct(),
                            setup.threadsLeft());
                    for (Map.Entry<String, long[]> e : setup.commands.entrySet()) {
                        out.printf(Locale.ROOT, "IDLE-COST-CMD design=%s instances=%d command=%s calls=%d per_s=%.2f "
                                + "usec=%d%n", f.design(), n, e.getKey(), e.getValue()[0], e.getValue()[0] / f.windowS(),
                                e.getValue()[1]);
                    }
                    out.printf(Locale.ROOT, "IDLE-COST design=%s instances=%d queues=%d max_poll_interval=%s window_s=%.1f "
                            + "commands_per_s=%.1f redis_cpu_pct=%.3f per_queue=%.3f pings_per_s=%.2f claims_per_s=%.1f "
                            + "jvm_cpu_pct=%.1f threads_left=%d%n", f.design(), n, queues, maxPollInterval, f.windowS(),
                            f.commandsPerS(), f.redisCpuPct(), f.perQueue(), f.pingsPerS(), f.claimsPerS(), f.jvmCpuPct(),
                            f.threadsLeft());
                    if (f.threadsLeft() > 0) {
                        out.println("# threads left after " + f.design() + " at " + n + " instances: "
                                + setup.threadsLeftNames);
                    }
                    figures.add(f);
                    if (l != null) {
                        out.printf(Locale.ROOT, "IDLE-LATENESS design=%s instances=%d queues=%d messages=%d handled=%d "
                                + "handled_twice=%d p50_ms=%.2f p99_ms=%.2f max_ms=%.2f min_ms=%.2f early=%d "
                                + "p99_delay0_ms=%.2f p99_delay100_ms=%.2f gc_ms=%d load1=%s script_calls_per_message=%.2f%n",
                                l.design(), n, queues, l.messages(), l.handled(), l.handledTwice(), l.p50Ms(), l.p99Ms(),
                                l.maxMs(), l.minMs(), l.early(), l.p99NoDelayMs(), l.p99SmallDelayMs(), l.gcMs(), l.load(),
                                l.claimsPerMessage());
                        lateness.add(l);
                    }
                    out.flush();
                }
            }
            resp.call("FLUSHALL");
        }
        return new Report(figures, lateness);
    }

    /** One design at one instance count: its clients and consumers, until {@link #close}. */
    private static final class Setup implements AutoCloseable {
        final String url;
        final String prefix;
        final int instances;
        final int queues;
        final Duration maxPollInterval;
        final boolean shared;
        final Set<Thread> threadsBefore = Set.copyOf(Thread.getAllStackTraces().keySet());
        final List<RedissonClient> clients = new ArrayList<>();
        final List<DelayQueueConsumer> consumers = new ArrayList<>();
        /** Where handlers report, while lateness is measured. */
        final AtomicReference<@Nullable Recorder> recorder = new AtomicReference<>();
        /** command → {calls, usec} over the window, {@code info} left out. */
        final Map<String, long[]> commands = new TreeMap<>();
        private int threadsLeft = -1;
        /** The window's figures: the idle script calls a second that the lateness phase subtracts. */
        private Map<String, long[]> commandsWindow = Map.of();
        private double windowS = 1;
        /** Their names (a leak shows by name). */
        List<String> threadsLeftNames = List.of();

        Setup(String url, String prefix, int instances, int queues, Duration maxPollInterval, boolean shared) {
            this.url = url;
            this.prefix = prefix;
            this.instances = instances;
            this.queues = queues;
            this.maxPollInterval = maxPollInterval;
            this.shared = shared;
        }

        String design() {
            return shared ? SHARED : PER_CONSUMER;
        }

        RedissonClient client() {
            Config config = new Config();
            config.setThreads(4); // the JVM runs every instance: fewer threads than Redisson's defaults, same connections
            config.setNettyThreads(8);
            config.useSingleServer().setAddress(url);
            RedissonClient client = Redisson.create(config);
            clients.add(client);
            return client;
        }

        void start() {
            ConsumerOptions options = ConsumerOptions.builder().maxPollInterval(maxPollInterval).build();
            for (int i = 0; i < instances; i++) {
                DelayQueueClient client = DelayQueueClient.create(client(),
                        ClientOptions.builder().keyPrefix(prefix).sharedIdlePolling(shared).build());
                for (int q = 0; q < queues; q++) {
                    DelayQueueConsumer consumer = client.newConsumer(queue(q), String.class,
                            (String payload, MessageContext context) -> {
                                Recorder r = recorder.get();
                                if (r != null) {
                                    r.handled(payload, context);
                                }
                            }, options);
                    consumers.add(consumer);
                    consumer.start();
                }
            }
        }

        Figures measure(Resp resp, int seconds) throws InterruptedException {
            double cpu0 = redisCpuSeconds(resp);
            Map<String, long[]> before = commandStats(resp);
            long jvm0 = jvmCpuNanos();
            long t0 = System.nanoTime();
            Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
            Map<String, long[]> after = commandStats(resp);
            double cpu1 = redisCpuSeconds(resp);
            long t1 = System.nanoTime();
            long jvm1 = jvmCpuNanos();
            double window = (t1 - t0) / 1e9;
            long calls = 0;
            long pings = 0;
            for (Map.Entry<String, long[]> e : after.entrySet()) {
                long[] was = before.getOrDefault(e.getKey(), new long[2]);
                long c = e.getValue()[0] - was[0];
                long u = e.getValue()[1] - was[1];
                if (e.getKey().equals("info") || c == 0) {
                    continue; // the measurement's own INFO
                }
                commands.put(e.getKey(), new long[] { c, u });
                if (e.getKey().equals("ping")) {
                    pings += c; // the clients keep their connections alive: per connection, not per queue
                } else {
                    calls += c;
                }
            }
            long claims = commands.getOrDefault("evalsha", new long[2])[0];
            commandsWindow = commands;
            windowS = window;
            return new Figures(design(), instances, queues, maxPollInterval, window, calls / window,
                    100 * (cpu1 - cpu0) / window, pings / window, claims / window, 100 * (jvm1 - jvm0) / 1e9 / window, -1);
        }

        /**
         * Sends {@code messages} from a client of its own, one every 50 ms round robin over the queues, delays
         * alternating 0 and 100 ms, and waits for them to be handled.
         */
        Lateness lateness(Resp resp, int messages) throws InterruptedException {
            RedisClock clock = RedisClock.sample(resp);
            Recorder r = new Recorder(clock, messages);
            recorder.set(r);
            DelayQueueClient sender = DelayQueueClient.create(client(), ClientOptions.builder().keyPrefix(prefix)
                    .sharedIdlePolling(shared).build());
            sender.send(queue(0) + "-warm", "warm", Duration.ofDays(1)); // the sender's connections and scripts
            long claims0 = commandStats(resp).getOrDefault("evalsha", new long[2])[0];
            long start = System.nanoTime();
            for (int i = 0; i < messages; i++) {
                Side.sleepUntil(start + TimeUnit.MILLISECONDS.toNanos(i * SEND_EVERY_MS));
                sender.send(queue(i % queues), "m-" + i, Duration.ofMillis(i % 2 == 0 ? 0 : SMALL_DELAY_MS));
            }
            // a lost wake-up is found within maxPollInterval: twice that and 30 s is plenty
            r.done.await(2 * maxPollInterval.toMillis() + 30_000, TimeUnit.MILLISECONDS);
            Thread.sleep(Math.min(2_000, 2 * maxPollInterval.toMillis())); // a duplicate would show by now
            recorder.set(null);
            double elapsedS = (System.nanoTime() - start) / 1e9;
            long claims = commandStats(resp).getOrDefault("evalsha", new long[2])[0] - claims0;
            // less the idle script calls of the same time, as the window measured them
            double idle = commandsWindow.getOrDefault("evalsha", new long[2])[0] / windowS * elapsedS;
            return r.result(design(), instances, queues, messages, Math.max(0, claims - idle) / messages);
        }

        int threadsLeft() {
            return threadsLeft;
        }

        /** Stops every consumer (at once, then waits), shuts every client down (at once, waiting), then counts threads. */
        @Override
        public void close() throws InterruptedException {
            CompletableFuture.allOf(consumers.stream().map(DelayQueueConsumer::stopAsync)
                    .toArray(CompletableFuture[]::new)).orTimeout(120, TimeUnit.SECONDS).exceptionally(e -> null).join();
            List<Thread> stoppers = new ArrayList<>();
            for (RedissonClient client : clients) {
                Thread t = new Thread(client::shutdown, "idle-cost-shutdown");
                t.start();
                stoppers.add(t);
            }
            for (Thread t : stoppers) {
                t.join(60_000);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!newThreads().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(100); // threads that were told to end and are ending
            }
            threadsLeftNames = newThreads().stream().map(Thread::getName).sorted().toList();
            threadsLeft = threadsLeftNames.size();
        }

        /** Live threads that were not there when this setup was made. */
        private List<Thread> newThreads() {
            return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && !threadsBefore.contains(t))
                    .toList();
        }
    }

    /** Lateness samples of the handled messages, each message counted once by id, apart by delay (0 or 100 ms). */
    private static final class Recorder {
        final RedisClock clock;
        final double[] late;
        final double[][] byDelay;
        final AtomicInteger count = new AtomicInteger();
        final AtomicInteger[] countByDelay = { new AtomicInteger(), new AtomicInteger() };
        final AtomicInteger twice = new AtomicInteger();
        final Set<String> seen = ConcurrentHashMap.newKeySet();
        final CountDownLatch done;
        final long gc0 = gcMillis();
        long gcMs;

        Recorder(RedisClock clock, int messages) {
            this.clock = clock;
            this.late = new double[messages];
            this.byDelay = new double[][] { new double[messages], new double[messages] };
            this.done = new CountDownLatch(messages);
        }

        void handled(String payload, MessageContext context) {
            double now = clock.nowMs();
            double due = context.dueAt().getEpochSecond() * 1000.0 + context.dueAt().getNano() / 1e6;
            if (!seen.add(context.id())) {
                twice.incrementAndGet();
                return;
            }
            int i = count.getAndIncrement();
            if (i < late.length) {
                late[i] = now - due;
            }
            int d = Integer.parseInt(payload.substring(2)) % 2; // "m-<i>": odd i had the small delay
            int j = countByDelay[d].getAndIncrement();
            if (j < byDelay[d].length) {
                byDelay[d][j] = now - due;
            }
            done.countDown();
        }

        /** The p99 of the messages sent with delay {@code d} (0: none, 1: 100 ms). */
        double p99(int d) {
            int n = Math.min(countByDelay[d].get(), byDelay[d].length);
            return Side.percentile(Side.sortedCopy(byDelay[d], n), n, 99);
        }

        Lateness result(String design, int instances, int queues, int messages, double claimsPerMessage) {
            int n = Math.min(count.get(), late.length);
            double[] sorted = Side.sortedCopy(late, n);
            long early = Arrays.stream(sorted).filter(v -> v < 0).count();
            gcMs = gcMillis() - gc0;
            return new Lateness(design, instances, queues, messages, n, twice.get(), Side.percentile(sorted, n, 50),
                    Side.percentile(sorted, n, 99), n == 0 ? Double.NaN : sorted[n - 1], n == 0 ? Double.NaN : sorted[0],
                    early, p99(0), p99(1), gcMs, Benchmarks.loadAverage().split(" ")[0], claimsPerMessage);
        }
    }

    private static long gcMillis() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream().mapToLong(b -> Math.max(0, b.getCollectionTime()))
                .sum();
    }

    private static String queue(int i) {
        return "idle-" + i;
    }

    /** command → {calls, usec} from INFO commandstats. */
    private static Map<String, long[]> commandStats(Resp resp) {
        Map<String, long[]> stats = new LinkedHashMap<>();
        resp.info("commandstats").forEach((key, value) -> {
            Matcher m = STAT.matcher(value);
            if (key.startsWith("cmdstat_") && m.find()) {
                stats.put(key.substring("cmdstat_".length()), new long[] { Long.parseLong(m.group(1)),
                        Long.parseLong(m.group(2)) });
            }
        });
        return stats;
    }

    private static double redisCpuSeconds(Resp resp) {
        Map<String, String> cpu = resp.info("cpu");
        return Double.parseDouble(cpu.get("used_cpu_sys")) + Double.parseDouble(cpu.get("used_cpu_user"));
    }

    private static long jvmCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean sun
                ? sun.getProcessCpuTime() : 0;
    }
}
