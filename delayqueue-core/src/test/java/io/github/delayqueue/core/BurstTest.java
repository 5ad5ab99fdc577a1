package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;
import io.github.delayqueue.testing.TestRedis;

/** 100,000 messages due at the same instant, two competing consumer instances, each message once. */
@ExtendWith(RedisExtension.class)
class BurstTest {

    private static final int COUNT = 100_000;

    @Test
    void everyMessageDeliveredExactlyOnceAcrossTwoConsumers(RedisContext redis) {
        String queue = "burst";
        ClientOptions options = ClientOptions.builder().keyPrefix(redis.prefix()).build();
        DelayQueueClient producer = DelayQueueClient.create(redis.redisson(), options);
        Instant due = producer.stats(queue).serverTime().plusSeconds(3);
        for (int batch = 0; batch < COUNT / 10_000; batch++) {
            List<SendRequest> requests = new ArrayList<>(10_000);
            for (int i = 0; i < 10_000; i++) {
                int n = batch * 10_000 + i;
                requests.add(SendRequest.at("payload-" + n, due, SendOptions.id("msg-" + n)));
            }
            producer.sendAll(queue, requests);
        }
        assertThat(producer.stats(queue).pending()).isEqualTo(COUNT);

        Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
        AtomicInteger[] perConsumer = {new AtomicInteger(), new AtomicInteger()};
        RedissonClient secondRedisson = TestRedis.newClient();
        List<DelayQueueConsumer> consumers = new ArrayList<>();
        try {
            DelayQueueClient[] instances = {producer, DelayQueueClient.create(secondRedisson, options)};
            for (int c = 0; c < 2; c++) {
                AtomicInteger mine = perConsumer[c];
                DelayQueueConsumer consumer = instances[c].newConsumer(queue, String.class, (payload, context) -> {
                    deliveries.computeIfAbsent(context.id(), k -> new AtomicInteger()).incrementAndGet();
                    mine.incrementAndGet();
                }, ConsumerOptions.builder().concurrency(32).batchSize(200).build());
                consumers.add(consumer);
                consumer.start();
            }

            await().atMost(Duration.ofSeconds(90)).until(() -> deliveries.size() == COUNT);
            await().atMost(Duration.ofSeconds(10)).until(() -> producer.stats(queue).inFlight() == 0);
        } finally {
            consumers.forEach(DelayQueueConsumer::stop);
            secondRedisson.shutdown();
        }
        assertThat(deliveries.values()).allMatch(n -> n.get() == 1);
        assertThat(perConsumer[0].get() + perConsumer[1].get()).isEqualTo(COUNT);
        assertThat(perConsumer[0].get()).as("first consumer took part").isPositive();
        assertThat(perConsumer[1].get()).as("second consumer took part").isPositive();
        QueueStats stats = producer.stats(queue);
        assertThat(stats.pending()).isZero();
        assertThat(stats.dead()).isZero();
    }
}
