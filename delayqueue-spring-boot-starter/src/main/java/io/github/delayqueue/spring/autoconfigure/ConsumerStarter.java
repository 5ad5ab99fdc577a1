package io.github.delayqueue.spring.autoconfigure;

import org.redisson.api.RedissonClient;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;

/**
 * Once the application is ready: checks Redis's eviction policy (in the background) and starts the
 * consumers. A context that is refreshed but never run by {@code SpringApplication} starts none.
 */
final class ConsumerStarter implements ApplicationRunner {

    private final DefaultDelayQueueConsumerRegistry registry;
    private final RedissonClient redisson;

    ConsumerStarter(DefaultDelayQueueConsumerRegistry registry, RedissonClient redisson) {
        this.registry = registry;
        this.redisson = redisson;
    }

    @Override
    public void run(ApplicationArguments args) {
        RedisEvictionCheck.run(this.redisson);
        this.registry.start();
    }
}
