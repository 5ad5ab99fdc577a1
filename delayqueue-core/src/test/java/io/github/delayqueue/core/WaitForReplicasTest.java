package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;

import io.github.delayqueue.testing.RedisProcesses;
import io.github.delayqueue.testing.TestCluster;
import io.github.delayqueue.testing.TestRedis;
import io.github.delayqueue.testing.TestSentinel;

/**
 * {@link ClientOptions.Builder#waitForReplicas}: a send returns once the replicas have it; a send they did not
 * acknowledge in time throws {@link NotReplicatedException} and is still written on the master.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WaitForReplicasTest {

    private final String prefix = TestRedis.uniquePrefix();
    private RedissonClient sentinelRedis;

    @BeforeAll
    void connect() {
        sentinelRedis = TestSentinel.shared().newClient();
    }

    @AfterAll
    void close() {
        sentinelRedis.getKeys().unlinkByPattern(prefix + ":*");
        sentinelRedis.shutdown();
    }

    private DelayQueueClient client(RedissonClient redisson, int replicas, Duration timeout) {
        return DelayQueueClient.create(redisson,
                ClientOptions.builder().keyPrefix(prefix).waitForReplicas(replicas, timeout).build());
    }

    @Test
    void aSendReturnsOnceTheReplicaHasItAndIsDelivered() {
        DelayQueueClient client = client(sentinelRedis, 1, Duration.ofSeconds(2));
        Set<String> received = ConcurrentHashMap.newKeySet();
        DelayQueueConsumer consumer = client.newConsumer("replicated", String.class, (p, c) -> received.add(c.id()),
                ConsumerOptions.DEFAULTS);
        consumer.start();
        try {
            List<String> ids = new ArrayList<>();
            ids.add(client.send("replicated", "one", Duration.ZERO));
            ids.addAll(client.sendAll("replicated", List.of(SendRequest.of("two", Duration.ZERO),
                    SendRequest.of("three", Duration.ofMillis(100)))));
            await().atMost(Duration.ofSeconds(10)).until(() -> received.containsAll(ids));
        } finally {
            consumer.stop();
        }
    }

    @Test
    void concurrentSingleSendsAreCombinedAndEachWaitsForTheReplica() throws Exception {
        DelayQueueClient client = client(sentinelRedis, 1, Duration.ofSeconds(2));
        ExecutorService senders = Executors.newFixedThreadPool(8);
        try {
            List<Future<String>> sent = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                String id = "c-" + i;
                sent.add(senders.submit(() -> client.send("combined", id, Duration.ofHours(1), SendOptions.id(id))));
            }
            for (Future<String> f : sent) {
                f.get();
            }
        } finally {
            senders.shutdownNow();
        }
        assertThat(client.stats("combined").pending()).isEqualTo(200);
    }

    @Test
    void moreReplicasThanThereAreThrowsButTheMessageIsWrittenOnTheMaster() {
        DelayQueueClient client = client(sentinelRedis, 2, Duration.ofMillis(200));
        assertThatThrownBy(() -> client.send("too-many", "x", Duration.ofHours(1), SendOptions.id("m-1")))
                .isInstanceOfSatisfying(NotReplicatedException.class, e -> {
                    assertThat(e.required()).isEqualTo(2);
                    assertThat(e.acknowledged()).isEqualTo(1);
                    assertThat(e).hasMessageContaining("1 of 2 replicas").hasMessageContaining("IF_ABSENT");
                });
        assertThat(client.message("too-many", "m-1")).as("written on the master").isPresent();
    }

    @Test
    void aReplicaThatDoesNotAnswerInTimeFailsTheSend() throws Exception {
        Assumptions.assumeTrue(TestSentinel.shared().isEmbedded(), "stalls a replica of the embedded set-up");
        DelayQueueClient client = client(sentinelRedis, 1, Duration.ofMillis(300));
        client.send("stalled", "warm", Duration.ofHours(1)); // connected, scripts loaded
        int replica = TestSentinel.shared().replicaPorts().get(0);
        ExecutorService stall = Executors.newSingleThreadExecutor();
        try {
            // the replica's main thread sleeps 1.5 s: it cannot acknowledge the write within 300 ms. A WAIT on another
            // connection than the write's would return at once with 1 (that connection has written nothing new)
            Future<?> sleeping = stall.submit(() -> RedisProcesses.call(replica, "DEBUG", "SLEEP", "1.5"));
            // not a fixed 100 ms: on a loaded machine the stall thread can send its command later than that, and the
            // replica then acknowledges the write in time (no exception); wait until it no longer answers a PING
            await("the replica asleep").atMost(Duration.ofSeconds(10)).until(() -> !answersWithin(replica, 200));
            long started = System.nanoTime();
            assertThatThrownBy(() -> client.send("stalled", "x", Duration.ofHours(1), SendOptions.id("s-1")))
                    .isInstanceOfSatisfying(NotReplicatedException.class, e -> assertThat(e.acknowledged()).isZero());
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
            assertThat(client.message("stalled", "s-1")).isPresent();
            sleeping.get();
        } finally {
            stall.shutdownNow();
        }
    }

    @Test
    void aFlushedScriptCacheIsReloadedAndTheSendStillWaits() {
        Assumptions.assumeTrue(TestSentinel.shared().isEmbedded(), "flushes the script cache of the embedded set-up");
        DelayQueueClient client = client(sentinelRedis, 1, Duration.ofSeconds(2));
        client.send("flushed", "before", Duration.ofHours(1));
        RedisProcesses.call(TestSentinel.shared().masterPort(), "SCRIPT", "FLUSH"); // as after a restart: NOSCRIPT
        client.sendAll("flushed", List.of(SendRequest.of("after", Duration.ofHours(1))));
        client.send("flushed", "single", Duration.ofHours(1));
        assertThat(client.stats("flushed").pending()).isEqualTo(3);
    }

    @Test
    void onAClusterEachSendWaitsForTheReplicaOfItsQueuesMaster() {
        RedissonClient redisson = TestCluster.shared().newClient();
        try {
            DelayQueueClient client = client(redisson, 1, Duration.ofSeconds(2));
            for (String queue : List.of("a", "b", "c", "d", "e", "f")) {
                client.send(queue, "x", Duration.ofHours(1));
                assertThat(client.stats(queue).pending()).isEqualTo(1);
            }
            DelayQueueClient greedy = client(redisson, 2, Duration.ofMillis(100));
            assertThatThrownBy(() -> greedy.send("a", "y", Duration.ofHours(1)))
                    .isInstanceOfSatisfying(NotReplicatedException.class, e -> assertThat(e.acknowledged()).isEqualTo(1));
        } finally {
            redisson.getKeys().unlinkByPattern(prefix + ":*");
            redisson.shutdown();
        }
    }

    @Test
    void badSettingsAreRejectedByTheBuilder() {
        assertThatThrownBy(() -> ClientOptions.builder().waitForReplicas(-1, Duration.ofSeconds(1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitForReplicas must be between 0 and 100");
        assertThatThrownBy(() -> ClientOptions.builder().waitForReplicas(101, Duration.ofSeconds(1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 101");
        assertThatThrownBy(() -> ClientOptions.builder().waitForReplicas(1, Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout must be between 1 ms and PT1M");
        assertThatThrownBy(() -> ClientOptions.builder().waitForReplicas(1, Duration.ofMinutes(2)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was PT2M");
        assertThatThrownBy(() -> ClientOptions.builder().waitForReplicas(1, null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replica timeout");
        assertThat(ClientOptions.builder().build().waitForReplicas()).isZero();
    }

    /** Whether the server on {@code port} answers a PING within {@code millis} (a sleeping main thread does not). */
    private static boolean answersWithin(int port, int millis) throws java.io.IOException {
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", port), 2_000);
            socket.setSoTimeout(millis);
            socket.getOutputStream().write("PING\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            return socket.getInputStream().read() == '+';
        } catch (java.net.SocketTimeoutException e) {
            return false;
        }
    }
}
