package io.github.delayqueue.testing;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

import redis.embedded.core.ExecutableProvider;

/**
 * Redis server processes a test starts itself from the binary that the {@code embedded-redis} artifact bundles
 * (Redis 6.2), each with a config file of its own in one temporary directory: the pieces of a cluster or a
 * Sentinel set-up, which the artifact's builders cannot configure (node timeout, replicas, sentinel timings).
 * {@link #kill} is SIGKILL; {@link #close} kills every process still running and deletes the directory, and a
 * shutdown hook does the same if the JVM exits first, so nothing is left running.
 */
public final class RedisProcesses implements AutoCloseable {

    private final Path dir;
    private final Map<Integer, Process> processes = new ConcurrentHashMap<>();
    private final Map<Integer, List<String>> commands = new ConcurrentHashMap<>();
    private final Thread hook;

    public RedisProcesses() {
        try {
            this.dir = Files.createTempDirectory("dq-redis-topology-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.hook = new Thread(this::stopAll, "redis-processes-stop");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** The bundled redis-server binary, extracted once by embedded-redis. */
    private static synchronized Path binary() {
        try {
            return ExecutableProvider.newJarResourceProvider().get().toPath();
        } catch (IOException e) {
            throw new UncheckedIOException("could not extract the redis-server binary of embedded-redis", e);
        }
    }

    /**
     * Starts {@code redis-server <conf>} on {@code port} (with {@code sentinel} as {@code --sentinel}) and waits until it
     * answers PING. The config gets {@code port}, {@code bind 127.0.0.1}, {@code dir} and no persistence before the given
     * lines.
     */
    public synchronized void start(int port, boolean sentinel, String... lines) {
        List<String> conf = new ArrayList<>(List.of("port " + port, "bind 127.0.0.1", "dir " + dir.toAbsolutePath(),
                "logfile " + dir.resolve("redis-" + port + ".log").toAbsolutePath(), "daemonize no"));
        if (!sentinel) {
            conf.addAll(List.of("save \"\"", "appendonly no", "maxmemory-policy noeviction",
                    "dbfilename dump-" + port + ".rdb"));
        }
        conf.addAll(List.of(lines));
        Path file = dir.resolve((sentinel ? "sentinel-" : "redis-") + port + ".conf");
        try {
            Files.write(file, conf, StandardCharsets.UTF_8);
            List<String> command = new ArrayList<>(List.of(binary().toString(), file.toAbsolutePath().toString()));
            if (sentinel) {
                command.add("--sentinel");
            }
            commands.put(port, command);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the config of redis-server on port " + port, e);
        }
        launch(port);
    }

    /**
     * Starts the server on {@code port} again after {@link #kill}, with the config file it left (a cluster node keeps its
     * identity in its nodes file, a sentinel its view), and waits until it answers PING.
     */
    public synchronized void restart(int port) {
        if (processes.containsKey(port) || !commands.containsKey(port)) {
            throw new IllegalArgumentException("no killed redis-server of this test on port " + port);
        }
        launch(port);
    }

    private void launch(int port) {
        try {
            Process process = new ProcessBuilder(commands.get(port)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("stdout-" + port + ".txt").toFile())).start();
            processes.put(port, process);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start redis-server on port " + port, e);
        }
        try {
            await("redis-server on port " + port + " answers", Duration.ofSeconds(30), () -> {
                try {
                    return "PONG".equals(call(port, "PING"));
                } catch (RuntimeException e) {
                    return false;
                }
            });
        } catch (IllegalStateException e) {
            throw new IllegalStateException(e.getMessage() + "; its log ends: " + logTail(port), e);
        }
    }

    /** The last lines the server on {@code port} logged (and printed), for a failure message. */
    private String logTail(int port) {
        StringBuilder tail = new StringBuilder();
        for (String name : List.of("redis-" + port + ".log", "stdout-" + port + ".txt")) {
            try {
                List<String> lines = Files.readAllLines(dir.resolve(name), StandardCharsets.UTF_8);
                tail.append(" [").append(name).append("] ")
                        .append(String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size())));
            } catch (IOException | RuntimeException e) {
                tail.append(" [").append(name).append(": unreadable]");
            }
        }
        return tail.toString();
    }

    /** SIGKILL to the server on {@code port}; returns once the process is gone. */
    public void kill(int port) {
        Process process = processes.remove(port);
        if (process == null) {
            throw new IllegalArgumentException("no redis-server of this test on port " + port);
        }
        process.destroyForcibly();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("redis-server on port " + port + " did not die");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Ports of the servers still running. */
    public List<Integer> ports() {
        return List.copyOf(processes.keySet());
    }

    private void killAll() {
        for (Integer port : List.copyOf(processes.keySet())) {
            try {
                kill(port);
            } catch (RuntimeException e) {
                // keep killing the others
            }
        }
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is exiting: the hook runs anyway
        }
        stopAll();
    }

    /** Kills every server still running and deletes the directory. */
    private void stopAll() {
        killAll();
        try (var files = Files.walk(dir)) {
            files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind is harmless
        }
    }

    /** Polls {@code condition} every 50 ms until it holds or {@code timeout} passed (then throws, naming {@code what}). */
    public static void await(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + timeout + " waiting until " + what);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * One command on a new connection to 127.0.0.1:{@code port} (RESP2): its reply as a String, Long, List or null. An
     * error reply throws {@link IllegalStateException}. For setting up and inspecting servers, not for the code under test.
     */
    public static @Nullable Object call(int port, String... args) {
        return call("127.0.0.1", port, args);
    }

    /** As {@link #call(int, String...)} on any host. */
    public static @Nullable Object call(String host, int port, String... args) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 2_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            StringBuilder command = new StringBuilder().append('*').append(args.length).append("\r\n");
            for (String arg : args) {
                command.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(arg).append("\r\n");
            }
            out.write(command.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()));
        } catch (IOException e) {
            throw new UncheckedIOException("redis " + host + ":" + port + " " + args[0], e);
        }
    }

    private static @Nullable Object read(InputStream in) throws IOException {
        int type = in.read();
        String line = line(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new IllegalStateException(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length + 2);
                return new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read(in));
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type " + (char) type);
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\r'; c = in.read()) {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            line.append((char) c);
        }
        in.read(); // '\n'
        return line.toString();
    }
}
