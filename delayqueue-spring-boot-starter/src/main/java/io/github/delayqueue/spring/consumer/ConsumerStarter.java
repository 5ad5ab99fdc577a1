package io.github.delayqueue.spring.consumer;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;

/**
 * Starts the {@link DefaultDelayQueueConsumerRegistry} once the application is ready, and does nothing
 * else: the registry owns and stops the consumers. A context that is refreshed but never run by
 * {@code SpringApplication} starts none. (Redis is checked and warmed up earlier, by
 * {@link io.github.delayqueue.spring.redis.RedisWarmUp}.)
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class ConsumerStarter implements ApplicationRunner {

    private final DefaultDelayQueueConsumerRegistry registry;

    public ConsumerStarter(DefaultDelayQueueConsumerRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void run(ApplicationArguments args) {
        this.registry.start();
    }
}
