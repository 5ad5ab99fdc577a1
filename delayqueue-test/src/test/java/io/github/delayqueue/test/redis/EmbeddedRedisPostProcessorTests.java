package io.github.delayqueue.test.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.util.ClassUtils;

/**
 * The embedded Redis starts only when the application configures none, by properties or by beans; it is shared
 * and given back once per context. Isolated: other test classes would change the count of its users meanwhile.
 */
@Isolated
class EmbeddedRedisPostProcessorTests {

    private final MockEnvironment environment = new MockEnvironment();

    private final DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();

    private final EmbeddedRedisPostProcessor processor = new EmbeddedRedisPostProcessor(this.environment);

    @Test
    void configuredHostIsUsedAsIs() {
        this.environment.setProperty("spring.data.redis.host", "redis.internal");
        this.processor.postProcessBeanFactory(this.beanFactory);
        assertThat(this.environment.getProperty("spring.data.redis.host")).isEqualTo("redis.internal");
        assertNothingStarted();
    }

    @Test
    void configuredUrlSentinelOrClusterIsUsedAsIs() {
        this.environment.setProperty("spring.data.redis.url", "redis://u:secret@r:6380");
        assertThat(this.processor.configuredRedis(this.beanFactory)).isEqualTo("the Redis of spring.data.redis.url (redis://u:****@r:6380)");
        MockEnvironment sentinel = new MockEnvironment().withProperty("spring.data.redis.sentinel.nodes", "s1:26379");
        assertThat(new EmbeddedRedisPostProcessor(sentinel).configuredRedis(this.beanFactory)).contains("Sentinel");
        MockEnvironment cluster = new MockEnvironment().withProperty("spring.data.redis.cluster.nodes", "c1:6379");
        assertThat(new EmbeddedRedisPostProcessor(cluster).configuredRedis(this.beanFactory)).contains("Cluster");
        this.processor.postProcessBeanFactory(this.beanFactory);
        assertThat(this.environment.containsProperty("spring.data.redis.host")).isFalse();
        assertNothingStarted();
    }

    @Test
    void delayQueueRedisUrlBecomesTheSpringUrl() {
        this.environment.setProperty("DELAYQUEUE_REDIS_URL", "redis://127.0.0.1:6390");
        this.processor.postProcessBeanFactory(this.beanFactory);
        assertThat(this.environment.getProperty("spring.data.redis.url")).isEqualTo("redis://127.0.0.1:6390");
        assertNothingStarted();
    }

    @Test
    void connectionDetailsBeanAsServiceConnectionRegistersItIsUsed() {
        this.beanFactory.registerBeanDefinition("redisContainerConnectionDetails",
                new RootBeanDefinition(ContainerLikeDetails.class));
        assertThat(this.processor.configuredRedis(this.beanFactory))
                .isEqualTo("the Redis of the DataRedisConnectionDetails bean 'redisContainerConnectionDetails' "
                        + "(for example from @ServiceConnection)");
        this.processor.postProcessBeanFactory(this.beanFactory);
        assertNothingStarted();
    }

    @Test
    void applicationsOwnRedissonClientIsUsed() {
        this.beanFactory.registerBeanDefinition("myRedisson", new RootBeanDefinition(RedissonClient.class));
        assertThat(this.processor.configuredRedis(this.beanFactory)).isEqualTo("the application's RedissonClient bean 'myRedisson'");
    }

    @Test
    void withNothingConfiguredTheSharedEmbeddedRedisServesTheContextUntilItCloses() throws Exception {
        // what Boot registers from spring.data.redis.* even when none is set, and the starter's own client: neither counts
        this.beanFactory.registerBeanDefinition("redisConnectionDetails", new RootBeanDefinition(ClassUtils.forName(
                "org.springframework.boot.data.redis.autoconfigure.PropertiesDataRedisConnectionDetails", null)));
        this.beanFactory.registerBeanDefinition("delayQueueRedissonClient", new RootBeanDefinition(RedissonClient.class));
        int usersBefore = EmbeddedRedis.users();

        this.processor.postProcessBeanFactory(this.beanFactory);

        int port = this.environment.getProperty("spring.data.redis.port", Integer.class);
        assertThat(this.environment.getProperty("spring.data.redis.host")).isEqualTo("127.0.0.1");
        assertThat(ping(port)).isEqualTo("+PONG");
        assertThat(EmbeddedRedis.users()).isEqualTo(usersBefore + 1);
        EmbeddedRedisLease lease = this.beanFactory.getBean(EmbeddedRedisPostProcessor.LEASE_BEAN, EmbeddedRedisLease.class);
        assertThat(lease.port()).isEqualTo(port);
        assertThat(lease.getPhase()).isEqualTo(Integer.MIN_VALUE);

        lease.stop();               // the context closes
        this.beanFactory.destroySingletons();    // then destroys its beans: given back once only
        assertThat(EmbeddedRedis.users()).isEqualTo(usersBefore);
        if (usersBefore == 0) {
            // it had no other user (this class ran alone): the server stopped
            assertThatExceptionOfType(IOException.class).isThrownBy(() -> ping(port));
        }
    }

    @Test
    void passwordsAreNotLogged() {
        assertThat(EmbeddedRedisPostProcessor.redact("rediss://app:s3cret@redis:6380/2")).isEqualTo("rediss://app:****@redis:6380/2");
        assertThat(EmbeddedRedisPostProcessor.redact("redis://redis:6379")).isEqualTo("redis://redis:6379");
        assertThat(EmbeddedRedisPostProcessor.redact("redis://s3cret@redis:6379")).isEqualTo("redis://****@redis:6379");
        assertThat(EmbeddedRedisPostProcessor.redact("redis://:s3cret@redis")).isEqualTo("redis://:****@redis");
    }

    private void assertNothingStarted() {
        assertThat(this.beanFactory.containsSingleton(EmbeddedRedisPostProcessor.LEASE_BEAN)).isFalse();
        assertThat(this.environment.containsProperty("spring.data.redis.port")).isFalse();
    }

    private static String ping(int port) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII)).readLine();
        }
    }

    /** Like the connection details {@code @ServiceConnection} registers for a Redis container. */
    static class ContainerLikeDetails implements DataRedisConnectionDetails {

        @Override
        public Standalone getStandalone() {
            return Standalone.of("localhost", 6379);
        }
    }
}
