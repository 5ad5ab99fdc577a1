package io.github.delayqueue.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;
import org.redisson.api.RedissonClient;

/**
 * Gives a test class a real Redis ({@link TestRedis}; a cluster or Sentinel set-up with {@link OnTopology}): a {@link RedissonClient} and a key prefix of
 * its own, both injectable as parameters ({@link RedisContext}). Keys under the prefix are deleted
 * after the class.
 */
public final class RedisExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(RedisExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        redis(context);
    }

    /** One context per test class, created on first use (a per-class test instance needs it in its constructor). */
    private static RedisContext redis(ExtensionContext context) {
        ExtensionContext classContext = context;
        while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
            classContext = classContext.getParent().get();
        }
        OnTopology topology = AnnotationSupport.findAnnotation(classContext.getRequiredTestClass(), OnTopology.class)
                .orElse(null);
        return classContext.getStore(NS).getOrComputeIfAbsent(RedisContext.class, k -> {
            if (topology == null) {
                return new RedisContext(TestRedis.newClient(), TestRedis.uniquePrefix(), TestRedis.url());
            }
            return switch (topology.value()) {
                case CLUSTER -> new RedisContext(TestCluster.shared().newClient(), TestRedis.uniquePrefix(),
                        "redis://" + TestCluster.shared().nodes().get(0));
                case SENTINEL -> new RedisContext(TestSentinel.shared().newClient(), TestRedis.uniquePrefix(),
                        "redis://" + TestSentinel.shared().sentinels().get(0));
            };
        }, RedisContext.class);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        RedisContext redis = context.getStore(NS).remove(RedisContext.class, RedisContext.class);
        if (redis != null) {
            try {
                redis.redisson().getKeys().unlinkByPattern(redis.prefix() + ":*");
            } finally {
                redis.redisson().shutdown();
            }
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == RedisContext.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return redis(context);
    }
}
