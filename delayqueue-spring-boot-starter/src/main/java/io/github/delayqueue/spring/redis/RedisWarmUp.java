package io.github.delayqueue.spring.redis;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Supplier;

import io.github.delayqueue.core.PartitionCountException;
import io.github.delayqueue.core.UnsupportedRedisException;
import io.github.delayqueue.spring.core.QueueCatalog;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.Ordered;

/**
 * When the context starts, on a daemon thread of its own ({@code delayqueue-warm-up}): prepares the payload codec
 * for the handlers' payload types, then connects to Redis, checks its version, loads the scripts and checks the
 * partition count of every queue (so the first send costs what later ones do, not the hundreds of milliseconds of
 * a lazy connection, a script load and Jackson finding its serializers), and then checks the eviction policy
 * ({@link RedisEvictionCheck}). A failure is logged once (an unsupported Redis or a wrong partition count at ERROR,
 * an unreachable Redis at INFO) and the clients connect on first use as before.
 *
 * <p>Readiness waits for it: the {@link ApplicationReadyEvent} (after which Boot reports the readiness state
 * {@code ACCEPTING_TRAFFIC}) reaches this listener first, which waits for the warm-up at most {@code wait}
 * ({@code delayqueue.warm-up-wait}), so the application's own ready listeners and its first requests find it done.
 * Startup never fails because of it. Stopped (interrupted) when the context closes.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class RedisWarmUp implements SmartLifecycle, ApplicationListener<ApplicationReadyEvent>, Ordered {

    private static final Logger log = LoggerFactory.getLogger(RedisWarmUp.class);

    private final QueueCatalog catalog;
    private final RedissonClient redisson;
    private final Supplier<Collection<Type>> payloadTypes;
    private final Duration wait;
    private volatile @Nullable Thread thread;
    private volatile boolean running;
    private volatile boolean done;

    /**
     * @param payloadTypes the payload types of this application's handlers, read when the warm-up starts
     * @param wait         longest the {@link ApplicationReadyEvent} waits for the warm-up; zero does not wait
     */
    public RedisWarmUp(QueueCatalog catalog, RedissonClient redisson, Supplier<Collection<Type>> payloadTypes,
            Duration wait) {
        this.catalog = catalog;
        this.redisson = redisson;
        this.payloadTypes = payloadTypes;
        this.wait = wait;
    }

    @Override
    public synchronized void start() {
        if (this.running) {
            return;
        }
        this.running = true;
        Thread warmUp = new Thread(this::warmUp, "delayqueue-warm-up");
        warmUp.setDaemon(true);
        this.thread = warmUp;
        warmUp.start();
    }

    private void warmUp() {
        long start = System.nanoTime();
        try {
            Set<Type> types = new LinkedHashSet<>(this.payloadTypes.get());
            for (Type type : types) {
                this.catalog.codec().prepare(type);
            }
            // every queue: its partition count is checked (the scripts are loaded once per client)
            for (var code : this.catalog.codes()) {
                var queue = this.catalog.find(code.code()).orElse(null);
                if (!this.running) {
                    return;
                }
                if (queue == null) {
                    continue;
                }
                try {
                    queue.client().warmUp(queue.name());
                } catch (PartitionCountException e) {
                    log.error("{}: sends to it fail and its consumers do not claim until the count is fixed",
                            e.getMessage());
                }
            }
            log.debug("Prepared the codec for {} payload types, connected to Redis and loaded the scripts in {} ms",
                    types.size(), (System.nanoTime() - start) / 1_000_000);
        } catch (UnsupportedRedisException e) {
            log.error("{}: sends will fail and consumers will not claim until it is upgraded", e.getMessage());
            return;
        } catch (RuntimeException e) {
            if (this.running) {
                log.info("Could not connect to Redis at startup ({}); clients connect on first use", e.toString());
            }
            return;
        } finally {
            this.done = true;
        }
        if (this.running) {
            RedisEvictionCheck.check(this.redisson);
        }
    }

    /** Waits for the warm-up, at most {@code wait}, before the application's own listeners hear the event. */
    @Override
    public void onApplicationEvent(ApplicationReadyEvent event) {
        Thread warmUp = this.thread;
        if (warmUp == null || this.wait.isZero() || this.done) {
            return;
        }
        long start = System.nanoTime();
        try {
            warmUp.join(Math.max(1, this.wait.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (!this.done) {
            log.info("The Redis warm-up is still running after {} ms (delayqueue.warm-up-wait); the application goes "
                    + "ready without it, and its first sends may be slow", (System.nanoTime() - start) / 1_000_000);
        }
    }

    /** First among the listeners of the {@link ApplicationReadyEvent}, so that theirs find the warm-up done. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    /** Whether the warm-up has finished (or given up); for tests. */
    boolean isDone() {
        return this.done;
    }

    @Override
    public synchronized void stop() {
        this.running = false;
        Thread warmUp = this.thread;
        if (warmUp != null) {
            warmUp.interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }
}
