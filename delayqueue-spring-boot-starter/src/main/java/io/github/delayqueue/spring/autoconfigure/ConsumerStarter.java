package io.github.delayqueue.spring.autoconfigure;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;

/**
 * Starts the consumers once the application is ready. A context that is refreshed but never run by
 * {@code SpringApplication} starts none. (Redis is checked and warmed up earlier, by {@link RedisWarmUp}.)
 */
final class ConsumerStarter implements ApplicationRunner {

    private final DefaultDelayQueueConsumerRegistry registry;

    ConsumerStarter(DefaultDelayQueueConsumerRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void run(ApplicationArguments args) {
        this.registry.start();
    }
}
