package io.github.delayqueue.test.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.ClassUtils;

/**
 * Starts (or joins) the {@link EmbeddedRedis} when the application configures no Redis, and points
 * {@code spring.data.redis.host} and {@code .port} at it. It runs once the bean definitions are known and before
 * any bean is created, so it sees both kinds of configuration:
 * <ul>
 * <li>properties: {@code spring.data.redis.url}, {@code .host}, {@code .sentinel.nodes} or {@code .cluster.nodes};
 * and the environment variable (or system property) {@code DELAYQUEUE_REDIS_URL}, which the project's own tests
 * honour and which becomes {@code spring.data.redis.url};</li>
 * <li>beans: a {@code DataRedisConnectionDetails} other than the one Spring Boot derives from the properties (what
 * Testcontainers' {@code @ServiceConnection} and Docker Compose register), or a {@link RedissonClient} of the
 * application's own (the starter then uses it).</li>
 * </ul>
 * The log says which Redis the application uses.
 */
final class EmbeddedRedisPostProcessor implements BeanFactoryPostProcessor, Ordered {

    /** The bean of the context's {@link EmbeddedRedisLease}; DelayQueueTester's reset() looks for it by this name. */
    static final String LEASE_BEAN = "delayQueueEmbeddedRedis";

    static final String EXTERNAL_URL = "DELAYQUEUE_REDIS_URL";

    private static final String STARTER_CLIENT_BEAN = "delayQueueRedissonClient";

    private static final String CONNECTION_DETAILS = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";

    private static final String PROPERTIES_CONNECTION_DETAILS =
            "org.springframework.boot.data.redis.autoconfigure.PropertiesDataRedisConnectionDetails";

    private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisPostProcessor.class);

    private final ConfigurableEnvironment environment;

    EmbeddedRedisPostProcessor(ConfigurableEnvironment environment) {
        this.environment = environment;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        String configured = configuredRedis(beanFactory);
        if (configured != null) {
            log.info("Using {}", configured);
            return;
        }
        String external = this.environment.getProperty(EXTERNAL_URL);
        if (external != null && !external.isBlank()) {
            log.info("Using the Redis named by {} ({})", EXTERNAL_URL, redact(external));
            add(Map.of("spring.data.redis.url", external.trim()));
            return;
        }
        int port = EmbeddedRedis.acquire();
        EmbeddedRedisLease lease = new EmbeddedRedisLease(port);
        beanFactory.registerSingleton(LEASE_BEAN, lease);
        if (beanFactory instanceof DefaultSingletonBeanRegistry registry) {
            // given back if the context fails to start, too
            registry.registerDisposableBean(LEASE_BEAN, lease);
        }
        log.info("No Redis configured: using an embedded Redis on 127.0.0.1:{} (its data is lost when it stops; set "
                + "spring.data.redis.host to use a real one)", port);
        add(Map.of("spring.data.redis.host", "127.0.0.1", "spring.data.redis.port", port));
    }

    /** What the application configured as its Redis, for the log, or {@code null} if nothing. */
    @Nullable String configuredRedis(ConfigurableListableBeanFactory beanFactory) {
        List<String> clients = new ArrayList<>(Arrays.asList(beanFactory.getBeanNamesForType(RedissonClient.class, true, false)));
        clients.remove(STARTER_CLIENT_BEAN);
        if (!clients.isEmpty()) {
            return "the application's RedissonClient bean '" + clients.get(0) + "'";
        }
        ClassLoader classLoader = beanFactory.getBeanClassLoader();
        if (ClassUtils.isPresent(CONNECTION_DETAILS, classLoader)) {
            Class<?> detailsType = ClassUtils.resolveClassName(CONNECTION_DETAILS, classLoader);
            for (String name : beanFactory.getBeanNamesForType(detailsType, true, false)) {
                Class<?> type = beanFactory.getType(name, false);
                if (type == null || !PROPERTIES_CONNECTION_DETAILS.equals(type.getName())) {
                    return "the Redis of the DataRedisConnectionDetails bean '" + name
                            + "' (for example from @ServiceConnection)";
                }
            }
        }
        String url = this.environment.getProperty("spring.data.redis.url");
        if (url != null) {
            return "the Redis of spring.data.redis.url (" + redact(url) + ")";
        }
        String host = this.environment.getProperty("spring.data.redis.host");
        if (host != null) {
            return "the Redis of spring.data.redis.host (" + host + ":"
                    + this.environment.getProperty("spring.data.redis.port", "6379") + ")";
        }
        if (this.environment.containsProperty("spring.data.redis.sentinel.nodes")) {
            return "the Redis Sentinel of spring.data.redis.sentinel.nodes";
        }
        if (this.environment.containsProperty("spring.data.redis.cluster.nodes")) {
            return "the Redis Cluster of spring.data.redis.cluster.nodes";
        }
        return null;
    }

    private void add(Map<String, Object> properties) {
        this.environment.getPropertySources().addLast(new MapPropertySource("delayQueueEmbeddedRedis", properties));
    }

    /**
     * Hides the password in {@code redis://user:password@host}, {@code redis://:password@host} and
     * {@code redis://password@host} (a lone user info is the password, as Spring Boot reads it).
     */
    private static final Pattern USER_INFO = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)@");

    static String redact(String url) {
        Matcher matcher = USER_INFO.matcher(url);
        if (!matcher.find()) {
            return url;
        }
        String userInfo = matcher.group(2);
        int colon = userInfo.indexOf(':');
        return matcher.group(1) + (colon < 0 ? "" : userInfo.substring(0, colon + 1)) + "****@"
                + url.substring(matcher.end());
    }
}
