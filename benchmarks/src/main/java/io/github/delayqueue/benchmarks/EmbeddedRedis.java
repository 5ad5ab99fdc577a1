package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

import redis.embedded.RedisServer;

/** A Redis server started from the binary bundled in {@code embedded-redis}, on a free loopback port. */
final class EmbeddedRedis implements AutoCloseable {

    private final RedisServer server;
    private final int port;

    EmbeddedRedis() {
        port = freePort();
        try {
            server = RedisServer.newRedisServer().port(port).bind("127.0.0.1").setting("save \"\"")
                    .setting("appendonly no").setting("maxmemory-policy noeviction").build();
            server.start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the embedded Redis on port " + port, e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(this::close, "embedded-redis-stop"));
    }

    String url() {
        return "redis://127.0.0.1:" + port;
    }

    @Override
    public synchronized void close() {
        try {
            if (server.isActive()) {
                server.stop();
            }
        } catch (IOException | RuntimeException e) {
            // the process dies with the JVM anyway
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
