package io.github.delayqueue.testing;

import org.redisson.api.RedissonClient;

/**
 * What {@link RedisExtension} gives a test class.
 *
 * @param redisson a client the extension shuts down after the class
 * @param prefix   a key prefix unique to the class
 * @param url      the server's URL, for tests that need a second client
 */
public record RedisContext(RedissonClient redisson, String prefix, String url) {
}
