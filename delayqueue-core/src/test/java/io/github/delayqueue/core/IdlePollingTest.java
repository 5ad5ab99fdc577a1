package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.testing.RedisProcesses;
import io.github.delayqueue.testing.TestRedis;

/**
 * Idle queues with shared idle polling (the default): the instances consuming a queue take turns checking it, so an
 * idle queue costs about the same however many instances consume it, and what no wake-up announced (a lost wake-up, a
 * lease left by a stopped instance, a resume whose wake-up was lost) is still found within a few poll intervals. Each
 * test runs on a Redis server of its own: the cost is counted in commands (INFO commandstats), not time, so a loaded
 * machine cannot make it flaky, and dropping subscriptions by hand touches no other test.
 */
class IdlePollingTest {

    private static final Duration POLL = Duration.ofMillis(100);
    /** Far above what turns of 100 ms need on a loaded machine; far below the hour a covered consumer sleeps. */
    private static final Duration FAULT_BOUND = Duration.ofSeconds(15);

    @Test
    void idleQueuesClaimOnlyOnTheirPeriodicTurnsHoweverManyInstancesConsumeThem() throws Exception {
        try (Server server = new Server()) {
            int queues = 10;
            int instances = 3;
            Set<String> handled = ConcurrentHashMap.newKeySet();
            List<DelayQueueConsumer> consumers = new ArrayList<>();
            List<DelayQueueClient> clients = new ArrayList<>();
            for (int i = 0; i < instances; i++) {
                DelayQueueClient client = server.client(b -> b);
                clients.add(client);
                for (int q = 0; q < queues; q++) {
                    consumers.add(client.newConsumer("idle-" + q, String.class,
                            (String payload, MessageContext context) -> handled.add(payload),
                            ConsumerOptions.builder().maxPollInterval(POLL).build()));
                }
            }
            try {
                consumers.forEach(DelayQueueConsumer::start);
                server.awaitRegistered(instances);
                Thread.sleep(1_000); // every consumer's first claims done, every instance's view of the others read
                long claims = server.scriptCalls(() -> sleep(3_000));
                // 30 turns of each queue in 3 s: each instance's consumers claiming every poll interval on their own
                // would make 10 x 3 x 30 = 900 script calls. Shared, each queue has its periodic pass (two script calls)
                // every 30 turns, and each instance beats every 5 s: about 20 to 30; 150 is a bound only a fault crosses
                assertThat(claims).as("script calls in 3 s of 10 idle queues on 3 instances").isLessThan(150);

                // and a message sent to an idle queue is handled through its wake-up, at once
                for (int q = 0; q < queues; q++) {
                    clients.get(q % instances).send("idle-" + q, "m" + q, Duration.ZERO);
                }
                await().atMost(FAULT_BOUND).until(() -> handled.size() == queues);
            } finally {
                consumers.forEach(DelayQueueConsumer::stop);
            }
        }
    }

