package io.github.delayqueue.test.redis;

import java.util.concurrent.atomic.AtomicBoolean;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * One application context's use of the {@link EmbeddedRedis}. Its lifecycle phase is the lowest, so it gives
 * the server back after every other lifecycle bean has stopped, the delay-queue consumers included: they finish
 * their running handlers and acknowledge them while Redis is still up. It also gives it back when the context
 * fails to start (the bean factory destroys it), and only once; not when the context is only paused.
 */
final class EmbeddedRedisLease implements SmartLifecycle, DisposableBean {

    private final int port;
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile boolean running;

    EmbeddedRedisLease(int port) {
        this.port = port;
    }

    int port() {
        return this.port;
    }

    @Override
    public void start() {
        this.running = true;
    }

    @Override
    public void stop() {
        this.running = false;
        release();
    }

    @Override
    public void destroy() {
        release();
    }

    private void release() {
        if (this.released.compareAndSet(false, true)) {
            EmbeddedRedis.release(this.port);
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

    /**
     * Not stopped when Spring's test context cache pauses the context (while tests use another one): the context
     * keeps its Redis, on the same port, for when it is restarted.
     */
    @Override
    public boolean isPauseable() {
        return false;
    }
}
