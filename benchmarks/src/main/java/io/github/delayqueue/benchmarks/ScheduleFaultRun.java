package io.github.delayqueue.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RList;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * The side-by-side fault run of recurring schedules (issue #34): {@code instances} application JVMs
 * ({@link ScheduleFaultApp}) run a job every second for {@code seconds}; at {@code kill-at} seconds the instance
 * running the job right then is SIGKILLed mid-run ({@link Process#destroyForcibly()}), the others run on and are
 * stopped (SIGTERM) at the end. Then, for every whole second of the run (which starts 2 s after all instances were
 * ready and one had run the job, a warm-up) up to two seconds before the stop, it counts how many times the job ran
 * for that second: 0 (missed), once, twice or more, and whether any of its runs finished. One side is a delayqueue schedule ({@code every: 1s}, lease 5 s), the other
 * {@code @Scheduled(cron = "* * * * * *")} with ShedLock's Redis provider ({@code lockAtMostFor = 5s},
 * {@code lockAtLeastFor = 500ms}); each run of the job works for {@code work-ms}. Not part of the build: it lasts
 * over two minutes.
 *
 * <pre>
 * ./mvnw -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar io.github.delayqueue.benchmarks.ScheduleFaultRun \
 *     [--redis-url=redis://127.0.0.1:6379|embedded] [--seconds=60] [--kill-at=30] [--instances=3] \
 *     [--work-ms=300] [--sides=delayqueue,shedlock]
 * </pre>
 *
 * <p>Prints one {@code FAULT/RESULT} line per side and a markdown table. The children's output goes to a log file per
 * instance in a temporary folder (printed).
 */
public final class ScheduleFaultRun {

    /** The counts of one side. */
    record Tally(long seconds, long missed, long once, long twiceOrMore, long doubledWithKilled, long neverFinished,
            List<Long> missedSeconds, List<Long> twiceSeconds) {
    }

    private ScheduleFaultRun() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        options.put("redis-url", System.getenv().getOrDefault("DELAYQUEUE_REDIS_URL", "redis://127.0.0.1:6379"));
        options.put("seconds", "60");
        options.put("kill-at", "30");
        options.put("instances", "3");
        options.put("work-ms", "300");
        options.put("sides", "delayqueue,shedlock");
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (!arg.startsWith("--") || eq < 0 || !options.containsKey(arg.substring(2, eq))) {
                throw new IllegalArgumentException("unknown argument '" + arg + "'; known: --" + String.join("=, --", options.keySet()) + "=");
            }
            options.put(arg.substring(2, eq), arg.substring(eq + 1));
        }
        int seconds = Integer.parseInt(options.get("seconds"));
        int killAt = Integer.parseInt(options.get("kill-at"));
        int instances = Integer.parseInt(options.get("instances"));
        long workMs = Long.parseLong(options.get("work-ms"));
        if (seconds < 4 || instances < 1 || killAt >= seconds - 2 || workMs < 0 || workMs >= 1000) {
            throw new IllegalArgumentException("need seconds >= 4, instances >= 1, kill-at < seconds - 2 (0: no kill), 0 <= work-ms < 1000");
        }
        EmbeddedRedis embedded = options.get("redis-url").equals("embedded") ? new EmbeddedRedis() : null;
        String url = embedded != null ? embedded.url() : options.get("redis-url");
        Config config = new Config();
        config.useSingleServer().setAddress(url);
        RedissonClient redisson = Redisson.create(config);
        Path logs = Files.createTempDirectory("schedule-fault-");
        System.out.println("# schedule fault run: " + instances + " instances, " + seconds + " s, job every 1 s working "
                + workMs + " ms, " + (killAt > 0 ? "the instance running the job SIGKILLed at " + killAt + " s" : "no kill")
                + "; Redis " + url.replaceAll("//[^@/]*@", "//***@") + "; instance logs in " + logs);
        Map<String, Tally> results = new LinkedHashMap<>();
        try {
            for (String side : options.get("sides").split(",")) {
                Tally tally = runSide(side.trim(), url, redisson, logs, instances, seconds, killAt, workMs);
                results.put(side.trim(), tally);
            }
        } finally {
            redisson.shutdown();
            if (embedded != null) {
                embedded.close();
            }
        }
        System.out.println();
        System.out.println("| side | tick seconds counted | missed (ran 0 times) | ran once | ran twice or more | of which"
                + " a run in flight on the killed instance | started but never finished |");
        System.out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
        results.forEach((side, t) -> System.out.printf("| %s | %d | %d | %d | %d | %d | %d |%n", side.equals("shedlock")
                ? "`@Scheduled` + ShedLock (Redis provider)" : "delayqueue schedule", t.seconds(), t.missed(), t.once(),
                t.twiceOrMore(), t.doubledWithKilled(), t.neverFinished()));
    }

    private static Tally runSide(String side, String url, RedissonClient redisson, Path logs, int instances, int seconds,
            int killAt, long workMs) throws Exception {
        String prefix = "sched-fault-" + side + "-" + System.nanoTime();
        RList<String> runs = redisson.getList(prefix + ":runs", StringCodec.INSTANCE);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        CountDownLatch ready = new CountDownLatch(instances);
        Map<String, Process> processes = new LinkedHashMap<>();
        try {
            for (int i = 1; i <= instances; i++) {
                String name = side.charAt(0) + "" + i;
                Process process = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-cp",
                        System.getProperty("java.class.path"), ScheduleFaultApp.class.getName(), side, name, url, prefix,
                        Long.toString(workMs)).redirectErrorStream(true).start();
                processes.put(name, process);
                Path log = logs.resolve(side + "-" + name + ".log");
                Thread reader = new Thread(() -> copy(process, log, ready), "schedule-fault-log-" + name);
                reader.setDaemon(true);
                reader.start();
            }
            if (!ready.await(180, TimeUnit.SECONDS)) {
                throw new IllegalStateException(side + ": the instances were not ready within 180 s; see " + logs);
            }
            // warm-up: the first run of the job on any instance, then 2 s more (first connections, first lock)
            long warmUpDeadline = System.currentTimeMillis() + 30_000;
            while (runs.isEmpty() && System.currentTimeMillis() < warmUpDeadline) {
                Thread.sleep(50);
            }
            long t0 = System.currentTimeMillis() + 2000;
            long firstSecond = t0 / 1000 + 1;
            long stopAt = t0 + seconds * 1000L;
            String killed = null;
            if (killAt > 0) {
                sleepUntil(t0 + killAt * 1000L);
                int size = runs.size();
                long deadline = System.currentTimeMillis() + 5000;
                while (runs.size() == size && System.currentTimeMillis() < deadline) {
                    Thread.sleep(2);
                }
                if (runs.size() > size) {
                    String last = runs.get(runs.size() - 1);
                    killed = last.substring(last.indexOf(' ') + 1);
                    processes.get(killed).destroyForcibly(); // SIGKILL, while its job runs
                    System.out.println("# " + side + ": SIGKILLed " + killed + " while it ran the job for second "
                            + (Long.parseLong(last.substring(0, last.indexOf(' '))) - firstSecond) + " of the run ("
                            + (System.currentTimeMillis() - t0) + " ms into it)");
                } else {
                    System.out.println("# " + side + ": no run of the job within 5 s at the kill time: nothing killed");
                }
            }
            sleepUntil(stopAt);
            long lastSecond = stopAt / 1000 - 2;
            for (Process process : processes.values()) {
                process.destroy(); // SIGTERM
            }
            for (Process process : processes.values()) {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
            Tally tally = tally(runs.readAll(), redisson.<String>getList(prefix + ":runs:done", StringCodec.INSTANCE).readAll(),
                    firstSecond, lastSecond, killed);
            System.out.printf("FAULT/RESULT side=%s instances=%d seconds=%d kill_at_s=%d killed=%s tick_seconds=%d missed=%d once=%d"
                    + " twice_or_more=%d twice_with_killed=%d started_never_finished=%d missed_seconds_from_start=%s twice_seconds_from_start=%s%n", side,
                    instances, seconds, killAt, killed == null ? "none" : killed, tally.seconds(), tally.missed(), tally.once(),
                    tally.twiceOrMore(), tally.doubledWithKilled(), tally.neverFinished(), tally.missedSeconds().stream().map(s -> s - firstSecond).toList(),
                    tally.twiceSeconds().stream().map(s -> s - firstSecond).toList());
            return tally;
        } finally {
            for (Process process : processes.values()) {
                process.destroyForcibly();
            }
            redisson.getKeys().deleteByPattern(prefix + ":*");
        }
    }

    /**
     * Counts, for every second from {@code firstSecond} to {@code lastSecond}, the runs started for it
     * ({@code "<second> <instance>"} in {@code started}) and whether one of them finished (in {@code finished}).
     */
    static Tally tally(List<String> started, List<String> finished, long firstSecond, long lastSecond, @Nullable String killed) {
        Map<Long, List<String>> bySecond = bySecond(started);
        Map<Long, List<String>> finishedBySecond = bySecond(finished);
        long missed = 0;
        long once = 0;
        long twice = 0;
        long withKilled = 0;
        long neverFinished = 0;
        List<Long> missedSeconds = new ArrayList<>();
        List<Long> twiceSeconds = new ArrayList<>();
        for (long second = firstSecond; second <= lastSecond; second++) {
            List<String> by = bySecond.getOrDefault(second, List.of());
            if (by.isEmpty()) {
                missed++;
                missedSeconds.add(second);
                continue;
            }
            if (!finishedBySecond.containsKey(second)) {
                neverFinished++;
            }
            if (by.size() == 1) {
                once++;
            } else {
                twice++;
                twiceSeconds.add(second);
                if (killed != null && by.contains(killed)) {
                    withKilled++;
                }
            }
        }
        return new Tally(lastSecond - firstSecond + 1, missed, once, twice, withKilled, neverFinished, missedSeconds, twiceSeconds);
    }

    private static Map<Long, List<String>> bySecond(List<String> records) {
        Map<Long, List<String>> bySecond = new TreeMap<>();
        for (String record : records) {
            int space = record.indexOf(' ');
            bySecond.computeIfAbsent(Long.parseLong(record.substring(0, space)), s -> new ArrayList<>()).add(record.substring(space + 1));
        }
        return bySecond;
    }

    private static void copy(Process process, Path log, CountDownLatch ready) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.println(line);
                if (line.equals(ScheduleFaultApp.READY)) {
                    ready.countDown();
                }
            }
        } catch (IOException e) {
            // the process was killed or stopped: its output ends here
        }
    }

    private static void sleepUntil(long epochMs) throws InterruptedException {
        long wait;
        while ((wait = epochMs - System.currentTimeMillis()) > 0) {
            Thread.sleep(wait);
        }
    }
}
