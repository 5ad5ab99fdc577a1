package io.github.delayqueue.spring.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns when Redis may evict keys: with any {@code maxmemory-policy} but {@code noeviction}, a Redis
 * under memory pressure silently deletes pending messages. Runs once, on its own daemon thread
 * (Redisson connects synchronously on first use, which would stall startup while Redis is down), and
 * is best effort: where {@code CONFIG GET} is not allowed (managed Redis, ACLs) or Redis is down, it
 * logs at DEBUG and nothing else happens.
 */
final class RedisEvictionCheck {

    static final String SAFE_POLICY = "noeviction";

    private static final Logger log = LoggerFactory.getLogger(RedisEvictionCheck.class);

    private RedisEvictionCheck() {
    }

    /** Starts the check; the future completes (never exceptionally) with the policies read, one per master. */
    static CompletableFuture<List<String>> run(RedissonClient redisson) {
        CompletableFuture<List<String>> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> result.complete(check(redisson)), "delayqueue-redis-check");
        thread.setDaemon(true);
        thread.start();
        return result;
    }

    /** Reads the policies now, on the caller's thread; never throws. */
    static List<String> check(RedissonClient redisson) {
        List<String> policies = new ArrayList<>();
        try {
            for (RedisNode node : masters(redisson)) {
                Map<String, String> values = node.getConfig("maxmemory-policy");
                String policy = values == null ? null : values.get("maxmemory-policy");
                if (policy != null) {
                    policies.add(policy);
                    warnIfEvicting(policy);
                }
            }
        } catch (RuntimeException e) {
            log.debug("Could not read Redis maxmemory-policy (CONFIG GET not allowed, or Redis unavailable); make sure "
                    + "it is noeviction: {}", e.toString());
        }
        return policies;
    }

    /** Logs the warning for an evicting policy; returns whether it did. */
    static boolean warnIfEvicting(@Nullable String policy) {
        if (policy == null || SAFE_POLICY.equalsIgnoreCase(policy)) {
            return false;
        }
        log.warn("Redis maxmemory-policy is '{}': under memory pressure Redis will evict keys and delay queue messages "
                + "will be LOST. Set 'maxmemory-policy noeviction' on the Redis that holds the queues (and enable AOF "
                + "for durability across restarts).", policy);
        return true;
    }

    private static List<? extends RedisNode> masters(RedissonClient redisson) {
        Config config = redisson.getConfig();
        if (config.isClusterConfig()) {
            return List.copyOf(redisson.getRedisNodes(RedisNodes.CLUSTER).getMasters());
        }
        if (config.isSentinelConfig()) {
            return List.of(redisson.getRedisNodes(RedisNodes.SENTINEL_MASTER_SLAVE).getMaster());
        }
        if (config.isSingleConfig()) {
            return List.of(redisson.getRedisNodes(RedisNodes.SINGLE).getInstance());
        }
        return List.of(redisson.getRedisNodes(RedisNodes.MASTER_SLAVE).getMaster());
    }
}
