package io.github.delayqueue.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;

import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.test.app.PaymentTimeout;
import io.github.delayqueue.test.app.Recorder;
import io.github.delayqueue.test.app.TestApplication;
import io.github.delayqueue.test.app.TestQueues;
import io.github.delayqueue.testing.TestRedis;

/**
 * With a {@link DataRedisConnectionDetails} bean, as Testcontainers' {@code @ServiceConnection} registers one for a
 * Redis container, that Redis is used: no embedded Redis is started, and the tester works on it. (The project's
 * test Redis stands in for the container: this machine may have no Docker.)
 */
@SpringBootTest(classes = { TestApplication.class, ConnectionDetailsTests.ContainerConnection.class })
class ConnectionDetailsTests {

    @Autowired
    ApplicationContext context;

    @Autowired
    RedissonClient redisson;

    @Autowired
    DelayQueueTester tester;

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    Recorder recorder;

    @Test
    void theConnectionDetailsRedisIsUsedAndNoEmbeddedOneIsStarted() {
        assertThat(this.context.containsBean("delayQueueEmbeddedRedis")).isFalse();
        assertThat(this.context.getEnvironment().containsProperty("spring.data.redis.port")).isFalse();
        URI expected = URI.create(TestRedis.url());
        assertThat(this.redisson.getConfig().useSingleServer().getAddress()).endsWith(":" + expected.getPort());

        String id = this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(8), Duration.ofHours(1));
        this.tester.run(TestQueues.PAYMENT_TIMEOUT, id);
        assertThat(this.recorder.handled()).containsExactly(new PaymentTimeout(8));
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class ContainerConnection {

        @Bean
        DataRedisConnectionDetails redisContainerConnectionDetails() {
            URI uri = URI.create(TestRedis.url());
            return new DataRedisConnectionDetails() {
                @Override
                public Standalone getStandalone() {
                    return Standalone.of(uri.getHost(), uri.getPort());
                }
            };
        }
    }
}