    @Test
    void aWakeUpLostWhileTheQueueIsIdleIsFoundByATurn() throws Exception {
        try (Server server = new Server()) {
            String queue = "lost-wake";
            CountDownLatch handled = new CountDownLatch(2);
            List<DelayQueueConsumer> consumers = new ArrayList<>();
            List<DelayQueueClient> clients = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                DelayQueueClient client = server.client(b -> b);
                clients.add(client);
                consumers.add(client.newConsumer(queue, String.class, (String payload, MessageContext c) -> handled.countDown(),
                        ConsumerOptions.builder().maxPollInterval(POLL).build()));
            }
            try {
                consumers.forEach(DelayQueueConsumer::start);
                server.awaitRegistered(2);
                Thread.sleep(500);
                // the subscriptions dropped by hand: the consumers believe they still listen, and no wake-up arrives
                String channel = QueueKeys.of(server.prefix, queue).wakeChannel();
                for (RedissonClient redisson : server.redissons) {
                    redisson.getTopic(channel).removeAllListeners();
                }
                clients.get(0).send(queue, "due now", Duration.ZERO);
                clients.get(1).send(queue, "due soon", Duration.ofMillis(300));
                assertThat(handled.await(FAULT_BOUND.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS))
                        .as("both messages handled though their wake-ups were lost").isTrue();
            } finally {
                consumers.forEach(DelayQueueConsumer::stop);
            }
        }
    }

    @Test
    void aLeaseOfAnInstanceThatStoppedWithoutLeavingIsFoundWhenItExpires() throws Exception {
        try (Server server = new Server()) {
            String queue = "stranded";
            CountDownLatch never = new CountDownLatch(1);
            CountDownLatch first = new CountDownLatch(1);
            CountDownLatch redelivered = new CountDownLatch(1);
            ConsumerOptions options = ConsumerOptions.builder().maxPollInterval(POLL)
                    .visibilityTimeout(Duration.ofSeconds(1)).build();
            DelayQueueClient crashing = server.client(b -> b);
            DelayQueueClient survivor = server.client(b -> b);
            DelayQueueConsumer stuck = crashing.newConsumer(queue, String.class, (String payload, MessageContext c) -> {
                first.countDown();
                never.await();
            }, options);
            DelayQueueConsumer other = survivor.newConsumer(queue, String.class,
                    (String payload, MessageContext c) -> redelivered.countDown(), options);
            try {
                stuck.start();
                server.awaitRegistered(1);
                crashing.send(queue, "stranded", Duration.ZERO);
                assertThat(first.await(FAULT_BOUND.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)).isTrue();
                other.start();
                server.awaitRegistered(2);
                Thread.sleep(1_000); // the survivor has claimed (nothing due) and sleeps on its wake-ups and turns
                server.redissons.get(0).shutdown(); // the crash: no lease extended, no settle, no leaving the registry
                assertThat(redelivered.await(FAULT_BOUND.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS))
                        .as("redelivered after the stopped instance's lease expired").isTrue();
            } finally {
                never.countDown();
                other.stop();
                stuck.stopAsync();
            }
        }
    }

    @Test
    void aQueueResumedWhileItsWakeUpIsLostIsFoundByATurn() throws Exception {
        try (Server server = new Server()) {
            String queue = "resumed";
            CountDownLatch handled = new CountDownLatch(1);
            DelayQueueClient client = server.client(b -> b);
            DelayQueueConsumer consumer = client.newConsumer(queue, String.class,
                    (String payload, MessageContext c) -> handled.countDown(), ConsumerOptions.builder().maxPollInterval(POLL).build());
            try {
                client.pause(queue);
                client.send(queue, "held", Duration.ZERO);
                consumer.start();
                server.awaitRegistered(1);
                Thread.sleep(1_000); // claimed while paused: it sleeps until resumed
                assertThat(handled.getCount()).as("nothing handled while paused").isEqualTo(1);
                server.redissons.get(0).getTopic(QueueKeys.of(server.prefix, queue).wakeChannel()).removeAllListeners();
                client.resume(queue);
                assertThat(handled.await(FAULT_BOUND.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS))
                        .as("handled after the resume, though its wake-up was lost").isTrue();
            } finally {
                consumer.stop();
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A Redis server of the test's own, and the clients ("instances") made on it, all shut down at the end. */
    private static final class Server implements AutoCloseable {
        final RedisProcesses processes = new RedisProcesses();
        final int port = TestRedis.freePort();
        final String prefix = TestRedis.uniquePrefix();
        final List<RedissonClient> redissons = new ArrayList<>();

        Server() {
            processes.start(port, false);
        }

        DelayQueueClient client(Function<ClientOptions.Builder, ClientOptions.Builder> options) {
            Config config = new Config();
            config.useSingleServer().setAddress("redis://127.0.0.1:" + port).setPingConnectionInterval(0);
            RedissonClient redisson = Redisson.create(config);
            redissons.add(redisson);
            return DelayQueueClient.create(redisson, options.apply(ClientOptions.builder().keyPrefix(prefix)).build());
        }

        /** Until {@code count} instances are registered for turns. */
        void awaitRegistered(int count) {
            String key = prefix + ":{~watch}:instances";
            await().atMost(FAULT_BOUND).until(() -> Long.valueOf(count)
                    .equals(RedisProcesses.call(port, "ZCARD", key)));
        }

        /** The script calls (EVALSHA) the server ran while {@code action} ran. */
        long scriptCalls(Runnable action) {
            RedisProcesses.call(port, "CONFIG", "RESETSTAT");
            action.run();
            String info = String.valueOf(RedisProcesses.call(port, "INFO", "commandstats"));
            for (String line : info.split("\r?\n")) {
                if (line.startsWith("cmdstat_evalsha:")) {
                    int at = line.indexOf("calls=") + "calls=".length();
                    return Long.parseLong(line, at, line.indexOf(',', at), 10);
                }
            }
            return 0;
        }

        @Override
        public void close() {
            for (RedissonClient redisson : redissons) {
                if (!redisson.isShutdown()) {
                    redisson.shutdown();
                }
            }
            processes.close();
        }
    }
}
