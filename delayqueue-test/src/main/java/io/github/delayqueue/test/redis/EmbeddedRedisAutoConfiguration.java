package io.github.delayqueue.test.redis;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.ConfigurableEnvironment;

import redis.embedded.RedisServer;

/**
 * Runs the application on an embedded Redis when it configures none (see {@link EmbeddedRedisPostProcessor}).
 * Registered in {@code META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports}, so it
 * applies wherever {@code delayqueue-test} is on the classpath: in tests, and in a sample application that
 * depends on it at runtime. A production application depends on {@code delayqueue-test} in test scope only.
 *
 * <p>Internal to {@code delayqueue-test}: public only so that Spring Boot can load it.
 */
@AutoConfiguration(beforeName = "io.github.delayqueue.spring.autoconfigure.DelayQueueAutoConfiguration")
@ConditionalOnClass(RedisServer.class)
public final class EmbeddedRedisAutoConfiguration {

    @Bean
    static EmbeddedRedisPostProcessor delayQueueEmbeddedRedisPostProcessor(ConfigurableEnvironment environment) {
        return new EmbeddedRedisPostProcessor(environment);
    }
}
