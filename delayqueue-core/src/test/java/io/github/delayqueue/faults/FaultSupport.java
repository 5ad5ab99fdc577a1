package io.github.delayqueue.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.testing.TestRedis;
import redis.embedded.RedisServer;

/**
 * Shared pieces of the fault-injection tests (GitHub issue #6). Public for the starter's fault tests, which
 * use the FAULT line, the child JVM and the watchdog through the core test-jar.
 */
public final class FaultSupport {

    /** Where the FAULT lines and child-process logs go (the module's build directory). */
    static final Path OUT = Path.of("target", "faults");

    private FaultSupport() {
    }

    /** Prints the one-line summary of a scenario and appends it to {@code target/faults/fault-lines.txt}. */
    public static void report(String scenario, long sent, long delivered, long lost, long duplicates, long recoverMs,
            String extra) {
        String line = "FAULT scenario=" + scenario + " sent=" + sent + " delivered=" + delivered + " lost=" + lost
                + " duplicates=" + duplicates + " recover_ms=" + recoverMs
                + (extra != null && extra.contains("redis=") ? "" : " redis=" + redisMode())
                + (extra == null || extra.isBlank() ? "" : " " + extra);
        System.out.println(line);
        try {
            Files.createDirectories(OUT);
            Files.writeString(OUT.resolve("fault-lines.txt"), line + System.lineSeparator(), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** "embedded" or the external URL the shared-server scenarios ran against. */
    static String redisMode() {
        return TestRedis.isEmbedded() ? "embedded" : TestRedis.url();
    }

    static int freePort() {
        return TestRedis.freePort();
    }

    /**
     * A Redisson client with short, explicit failure settings: command timeout {@code timeoutMs},
     * {@code retryAttempts} retries {@code retryDelayMs} apart, connect timeout 1 s, reconnection every 100 ms.
     */
    static RedissonClient client(String url, int timeoutMs, int retryAttempts, int retryDelayMs, boolean lazy) {
        Config config = new Config();
        config.setThreads(4);
        config.setNettyThreads(8);
        config.setLazyInitialization(lazy);
        config.useSingleServer().setAddress(url).setTimeout(timeoutMs).setConnectTimeout(1_000)
                .setRetryAttempts(retryAttempts).setRetryDelay(new ConstantDelay(Duration.ofMillis(retryDelayMs)))
                .setReconnectionDelay(new ConstantDelay(Duration.ofMillis(100))).setConnectionMinimumIdleSize(2)
                .setConnectionPoolSize(16).setSubscriptionConnectionMinimumIdleSize(1);
        return Redisson.create(config);
    }

    /** Shuts a client down without Redisson's default 2 s quiet period. */
    static void shutdown(RedissonClient redisson) {
        if (redisson != null) {
            redisson.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    /** Messages sent one at a time to an idle consumer to tell a wake-up from the 1 s safety poll. */
    static final int WAKE_SAMPLES = 10;

    /**
     * Latencies of messages due at once, sent to an idle consumer whose safety poll is 1 s: woken through
     * pub/sub they take milliseconds; found by the safety poll they would spread over 0-1,000 ms. A median
     * under 100 ms of 10 samples tells the two apart (6 of 10 under 100 ms by chance through polling: about
     * 0.02%) while letting a busy CI machine delay a few samples.
     */
    static void assertWokenNotPolled(List<Long> latencies) {
        List<Long> sorted = new ArrayList<>(latencies);
        sorted.sort(null);
        org.assertj.core.api.Assertions.assertThat(sorted.get(sorted.size() / 2))
                .as("median latency of %s: delivered through the wake-up, not the 1 s safety poll", latencies)
                .isLessThan(100);
    }

    static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    // ---- CPU -----------------------------------------------------------------------------------

    /** The engine threads of one queue's consumer ({@code delayqueue-<role>-<queue>-<n>}). */
    static List<Thread> engineThreads(String queue, String role) {
        List<Thread> threads = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("delayqueue-" + role + "-" + queue + "-")) {
                threads.add(t);
            }
        }
        return threads;
    }

    /** The engine threads that a client's consumers share ({@code delayqueue-<role>-<n>}: lease, settler). */
    static List<Thread> sharedEngineThreads(String role) {
        List<Thread> threads = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().matches("delayqueue-" + role + "-\\d+")) {
                threads.add(t);
            }
        }
        return threads;
    }

    static long threadCpuNanos(List<Thread> threads) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (Thread t : threads) {
            long cpu = mx.getThreadCpuTime(t.getId());
            if (cpu > 0) {
                total += cpu;
            }
        }
        return total;
    }

    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    // ---- logs ----------------------------------------------------------------------------------

    /** Captures what the engine logs for consumers (logger {@link DelayQueueConsumer}), DEBUG and up. */
    static final class EngineLog extends AppenderBase<ILoggingEvent> implements AutoCloseable {
        private final Logger logger = (Logger) LoggerFactory.getLogger(DelayQueueConsumer.class);
        private final Level previous;
        final List<String> lines = new CopyOnWriteArrayList<>();

