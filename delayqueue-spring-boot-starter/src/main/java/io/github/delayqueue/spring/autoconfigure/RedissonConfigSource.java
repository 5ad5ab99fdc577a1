package io.github.delayqueue.spring.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.redisson.config.Config;

import org.springframework.boot.ssl.SslBundles;

/**
 * Where the Redisson {@link Config} of the starter's own client comes from: Boot's
 * {@code DataRedisConnectionDetails} when spring-boot-data-redis is present (a bean of this type, see
 * {@link DelayQueueAutoConfiguration}), else {@link RedissonConfigFactory} on {@code spring.data.redis.*}.
 * Free of spring-boot-data-redis types, so the starter loads without that module.
 */
@FunctionalInterface
interface RedissonConfigSource {

    Config create(RedisConnectionProperties properties, @Nullable SslBundles sslBundles);
}
