package io.github.delayqueue.test.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import redis.embedded.RedisServer;

/**
 * The one embedded {@code redis-server} of this JVM, shared by every application context that needs it: started
 * on a free port by the first {@link #acquire()}, stopped by the {@link #release} that leaves it without users. So
 * a test run starts one Redis for all its cached contexts (each with its own key prefix), and a stopped
 * application stops its Redis. The {@code embedded-redis} library also stops the process when the JVM exits.
 */
final class EmbeddedRedis {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedRedis.class);

    private static @Nullable RedisServer server;
    private static int port;
    private static int users;

    private EmbeddedRedis() {
    }

    /** The port of the shared server, started now if it is not running; each call needs one {@link #release}. */
    static synchronized int acquire() {
        if (server == null) {
            int free = freePort();
            RedisServer started;
            try {
                started = RedisServer.newRedisServer().port(free).bind("127.0.0.1").setting("save \"\"")
                        .setting("appendonly no").setting("maxmemory-policy noeviction").build();
                started.start();
            } catch (IOException e) {
                throw new UncheckedIOException("could not start the embedded Redis on port " + free, e);
            }
            server = started;
            port = free;
        }
        users++;
        return port;
    }

    /** Gives back one {@link #acquire()} of the server on {@code acquiredPort}; the last one stops it. */
    static synchronized void release(int acquiredPort) {
        RedisServer running = server;
        if (running == null || acquiredPort != port || --users > 0) {
            return;
        }
        server = null;
        try {
            running.stop();
            log.info("Embedded Redis on port {} stopped", acquiredPort);
        } catch (IOException e) {
            log.warn("Could not stop the embedded Redis on port {}", acquiredPort, e);
        }
    }

    /** Whether the shared server is running, and for how many contexts; for tests. */
    static synchronized int users() {
        return server == null ? 0 : users;
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port for the embedded Redis", e);
        }
    }
}
