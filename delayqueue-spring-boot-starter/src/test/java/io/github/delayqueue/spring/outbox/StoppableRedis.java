package io.github.delayqueue.spring.outbox;

import java.io.IOException;
import java.io.UncheckedIOException;

import io.github.delayqueue.testing.TestRedis;
import redis.embedded.RedisServer;

/** An embedded Redis of a test's own, on a free port, that the test stops and starts (Redis down, Redis back). */
public final class StoppableRedis implements AutoCloseable {

    public final int port = TestRedis.freePort();
    private RedisServer server;

    public String url() {
        return "redis://127.0.0.1:" + this.port;
    }

    public synchronized StoppableRedis start() {
        try {
            this.server = RedisServer.newRedisServer().port(this.port).bind("127.0.0.1").setting("save \"\"")
                    .setting("appendonly no").setting("maxmemory-policy noeviction").build();
            this.server.start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start a Redis on port " + this.port, e);
        }
        return this;
    }

    public synchronized void stop() {
        if (this.server != null) {
            try {
                this.server.stop();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            this.server = null;
        }
    }

    @Override
    public void close() {
        stop();
    }
}
