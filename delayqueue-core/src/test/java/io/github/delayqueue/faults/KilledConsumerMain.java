package io.github.delayqueue.faults;

import java.time.Duration;

import org.redisson.api.RSet;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;

/**
 * The consumer that {@link ConsumerKilledTest} runs in a JVM of its own and SIGKILLs. Arguments: Redis URL,
 * key prefix, queue, visibility timeout in ms. Each handled id is added to the Redis set
 * {@code <prefix>:faults:child-handled} before the handler returns (the handler's side effect); once
 * the consumer runs it sets {@code <prefix>:faults:child-ready}. Exits by itself after 120 s in case the
 * test that started it died.
 */
public final class KilledConsumerMain {

    private KilledConsumerMain() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String prefix = args[1];
        String queue = args[2];
        long visibilityMs = Long.parseLong(args[3]);
        FaultSupport.haltAfter(120);

        RedissonClient redisson = FaultSupport.client(url, 5_000, 3, 200, false);
        RSet<String> handled = redisson.getSet(prefix + ":faults:child-handled", StringCodec.INSTANCE);
        DelayQueueClient client = DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix(prefix).build());
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            handled.add(context.id());
            Thread.sleep(2); // some work after the side effect: a kill can land between the two
        }, ConsumerOptions.builder().concurrency(16).batchSize(50).visibilityTimeout(Duration.ofMillis(visibilityMs))
                .maxPollInterval(Duration.ofMillis(500)).build());
        consumer.start();
        redisson.getBucket(prefix + ":faults:child-ready", StringCodec.INSTANCE).set("1");
        System.out.println("child consumer running, pid " + ProcessHandle.current().pid());
        Thread.currentThread().join(); // until killed
    }
}
