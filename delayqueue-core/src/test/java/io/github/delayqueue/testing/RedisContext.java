package io.github.delayqueue.testing;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.DelayQueueClient;
import org.redisson.api.RedissonClient;

/**
 * What {@link RedisExtension} gives a test class.
 *
 * @param redisson a client the extension shuts down after the class
 * @param prefix   a key prefix unique to the class
 * @param url      the server's URL, for tests that need a second client (on a cluster or Sentinel set-up, see
 *                 {@link OnTopology}, the first seed node or sentinel: not for a single-server client)
 */
public record RedisContext(RedissonClient redisson, String prefix, String url) {

    /** A client with default options on {@link #redisson()}, its keys under {@link #prefix()}. */
    public DelayQueueClient client() {
        return DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix(prefix).build());
    }
}
