package io.github.delayqueue.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.UUID;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import redis.embedded.RedisServer;

/**
 * The Redis that tests talk to: the server named by {@code DELAYQUEUE_REDIS_URL} (for example
 * {@code redis://127.0.0.1:6379}), or else one embedded server per JVM, started from the binary that
 * the {@code embedded-redis} artifact bundles, on a free port, stopped when the JVM exits.
 */
public final class TestRedis {

    /** Environment variable (or system property) naming an external Redis for the tests. */
    public static final String URL_VARIABLE = "DELAYQUEUE_REDIS_URL";

    private static String url;
    private static RedisServer embedded;

    private TestRedis() {
    }

    /** The Redis URL, starting the embedded server on first use. */
    public static synchronized String url() {
        if (url == null) {
            String configured = System.getProperty(URL_VARIABLE, System.getenv(URL_VARIABLE));
            url = configured != null && !configured.isBlank() ? configured.trim() : startEmbedded();
        }
        return url;
    }

    /** Whether the tests run on the embedded server (and may, for example, stop and restart it). */
    public static synchronized boolean isEmbedded() {
        url();
        return embedded != null;
    }

    /** A new client on {@link #url()}; the caller shuts it down. */
    public static RedissonClient newClient() {
        Config config = new Config();
        config.setThreads(4);
        config.setNettyThreads(8);
        config.useSingleServer().setAddress(url()).setConnectionMinimumIdleSize(2).setConnectionPoolSize(16)
                .setSubscriptionConnectionMinimumIdleSize(1).setTimeout(5_000);
        return Redisson.create(config);
    }

    /** Deletes the keys a test wrote under its own prefix (SCAN: the test's cleanup, not the library's). */
    public static void deleteKeys(String prefix) {
        RedissonClient redisson = newClient();
        try {
            redisson.getKeys().unlinkByPattern(prefix + ":*");
        } finally {
            redisson.shutdown();
        }
    }

    /** A key prefix no other test uses, so tests can share one server. */
    public static String uniquePrefix() {
        return "dqtest-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static String startEmbedded() {
        int port = freePort();
        try {
            embedded = RedisServer.newRedisServer().port(port).bind("127.0.0.1").setting("save \"\"")
                    .setting("appendonly no").setting("maxmemory-policy noeviction").build();
            embedded.start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the embedded Redis on port " + port, e);
        }
        RedisServer server = embedded;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.stop();
            } catch (IOException e) {
                // the JVM is exiting; the server process dies with it
            }
        }, "embedded-redis-stop"));
        return "redis://127.0.0.1:" + port;
    }

    /** A TCP port nobody listens on right now, for servers the tests start themselves. */
    public static int freePort() {
        return freePort(0);
    }

    /**
     * A TCP port nobody listens on right now, such that {@code port + busOffset} is free too (a Redis Cluster node also
     * listens on its port + 10000), for servers the tests start themselves. Taken below Linux's ephemeral range (32768
     * and up): a port the kernel handed out as {@code ServerSocket(0)}'s may meanwhile become the local port of one of
     * the hundreds of client connections the tests open, and two test JVMs (the engine's tests run in two) each start
     * clusters; a cluster node failed to start that way ("redis-server on port … answers" timed out under load).
     */
    public static int freePort(int busOffset) {
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = 10_000 + RANDOM.nextInt(32_768 - busOffset - 10_000); // and port + busOffset below 32768
            if (bindable(port) && (busOffset == 0 || bindable(port + busOffset))) {
                return port;
            }
        }
        throw new IllegalStateException("no free port below 32768 for a test server");
    }

    private static final java.util.Random RANDOM = new java.security.SecureRandom();

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new java.net.InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
