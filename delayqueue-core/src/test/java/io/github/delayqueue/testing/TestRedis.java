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
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
