package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

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
    void idleQueuesCostTheSameOnThreeInstancesAsOnOne() throws Exception {
        try (Server server = new Server()) {
            int queues = 10;
            Set<String> handled = ConcurrentHashMap.newKeySet();
            List<DelayQueueConsumer> consumers = new ArrayList<>();
            List<DelayQueueClient> clients = new ArrayList<>();
            try {
                long[] one = null;
                for (int instances = 1; instances <= 3; instances++) {
                    DelayQueueClient client = server.client();
                    clients.add(client);
                    for (int q = 0; q < queues; q++) {
                        DelayQueueConsumer consumer = client.newConsumer("idle-" + q, String.class,
                                (String payload, MessageContext context) -> handled.add(payload),
                                ConsumerOptions.builder().maxPollInterval(POLL).build());
                        consumers.add(consumer);
                        consumer.start();
                    }
                    server.awaitRegistered(instances);
                    if (instances == 2) {
                        continue;
                    }
                    // every consumer's first claims done, and every instance's view of the others read (a beat: 5 s)
                    Thread.sleep(instances == 1 ? 1_000 : 6_000);
                    long[] counted = server.commands(() -> sleep(3_000));
                    if (instances == 1) {
                        one = counted;
                        continue;
                    }
                    // 30 turns of each queue in 3 s. Each consumer claiming every poll interval on its own would make
                    // 10 x 3 x 30 = 900 script calls (11 commands each); shared, each queue has its periodic pass (two
                    // script calls) every 30 turns and each turn one read, whatever the instances: bounds only a fault
                    // crosses
                    assertThat(counted[1]).as("script calls in 3 s of 10 idle queues on 3 instances").isLessThan(150);
                    assertThat(counted[0]).as("commands in 3 s on 3 instances, against %d on 1", one[0])
                            .isLessThan(one[0] * 3 / 2 + 50);
                }
                // and a message sent to an idle queue is handled through its wake-up, at once
                for (int q = 0; q < queues; q++) {
                    clients.get(q % clients.size()).send("idle-" + q, "m" + q, Duration.ZERO);
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
                DelayQueueClient client = server.client();
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

    /**
     * A message claimed by an instance that then died, after the survivor's last claim: the survivor's own claims never
     * named its lease, so only the turns' reading of the leases finds it when it expires (without it the survivor
     * sleeps for an hour). The dead instance's claim is written by hand, as its claim would have left it.
     */
    @Test
    void aLeaseOfAnInstanceThatDiedIsFoundWhenItExpires() throws Exception {
        try (Server server = new Server()) {
            String queue = "stranded";
            CountDownLatch redelivered = new CountDownLatch(1);
            List<Integer> attempts = new java.util.concurrent.CopyOnWriteArrayList<>();
            DelayQueueClient survivor = server.client();
            DelayQueueConsumer consumer = survivor.newConsumer(queue, String.class, (String payload, MessageContext c) -> {
                attempts.add(c.attempt());
                redelivered.countDown();
            // turns of 5 s: the leases are read every turn (half the visibility timeout is less) and again when the
            // deadline read passes; the periodic pass's claim, which would find the lease too, comes every 150 s
            }, ConsumerOptions.builder().maxPollInterval(Duration.ofSeconds(5)).visibilityTimeout(Duration.ofSeconds(1))
                    .build());
            try {
                // sent before the survivor starts: no wake-up reaches it later, and its claims see only a due time an
                // hour away, until it sleeps on its turns (at most an hour)
                survivor.send(queue, "stranded", Duration.ofHours(1), SendOptions.id("stranded"));
                consumer.start();
                server.awaitRegistered(1);
                Thread.sleep(2_500); // covered, and asleep on its turns
                long deadline = survivor.stats(queue).serverTime().toEpochMilli() + 1_000;
                // the dead instance's claim: out of delayed, into flight under a lease of 1 s, attempt 1
                List<Object> keys = QueueKeys.of(server.prefix, queue).keys();
                server.redissons.get(0).getScript(org.redisson.client.codec.StringCodec.INSTANCE).eval(
                        org.redisson.api.RScript.Mode.READ_WRITE, """
                        local member = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
                        redis.call('ZREM', KEYS[2], member)
                        redis.call('ZADD', KEYS[3], ARGV[1], member)
                        redis.call('HSET', KEYS[4], ARGV[2], '1')
                        return member
                        """, org.redisson.api.RScript.ReturnType.VALUE, keys, Long.toString(deadline), "stranded");
                assertThat(redelivered.await(FAULT_BOUND.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS))
                        .as("redelivered after the dead instance's lease expired").isTrue();
                assertThat(attempts).containsExactly(2);
            } finally {
                consumer.stop();
            }
        }
    }

    @Test
    void aQueueResumedWhileItsWakeUpIsLostIsFoundByATurn() throws Exception {
        try (Server server = new Server()) {
            String queue = "resumed";
            CountDownLatch handled = new CountDownLatch(1);
            DelayQueueClient client = server.client();
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

        DelayQueueClient client() {
            Config config = new Config();
            config.useSingleServer().setAddress("redis://127.0.0.1:" + port).setPingConnectionInterval(0);
            RedissonClient redisson = Redisson.create(config);
            redissons.add(redisson);
            return DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix(prefix).build());
        }

        /** Until {@code count} instances are registered for turns. */
        void awaitRegistered(int count) {
            String key = prefix + ":{~watch}:instances";
            await().atMost(FAULT_BOUND).until(() -> Long.valueOf(count)
                    .equals(RedisProcesses.call(port, "ZCARD", key)));
        }

        /**
         * The commands the server ran while {@code action} ran (each command a script runs counted too; the clients'
         * PINGs and the count's own CONFIG and INFO left out) and, of them, the script calls (EVALSHA).
         */
        long[] commands(Runnable action) {
            RedisProcesses.call(port, "CONFIG", "RESETSTAT");
            action.run();
            String info = String.valueOf(RedisProcesses.call(port, "INFO", "commandstats"));
            long all = 0;
            long scripts = 0;
            boolean read = false;
            for (String line : info.split("\\r?\\n")) {
                if (!line.startsWith("cmdstat_")) {
                    continue;
                }
                read = true;
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                int at = line.indexOf("calls=") + "calls=".length();
                long calls = Long.parseLong(line, at, line.indexOf(',', at), 10);
                if (name.equals("ping") || name.startsWith("config") || name.equals("info")) {
                    continue;
                }
                all += calls;
                scripts += name.equals("evalsha") ? calls : 0;
            }
            assertThat(read).as("INFO commandstats read").isTrue();
            return new long[] { all, scripts };
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
