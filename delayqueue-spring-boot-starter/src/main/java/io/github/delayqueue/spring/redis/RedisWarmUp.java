package io.github.delayqueue.spring.redis;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.PartitionCountException;
import io.github.delayqueue.core.UnsupportedRedisException;
import io.github.delayqueue.spring.core.QueueCatalog;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

/**
 * When the context starts, on a daemon thread of its own ({@code delayqueue-warm-up}): connects to Redis,
 * checks its version, loads the scripts of every engine client (so the first send costs what later ones
 * do, not the hundreds of milliseconds of a lazy connection and a script load) and then checks the
 * eviction policy ({@link RedisEvictionCheck}). Never blocks startup and is harmless while Redis is down:
 * a failure is logged once (an unsupported Redis at ERROR, an unreachable one at INFO) and the clients
 * connect on first use as before. Stopped (interrupted) when the context closes.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class RedisWarmUp implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(RedisWarmUp.class);

    private final QueueCatalog catalog;
    private final RedissonClient redisson;
    private @Nullable Thread thread;
    private volatile boolean running;
    private volatile boolean done;

    public RedisWarmUp(QueueCatalog catalog, RedissonClient redisson) {
        this.catalog = catalog;
        this.redisson = redisson;
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
        // one queue per client (its connection is shared), and every partitioned queue (its partition count is checked)
        Map<String, DelayQueueClient> queues = new LinkedHashMap<>();
        Set<DelayQueueClient> clients = new HashSet<>();
        this.catalog.codes().forEach(code -> this.catalog.find(code.code()).ifPresent(queue -> {
            if (clients.add(queue.client()) || queue.client().options().partitions(queue.name()) > 1) {
                queues.put(queue.name(), queue.client());
            }
        }));
        try {
            for (Map.Entry<String, DelayQueueClient> queue : queues.entrySet()) {
                if (!this.running) {
                    return;
                }
                try {
                    queue.getValue().warmUp(queue.getKey());
                } catch (PartitionCountException e) {
                    log.error("{}: sends to it fail and its consumers do not claim until the count is fixed",
                            e.getMessage());
                }
            }
            log.debug("Connected to Redis and loaded the scripts in {} ms", (System.nanoTime() - start) / 1_000_000);
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