        EngineLog() {
            previous = logger.getLevel();
            setContext(logger.getLoggerContext());
            setName("faults-capture");
            start();
            logger.addAppender(this);
            logger.setLevel(Level.DEBUG);
        }

        @Override
        protected void append(ILoggingEvent event) {
            lines.add(event.getLevel() + " " + event.getFormattedMessage());
        }

        boolean contains(String text) {
            return lines.stream().anyMatch(l -> l.contains(text));
        }

        @Override
        public void close() {
            logger.detachAppender(this);
            logger.setLevel(previous);
            stop();
        }
    }

    // ---- a Redis of our own ------------------------------------------------------------------------

    /**
     * An embedded Redis 6.2 that a test may crash and restart: its own port and data directory, AOF on
     * with {@code appendfsync always} (every acknowledged write is fsynced before the reply), no RDB.
     * {@link #crash()} is SIGKILL, so only what the AOF holds survives.
     */
    static final class OwnRedis implements AutoCloseable {
        final int port;
        final Path dir;
        private RedisServer server;
        private ProcessHandle process;

        OwnRedis() {
            this.port = freePort();
            try {
                this.dir = Files.createTempDirectory("dq-faults-redis-");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        String url() {
            return "redis://127.0.0.1:" + port;
        }

        synchronized OwnRedis start() {
            try {
                server = RedisServer.newRedisServer().port(port).bind("127.0.0.1").setting("appendonly yes")
                        .setting("appendfsync always").setting("save \"\"").setting("dir " + dir.toAbsolutePath())
                        .setting("maxmemory-policy noeviction").onShutdownForceStop(true).build();
                server.start();
            } catch (IOException e) {
                throw new UncheckedIOException("could not start a Redis on port " + port, e);
            }
            process = find().orElseThrow(() -> new IllegalStateException("no redis-server process on port " + port
                    + " among " + ProcessHandle.current().descendants().map(p -> p.pid() + "=" + p.info()).toList()));
            return this;
        }

        /** SIGSTOP: the process stays, its sockets stay open, nothing answers (a stall: fork, slow disk, VM pause). */
        synchronized void pause() {
            signal("STOP");
        }

        /** SIGCONT after {@link #pause()}: Redis runs the commands that queued up meanwhile. */
        synchronized void resume() {
            signal("CONT");
        }

        private void signal(String name) {
            try {
                Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
                if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                    throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        /** SIGKILL, then waits until the process is gone (and its port closed). */
        synchronized void crash() {
            if (server == null) {
                return;
            }
            process.destroyForcibly();
            try {
                process.onExit().get(10, TimeUnit.SECONDS);
                server.stop(); // bookkeeping only: the process is already dead
            } catch (Exception e) {
                throw new IllegalStateException("could not kill the Redis on port " + port, e);
            }
            server = null;
        }

        /** The redis-server child process serving {@link #port}, read from /proc (Redis retitles itself "redis-server 127.0.0.1:N"). */
        private Optional<ProcessHandle> find() {
            return ProcessHandle.current().descendants()
                    .filter(p -> p.info().command().map(c -> c.contains("redis-server")).orElse(false))
                    .filter(p -> {
                        try {
                            String cmdline = Files.readString(Path.of("/proc", Long.toString(p.pid()), "cmdline"))
                                    .replace('\0', ' ');
                            return cmdline.contains(":" + port + " ") || cmdline.trim().endsWith(":" + port)
                                    || cmdline.contains("--port " + port);
                        } catch (IOException e) {
                            return false;
                        }
                    }).findFirst();
        }

        @Override
        public void close() {
            crash();
            try (var files = Files.walk(dir)) {
                files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // a temp directory left behind is harmless
            }
        }
    }

    // ---- a JVM of its own ------------------------------------------------------------------------

    /** In a child JVM: halts it after {@code seconds} in case the test that started it died. */
    public static void haltAfter(int seconds) {
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(seconds * 1_000L);
            } catch (InterruptedException e) {
                return;
            }
            Runtime.getRuntime().halt(3);
        }, "watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    /**
     * Starts {@code main} in a new JVM on this JVM's test class path; its output goes to
     * {@code target/faults/<logName>}. Under surefire {@code java.class.path} is the real test class path
     * (surefire sets it, and {@code surefire.test.class.path}, even when it boots from a manifest-only jar).
     */
    public static Process startJava(Class<?> main, String logName, String... args) throws IOException {
        String classPath = System.getProperty("surefire.test.class.path");
        if (classPath == null || classPath.isBlank()) {
            classPath = System.getProperty("java.class.path");
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classPath, main.getName()));
        command.addAll(List.of(args));
        Files.createDirectories(OUT);
        Path log = OUT.resolve(logName);
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }
}
