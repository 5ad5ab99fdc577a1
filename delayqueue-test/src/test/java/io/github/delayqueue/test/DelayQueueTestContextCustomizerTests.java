package io.github.delayqueue.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.test.app.PaymentTimeout;
import io.github.delayqueue.test.app.TestApplication;
import io.github.delayqueue.test.app.TestQueues;
import io.github.delayqueue.testing.TestRedis;

/**
 * The per-context key prefix: generated unless set, its keys deleted when the context closes, a set one left
 * alone. The contexts here run on the project's test Redis ({@link TestRedis}), which outlives them, so what is
 * left in it can be checked.
 */
class DelayQueueTestContextCustomizerTests {

    @Test
    void aGeneratedPrefixKeepsTheContextsKeysApartAndTheyAreDeletedWhenItCloses() {
        RedissonClient redis = TestRedis.newClient();
        try {
            String prefix;
            try (ConfigurableApplicationContext context = start()) {
                prefix = context.getEnvironment().getProperty("delayqueue.key-prefix");
                assertThat(prefix).matches("dqtest-[a-z0-9]{10}");
                context.getBean(DelayQueueTemplate.class).send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(1),
                        Duration.ofHours(1));
                assertThat(redis.getKeys().getKeysStreamByPattern(prefix + ":*")).isNotEmpty();
                assertThat(context.getBean(DelayQueueTester.class).pending(TestQueues.PAYMENT_TIMEOUT)).hasSize(1);
            }
            assertThat(redis.getKeys().getKeysStreamByPattern(prefix + ":*")).isEmpty();
        } finally {
            redis.shutdown();
        }
    }

    @Test
    void aPrefixTheTestSetsIsKeptAndItsKeysAreNotDeleted() {
        String prefix = TestRedis.uniquePrefix();
        RedissonClient redis = TestRedis.newClient();
        try {
            try (ConfigurableApplicationContext context = start("--delayqueue.key-prefix=" + prefix)) {
                assertThat(context.getEnvironment().getProperty("delayqueue.key-prefix")).isEqualTo(prefix);
                assertThat(context.containsBean(KeyPrefixCleanup.BEAN)).isFalse();
                context.getBean(DelayQueueTemplate.class).send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(1),
                        Duration.ofHours(1));
            }
            assertThat(redis.getKeys().getKeysStreamByPattern(prefix + ":*")).isNotEmpty();
        } finally {
            redis.shutdown();
            TestRedis.deleteKeys(prefix);
        }
    }

    @Test
    void customizersAreEqualSoTheContextCacheIsNotSplit() {
        DelayQueueTestContextCustomizerFactory factory = new DelayQueueTestContextCustomizerFactory();
        assertThat(factory.createContextCustomizer(getClass(), java.util.List.of()))
                .isEqualTo(factory.createContextCustomizer(String.class, java.util.List.of()))
                .hasSameHashCodeAs(factory.createContextCustomizer(String.class, java.util.List.of()));
    }

    /** The application as a test context would start it, with the customizer applied, on the project's test Redis. */
    private static ConfigurableApplicationContext start(String... args) {
        SpringApplication application = new SpringApplication(TestApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.addInitializers(context -> new DelayQueueTestContextCustomizer().customizeContext(context, null));
        String[] all = new String[args.length + 1];
        all[0] = "--spring.data.redis.url=" + TestRedis.url();
        System.arraycopy(args, 0, all, 1, args.length);
        return application.run(all);
    }
}
