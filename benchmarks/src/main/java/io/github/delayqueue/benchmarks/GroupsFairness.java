package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import org.redisson.api.RedissonClient;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.MessageHandler;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;

/**
 * groups-fairness (issue 35, only when named): a big group's burst ({@code groups-big} messages of group A, due first)
 * and two small groups ({@code groups-small} each of B and C, due just after), drained by {@code groups-instances}
 * consumer instances (each its own Redisson client) under the queue's rate limit ({@code groups-queue-rate}, the
 * downstream's capacity). The value is the time from the due time until the last message of B and C is handled:
 * with groups ({@code SendOptions.group}, {@code group-rate-limit} {@code groups-group-rate}) against the same load
 * sent without groups (the second column), where B and C wait behind A's burst. DETAIL has how many of A were handled
 * meanwhile (A keeps its share) and the messages handled twice (0).
 */
final class GroupsFairness {

    private static final String QUEUE = "groups-fairness";

    private GroupsFairness() {
    }

    static Side.Measure measure(Bench bench, int big, int small, RateLimit queueRate, RateLimit groupRate, int instances,
            boolean grouped, long timeoutSeconds) throws Exception {
        String prefix = "bench-groups-" + UUID.randomUUID();
        List<RedissonClient> clients = new ArrayList<>();
        List<DelayQueueConsumer> consumers = new ArrayList<>();
        try {
            RedissonClient producerClient = bench.client();
            clients.add(producerClient);
            DelayQueueClient producer = DelayQueueClient.create(producerClient, ClientOptions.builder().keyPrefix(prefix).build());
            // due once every message is written (at 20,000 sends a second, a slow box's), so the drain starts from them all
            Instant due = producer.stats(QUEUE).serverTime().plusMillis(500 + (big + 2L * small) / 20);
            List<SendRequest> requests = new ArrayList<>();
            for (int i = 0; i < big; i++) {
                requests.add(request("A", i, due, grouped));
            }
            for (int i = 0; i < small; i++) {
                requests.add(request("B", i, due.plusMillis(1), grouped));
                requests.add(request("C", i, due.plusMillis(1), grouped));
            }
            for (int from = 0; from < requests.size(); from += 5_000) {
                producer.sendAll(QUEUE, requests.subList(from, Math.min(requests.size(), from + 5_000)));
            }
            Map<String, Boolean> seen = new ConcurrentHashMap<>();
            LongAdder twice = new LongAdder();
            LongAdder bigHandled = new LongAdder();
            AtomicLong lastSmall = new AtomicLong();
            CountDownLatch smallDone = new CountDownLatch(2 * small);
            MessageHandler<String> handler = (payload, context) -> {
                if (seen.putIfAbsent(context.id(), Boolean.TRUE) != null) {
                    twice.increment();
                } else if (payload.startsWith("A")) {
                    bigHandled.increment();
                } else {
                    lastSmall.accumulateAndGet(System.nanoTime(), Math::max);
                    smallDone.countDown();
                }
            };
            ConsumerOptions.Builder options = ConsumerOptions.builder().concurrency(16).rateLimit(queueRate)
                    .maxPollInterval(Duration.ofSeconds(30));
            if (grouped) {
                options.groupRateLimit(groupRate);
            }
            for (int i = 0; i < instances; i++) {
                RedissonClient client = bench.client();
                clients.add(client);
                DelayQueueConsumer consumer = DelayQueueClient.create(client, ClientOptions.builder().keyPrefix(prefix).build())
                        .newConsumer(QUEUE, String.class, handler, options.build());
                consumers.add(consumer);
                consumer.start();
            }
            long wait = timeoutSeconds + Duration.between(Instant.now(), due).toSeconds();
            if (!smallDone.await(wait, TimeUnit.SECONDS)) {
                return Side.Measure.of(Double.NaN).with("error", "timed out with " + (2 * small - smallDone.getCount())
                        + " of " + 2 * small + " small-group messages handled");
            }
            long bigMeanwhile = bigHandled.sum();
            double seconds = (bench.clock.redisMs(lastSmall.get()) - due.toEpochMilli()) / 1000.0;
            return Side.Measure.of(seconds).with("groups", grouped).with("big", big).with("small_each", small)
                    .with("queue_rate", queueRate).with("group_rate", grouped ? groupRate.toString() : "none")
                    .with("instances", instances).with("big_handled_meanwhile", bigMeanwhile)
                    .with("handled_twice", twice.sum());
        } finally {
            consumers.forEach(DelayQueueConsumer::stop);
            if (!clients.isEmpty()) {
                clients.get(0).getKeys().unlinkByPattern(prefix + ":*");
            }
            clients.forEach(RedissonClient::shutdown);
        }
    }

    private static SendRequest request(String group, int i, Instant due, boolean grouped) {
        SendOptions options = SendOptions.id(group + "-" + i);
        return SendRequest.at(group + "-" + i, due, grouped ? options.group(group) : options);
    }
}
