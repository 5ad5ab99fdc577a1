package io.github.delayqueue.sample.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogs;
import org.springframework.mock.env.MockEnvironment;

/** The embedded Redis starts only when the application configures none. */
class EmbeddedRedisEnvironmentPostProcessorTest {

    private final EmbeddedRedisEnvironmentPostProcessor processor = new EmbeddedRedisEnvironmentPostProcessor(new DeferredLogs());

    @Test
    void configuredHostIsUsedAsIs() {
        MockEnvironment environment = new MockEnvironment().withProperty("spring.data.redis.host", "redis.internal");
        this.processor.postProcessEnvironment(environment, new SpringApplication());
        assertThat(environment.getProperty("spring.data.redis.host")).isEqualTo("redis.internal");
        assertThat(environment.containsProperty(EmbeddedRedisEnvironmentPostProcessor.PORT_PROPERTY)).isFalse();
    }

    @Test
    void configuredUrlIsUsedAsIs() {
        MockEnvironment environment = new MockEnvironment().withProperty("spring.data.redis.url", "redis://u:secret@r:6380");
        this.processor.postProcessEnvironment(environment, new SpringApplication());
        assertThat(environment.containsProperty("spring.data.redis.host")).isFalse();
        assertThat(environment.containsProperty(EmbeddedRedisEnvironmentPostProcessor.PORT_PROPERTY)).isFalse();
    }

    @Test
    void delayQueueRedisUrlBecomesTheSpringUrl() {
        MockEnvironment environment = new MockEnvironment().withProperty("DELAYQUEUE_REDIS_URL", "redis://127.0.0.1:6390");
        this.processor.postProcessEnvironment(environment, new SpringApplication());
        assertThat(environment.getProperty("spring.data.redis.url")).isEqualTo("redis://127.0.0.1:6390");
        assertThat(environment.containsProperty(EmbeddedRedisEnvironmentPostProcessor.PORT_PROPERTY)).isFalse();
    }

    @Test
    void passwordsAreNotLogged() {
        assertThat(EmbeddedRedisEnvironmentPostProcessor.redact("rediss://app:s3cret@redis:6380/2"))
                .isEqualTo("rediss://app:****@redis:6380/2");
        assertThat(EmbeddedRedisEnvironmentPostProcessor.redact("redis://redis:6379")).isEqualTo("redis://redis:6379");
        assertThat(EmbeddedRedisEnvironmentPostProcessor.redact("redis://s3cret@redis:6379")).isEqualTo("redis://****@redis:6379");
        assertThat(EmbeddedRedisEnvironmentPostProcessor.redact("redis://:s3cret@redis")).isEqualTo("redis://:****@redis");
    }
}
