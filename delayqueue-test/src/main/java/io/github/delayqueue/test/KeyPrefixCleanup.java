package io.github.delayqueue.test;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Deletes the keys of a test context's generated key prefix when the context closes. A lifecycle bean of a low
 * phase: it runs after the delay-queue consumers have stopped (so nothing writes under the prefix any more) and
 * before an embedded Redis is given back and the Redis client shut down. It finds the keys with {@code SCAN ...
 * MATCH <prefix>:*}, which is fine for a test's Redis (the engine itself never scans). A failure is logged, not
 * thrown: the keys are only left behind.
 */
final class KeyPrefixCleanup implements SmartLifecycle {

    static final String BEAN = "delayQueueTestKeyPrefixCleanup";

    private static final Logger log = LoggerFactory.getLogger(KeyPrefixCleanup.class);

    private final String prefix;
    private final ConfigurableListableBeanFactory beanFactory;
    private volatile boolean running;

    KeyPrefixCleanup(String prefix, ConfigurableListableBeanFactory beanFactory) {
        this.prefix = prefix;
        this.beanFactory = beanFactory;
    }

    String prefix() {
        return this.prefix;
    }

    @Override
    public void start() {
        this.running = true;
    }

    @Override
    public void stop() {
        this.running = false;
        RedissonClient redisson = existingClient();
        if (redisson == null || redisson.isShuttingDown()) {
            return;
        }
        try {
            long deleted = redisson.getKeys().unlinkByPattern(this.prefix + ":*");
            log.debug("Deleted {} keys of test key prefix {}", deleted, this.prefix);
        } catch (RuntimeException e) {
            log.warn("Could not delete the keys of test key prefix {}: {}", this.prefix, e.toString());
        }
    }

    /** The Redis client bean if it was created: a context that never used Redis is not made to connect now. */
    private @Nullable RedissonClient existingClient() {
        String[] names = this.beanFactory.getBeanNamesForType(RedissonClient.class, false, false);
        return names.length == 1 && this.beanFactory.containsSingleton(names[0])
                ? this.beanFactory.getBean(names[0], RedissonClient.class) : null;
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    @Override
    public int getPhase() {
        return Integer.MIN_VALUE + 1000;
    }

    /** A paused test context (while tests use another one) keeps its messages for when it is restarted. */
    @Override
    public boolean isPauseable() {
        return false;
    }
}
