package io.github.delayqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.core.env.Environment;

/**
 * The {@code spring.data.redis.*} properties the starter maps onto a Redisson client when the
 * application has none. Bound with the {@link Binder} rather than declared as
 * {@code @ConfigurationProperties}: the properties belong to Spring Boot (which documents them), so
 * the starter neither republishes their metadata nor depends on spring-boot-data-redis, which would
 * bring Spring Data Redis and Lettuce along. Same names, defaults and meaning as Boot's
 * {@code DataRedisProperties}.
 */
record RedisConnectionProperties(@Nullable String url, @DefaultValue("localhost") String host,
        @DefaultValue("6379") int port, int database, @Nullable String username, @Nullable String password,
        @Nullable Duration timeout, @Nullable Duration connectTimeout, @Nullable String clientName,
        @DefaultValue Ssl ssl, @Nullable Sentinel sentinel, @Nullable Cluster cluster) {

    static RedisConnectionProperties bind(Environment environment) {
        return Binder.get(environment).bindOrCreate("spring.data.redis", Bindable.of(RedisConnectionProperties.class));
    }

    record Ssl(@Nullable Boolean enabled, @Nullable String bundle) {

        /** Like Boot: explicitly enabled, or implied by a bundle. */
        boolean isEnabled() {
            return this.enabled != null ? this.enabled : this.bundle != null;
        }
    }

    record Sentinel(@Nullable String master, @Nullable List<String> nodes, @Nullable String username,
            @Nullable String password) {
    }

    record Cluster(@Nullable List<String> nodes) {
    }
}
