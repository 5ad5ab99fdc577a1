package io.github.delayqueue.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.redisson.api.RedissonClient;

/**
 * Gives a test class a real Redis ({@link TestRedis}): a {@link RedissonClient} and a key prefix of
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
        return classContext.getStore(NS).getOrComputeIfAbsent(RedisContext.class,
                k -> new RedisContext(TestRedis.newClient(), TestRedis.uniquePrefix(), TestRedis.url()),
                RedisContext.class);
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
