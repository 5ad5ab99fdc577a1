package io.github.delayqueue.test;

import java.security.SecureRandom;
import java.util.Map;

import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

import io.github.delayqueue.core.PayloadCodec;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueConsumerRegistry;

/**
 * Prepares each test context for delayed jobs:
 * <ul>
 * <li>unless the test or the application sets {@code delayqueue.key-prefix}, gives the context a random one
 * ({@code dqtest-} and 10 letters or digits), so test contexts sharing one Redis, parallel test classes included,
 * never see each other's messages, and deletes that prefix's keys when the context closes
 * ({@link KeyPrefixCleanup});</li>
 * <li>registers a {@link DelayQueueTester} bean, created when it is first injected, whose {@code reset()} deletes
 * only what the context owns ({@link ResetScope}).</li>
 * </ul>
 * All instances are equal, so it does not split Spring's context cache: two test classes with the same
 * configuration share one context and so one key prefix.
 */
final class DelayQueueTestContextCustomizer implements ContextCustomizer {

    static final String KEY_PREFIX = "delayqueue.key-prefix";

    static final String TESTER_BEAN = "delayQueueTester";

    /** The bean by which a context holds the embedded Redis it started (see the {@code redis} package). */
    static final String EMBEDDED_REDIS_BEAN = "delayQueueEmbeddedRedis";

    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

    private static final SecureRandom random = new SecureRandom();

    @Override
    public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
        if (!(context instanceof BeanDefinitionRegistry registry)) {
            return; // a context whose bean factory exists only after refresh: not one of Spring Boot's or Spring's test contexts
        }
        ConfigurableEnvironment environment = context.getEnvironment();
        if (!environment.containsProperty(KEY_PREFIX)) {
            String prefix = randomPrefix();
            // last: any other source that sets one later (a @DynamicPropertySource, say) wins
            environment.getPropertySources().addLast(new MapPropertySource("delayQueueTestKeyPrefix",
                    Map.of(KEY_PREFIX, prefix)));
            context.getBeanFactory().registerSingleton(KeyPrefixCleanup.BEAN,
                    new KeyPrefixCleanup(prefix, context.getBeanFactory()));
        }
        if (!registry.containsBeanDefinition(TESTER_BEAN)) {
            BeanFactory beanFactory = context.getBeanFactory();
            RootBeanDefinition tester = new RootBeanDefinition(DelayQueueTester.class, () -> tester(beanFactory));
            tester.setLazyInit(true);
            registry.registerBeanDefinition(TESTER_BEAN, tester);
        }
    }

    private static DelayQueueTester tester(BeanFactory beanFactory) {
        DelayQueueAdmin admin = beanFactory.getBeanProvider(DelayQueueAdmin.class).getIfUnique();
        DelayQueueConsumerRegistry registry = beanFactory.getBeanProvider(DelayQueueConsumerRegistry.class).getIfUnique();
        PayloadCodec codec = beanFactory.getBeanProvider(PayloadCodec.class).getIfUnique();
        if (admin == null || registry == null || codec == null) {
            throw new IllegalStateException("DelayQueueTester needs delayqueue's auto-configuration in the test "
                    + "context: use @SpringBootTest (or a test slice that includes DelayQueueAutoConfiguration)");
        }
        return new DelayQueueTester(admin, registry, codec, DelayQueueTester.DEFAULT_TIMEOUT, resetScope(beanFactory),
                () -> beanFactory.getBeanProvider(RedissonClient.class).getIfUnique());
    }

    /** What {@link DelayQueueTester#reset()} may delete: known once the context is refreshed (embedded Redis or not). */
    private static ResetScope resetScope(BeanFactory beanFactory) {
        String generated = beanFactory.containsBean(KeyPrefixCleanup.BEAN)
                ? beanFactory.getBean(KeyPrefixCleanup.BEAN, KeyPrefixCleanup.class).prefix() : null;
        boolean optedIn = beanFactory.getBean(Environment.class).getProperty(ResetScope.OPT_IN, Boolean.class, false);
        return new ResetScope(generated, beanFactory.containsBean(EMBEDDED_REDIS_BEAN), optedIn);
    }

    static String randomPrefix() {
        StringBuilder prefix = new StringBuilder("dqtest-");
        for (int i = 0; i < 10; i++) {
            prefix.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return prefix.toString();
    }

    @Override
    public boolean equals(Object other) {
        return other != null && other.getClass() == getClass();
    }

    @Override
    public int hashCode() {
        return getClass().hashCode();
    }
}
