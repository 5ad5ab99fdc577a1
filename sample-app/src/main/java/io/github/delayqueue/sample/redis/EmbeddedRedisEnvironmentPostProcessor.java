package io.github.delayqueue.sample.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Lets the sample run on a machine with nothing but Java: when no Redis is configured
 * ({@code spring.data.redis.host}, {@code .url}, {@code .sentinel.nodes} and {@code .cluster.nodes}
 * all unset), starts the {@code redis-server} binary bundled in the {@code embedded-redis} artifact
 * on a free port and points {@code spring.data.redis.host/port} at it. {@link EmbeddedRedisLifecycle}
 * stops it after the delay-queue consumers. The log says which Redis the application uses.
 *
 * <p>The environment variable {@code DELAYQUEUE_REDIS_URL}, which the project's tests honour, also
 * counts as configured. Sample code only: a real application configures its Redis.
 */
public class EmbeddedRedisEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    static final String PORT_PROPERTY = "sample.embedded-redis.port";

    private final Log log;

    public EmbeddedRedisEnvironmentPostProcessor(DeferredLogFactory logFactory) {
        this.log = logFactory.getLog(EmbeddedRedisEnvironmentPostProcessor.class);
    }

    @Override
    public int getOrder() {
        // after application.yml and the command line have been read
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        String url = environment.getProperty("spring.data.redis.url");
        String host = environment.getProperty("spring.data.redis.host");
        String external = environment.getProperty("DELAYQUEUE_REDIS_URL");
        if (url != null || host != null || environment.containsProperty("spring.data.redis.sentinel.nodes")
                || environment.containsProperty("spring.data.redis.cluster.nodes")) {
            this.log.info("Using the Redis configured in spring.data.redis.* ("
                    + (url != null ? redact(url) : host + ":" + environment.getProperty("spring.data.redis.port", "6379"))
                    + ")");
            return;
        }
        if (external != null && !external.isBlank()) {
            this.log.info("Using the Redis named by DELAYQUEUE_REDIS_URL (" + redact(external) + ")");
            add(environment, Map.of("spring.data.redis.url", external));
            return;
        }
        int port = freePort();
        EmbeddedRedisLifecycle.start(port);
        // stopped by EmbeddedRedisLifecycle on close, or here if the application fails to start
        application.addListeners((ApplicationListener<ApplicationFailedEvent>) event -> EmbeddedRedisLifecycle.stop(port));
        this.log.info("No spring.data.redis.host configured: started an embedded Redis on 127.0.0.1:"
                + port + " (data is lost when the application stops; set spring.data.redis.host to use a real one)");
        add(environment, Map.of("spring.data.redis.host", "127.0.0.1", "spring.data.redis.port", port,
                PORT_PROPERTY, port));
    }

    private static void add(ConfigurableEnvironment environment, Map<String, Object> properties) {
        environment.getPropertySources().addLast(new MapPropertySource("sampleEmbeddedRedis", properties));
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

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port for the embedded Redis", e);
        }
    }
}
