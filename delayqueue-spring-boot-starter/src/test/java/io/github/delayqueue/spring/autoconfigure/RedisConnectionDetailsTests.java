package io.github.delayqueue.spring.autoconfigure;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisWrongPasswordException;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.mockito.Mockito.mock;

/**
 * How the starter's own client finds Redis: Boot's connection details when there are some (as
 * {@code @ServiceConnection} and Docker Compose provide them), else {@code spring.data.redis.*}; SSL
 * bundles; Config customizers. Connections go to the real (embedded) test Redis.
 */
class RedisConnectionDetailsTests {

    /** Nothing listens here: a client that connects did not take these properties. */
    private static final String[] CLOSED_PORT = { "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=1",
            "spring.data.redis.timeout=2s", "spring.data.redis.connect-timeout=500ms" };

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class))
            .withPropertyValues(CLOSED_PORT);

    @Test
    void anApplicationConnectionDetailsBeanWinsOverSpringDataRedisProperties() {
        this.runner.withUserConfiguration(TestRedisDetails.class).run(context -> {
            assertThat(context).hasNotFailed().hasBean("delayQueueRedissonClient");
            assertRoundTrip(context.getBean(RedissonClient.class));
        });
    }

    @Test
    void bootsOwnConnectionDetailsFromSpringDataRedisAreUsed() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DelayQueueAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.url=" + TestRedis.url())
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(DataRedisConnectionDetails.class);
                    assertRoundTrip(context.getBean(RedissonClient.class));
                });
    }

    @Test
    void withoutSpringBootDataRedisTheStarterBindsTheProperties() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader("org.springframework.boot.data.redis"))
                .withPropertyValues("spring.data.redis.url=" + TestRedis.url())
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(RedissonConfigSource.class);
                    assertRoundTrip(context.getBean(RedissonClient.class));
                });
    }

    @Test
    void customizersRunInOrderOnTheConfigTheClientIsBuiltFrom() {
        this.runner.withUserConfiguration(TestRedisDetails.class, Customizers.class).run(context -> {
            RedissonClient redisson = context.getBean(RedissonClient.class);
            assertThat(redisson.getConfig().getThreads()).isEqualTo(8); // 7 by the first, +1 by the second
            assertThat(redisson.getConfig().getNettyThreads()).isEqualTo(3);
            assertRoundTrip(redisson);
        });
    }

    @Test
    void customizersAreNotCalledForTheApplicationsOwnClient() {
        List<Object> calls = new ArrayList<>();
        this.runner.withBean(RedissonClient.class, () -> mock(RedissonClient.class))
                .withBean(DelayQueueRedissonConfigCustomizer.class, () -> calls::add)
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean("delayQueueRedissonClient")
                            .doesNotHaveBean(RedissonConfigSource.class);
                    assertThat(calls).isEmpty();
                });
    }

    @Test
    void anUnknownSslBundleFailsStartupNamingIt() {
        this.runner.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.ssl.bundle=no-such-bundle")
                .run(context -> assertThat(context).getFailure().rootCause().hasMessageContaining("'no-such-bundle'"));
    }

    @Test
    void credentialsFromConnectionDetailsNeverShowInExceptionText() {
        this.runner.withBean(DataRedisConnectionDetails.class, () -> details("details-user", "s3cret-from-details"))
                .run(context -> {
                    Throwable failure = catchThrowable(
                            () -> context.getBean(RedissonClient.class).getBucket(TestRedis.uniquePrefix()).get());
                    assertThat(failure).hasRootCauseInstanceOf(RedisWrongPasswordException.class); // AUTH was sent
                    for (Throwable t = failure; t != null; t = t.getCause()) {
                        assertThat(String.valueOf(t.getMessage())).doesNotContain("s3cret-from-details");
                        assertThat(t.toString()).doesNotContain("s3cret-from-details");
                    }
                });
    }

    private static void assertRoundTrip(RedissonClient redisson) {
        String key = TestRedis.uniquePrefix() + "conn";
        redisson.getBucket(key).set("reached");
        assertThat(redisson.getBucket(key).get()).isEqualTo("reached");
        redisson.getBucket(key).delete();
    }

    private static DataRedisConnectionDetails details(String username, String password) {
        URI uri = URI.create(TestRedis.url());
        return new DataRedisConnectionDetails() {
            @Override
            public Standalone getStandalone() {
                return Standalone.of(uri.getHost(), uri.getPort());
            }

            @Override
            public String getUsername() {
                return username;
            }

            @Override
            public String getPassword() {
                return password;
            }
        };
    }

    @Configuration(proxyBeanMethods = false)
    static class TestRedisDetails {

        @Bean
        DataRedisConnectionDetails testRedisConnectionDetails() {
            URI uri = URI.create(TestRedis.url());
            return new DataRedisConnectionDetails() {
                @Override
                public Standalone getStandalone() {
                    return Standalone.of(uri.getHost(), uri.getPort());
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Customizers {

        @Bean
        @Order(2)
        DelayQueueRedissonConfigCustomizer second() {
            return config -> config.setThreads(config.getThreads() + 1);
        }

        @Bean
        @Order(1)
        DelayQueueRedissonConfigCustomizer first() {
            return config -> config.setThreads(7).setNettyThreads(3);
        }
    }
}
