package io.github.delayqueue.spring.autoconfigure;

import org.redisson.config.Config;

/**
 * Customizes the Redisson {@link Config} of the client the starter builds when the application has no
 * {@link org.redisson.api.RedissonClient} bean of its own. The connection (servers, credentials,
 * database, SSL, timeouts, client name) is already mapped from Boot's Redis connection details or
 * {@code spring.data.redis.*} when customizers run; they run in {@link org.springframework.core.Ordered}
 * / {@link org.springframework.core.annotation.Order @Order} order, and the client is created from the
 * result. With an application {@code RedissonClient} no customizer is called. Example:
 *
 * <pre>{@code
 * @Bean
 * DelayQueueRedissonConfigCustomizer redissonThreads() {
 *     return config -> config.setNettyThreads(64).setThreads(16);
 * }
 * }</pre>
 */
@FunctionalInterface
public interface DelayQueueRedissonConfigCustomizer {

    /**
     * Customizes the configuration before the client is created from it.
     * @param config the configuration the starter built, to change in place
     */
    void customize(Config config);
}
