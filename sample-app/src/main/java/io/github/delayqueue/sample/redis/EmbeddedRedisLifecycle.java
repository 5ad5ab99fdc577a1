package io.github.delayqueue.sample.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

import redis.embedded.RedisServer;

/**
 * Stops the embedded Redis that {@link EmbeddedRedisEnvironmentPostProcessor} started. Its phase is
 * the lowest, so it stops after every other lifecycle bean, the delay-queue consumers included: they
 * finish their running handlers and acknowledge them while Redis is still up.
 */
@Component
class EmbeddedRedisLifecycle implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisLifecycle.class);

    private static final Map<Integer, RedisServer> SERVERS = new ConcurrentHashMap<>();

    private final Integer port;

    private volatile boolean running;

    EmbeddedRedisLifecycle(@Value("${" + EmbeddedRedisEnvironmentPostProcessor.PORT_PROPERTY + ":#{null}}") Integer port) {
        this.port = port;
    }

    static void start(int port) {
        try {
            RedisServer server = RedisServer.newRedisServer().port(port).bind("127.0.0.1").setting("save \"\"")
                    .setting("appendonly no").setting("maxmemory-policy noeviction").build();
            server.start();
            SERVERS.put(port, server);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the embedded Redis on port " + port, e);
        }
    }

    @Override
    public void start() {
        this.running = true;
    }

    static void stop(int port) {
        RedisServer server = SERVERS.remove(port);
        if (server != null) {
            try {
                server.stop();
                log.info("Embedded Redis on port {} stopped", port);
            } catch (IOException e) {
                log.warn("Could not stop the embedded Redis on port {}", port, e);
            }
        }
    }

    @Override
    public void stop() {
        this.running = false;
        if (this.port != null) {
            stop(this.port);
        }
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    @Override
    public int getPhase() {
        return Integer.MIN_VALUE;
    }
}
