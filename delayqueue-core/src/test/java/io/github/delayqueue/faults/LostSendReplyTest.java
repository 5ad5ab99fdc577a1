package io.github.delayqueue.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.testing.TestRedis;

/**
 * What FailoverTest's {@code resent} duplicates are, made deterministic (docs/reference/guarantees.md, "Identity"): Redis runs a
 * send's script but its reply never reaches the client (here a proxy drops it; in a failover, the master died or the
 * client switched masters before it answered). Redisson sends the command again after its timeout; the first copy was
 * delivered and acknowledged meanwhile, so the if-absent second run finds the id free and writes the message again:
 * {@code send} returns once, the handler runs twice, each time with attempt 1 and its own enqueued-at time.
 * At-least-once allows it; an if-absent send protects only a live message.
 */
class LostSendReplyTest {

    @Test
    void aSendWhoseReplyIsLostRunsAgainAndWritesTheHandledMessageAgain() throws Exception {
        resend(SendOptions.id("m"), 2);
    }

    /**
     * The same resend with a dedup window (docs/reference/guarantees.md, "Ids remembered after delivery"): the first copy was
     * acknowledged, so its id is remembered, and the second run of the script writes nothing.
     */
    @Test
    void withADedupWindowTheResentSendWritesNothing() throws Exception {
        resend(SendOptions.id("m").withDedupWindow(Duration.ofMinutes(5)), 1);
    }

    private void resend(SendOptions sendOptions, int copies) throws Exception {
        String queue = "lost-reply";
        String prefix = TestRedis.uniquePrefix();
        URI redis = URI.create(TestRedis.url());
        try (ReplyHolder proxy = new ReplyHolder(redis.getHost(), redis.getPort())) {
            String viaProxy = redis.getScheme() + "://" + (redis.getUserInfo() == null ? "" : redis.getUserInfo() + "@")
                    + "127.0.0.1:" + proxy.port();
            // the starter's timeout (3 s); retried up to 3 times 100 ms apart
            RedissonClient producerRedis = FaultSupport.client(viaProxy, 3_000, 3, 100, false);
            RedissonClient consumerRedis = TestRedis.newClient();
            DelayQueueConsumer consumer = null;
            try {
                ClientOptions options = ClientOptions.builder().keyPrefix(prefix).build();
                DelayQueueClient producer = DelayQueueClient.create(producerRedis, options);
                DelayQueueClient consuming = DelayQueueClient.create(consumerRedis, options);
                ConcurrentLinkedQueue<String> deliveries = new ConcurrentLinkedQueue<>();
                consumer = consuming.newConsumer(queue, String.class, (payload, context) -> deliveries.add(
                        context.id() + " attempt " + context.attempt() + " enqueued " + context.enqueuedAt()),
                        ConsumerOptions.builder().concurrency(2).build());
                consumer.start();
                producer.send(queue, "warm-up", Duration.ZERO, SendOptions.id("warm-up")); // the script loaded
                await().atMost(Duration.ofSeconds(20)).until(() -> deliveries.size() == 1);

                proxy.holdReplies();
                CompletableFuture<String> send = new CompletableFuture<>();
                Thread sender = new Thread(() -> {
                    try {
                        send.complete(producer.send(queue, "once", Duration.ZERO, sendOptions));
                    } catch (RuntimeException e) {
                        send.completeExceptionally(e);
                    }
                }, "lost-reply-sender");
                sender.start();
                // the script ran: the message is delivered and acknowledged, though the sender has no answer yet
                await("first copy handled").atMost(Duration.ofSeconds(20))
                        .until(() -> deliveries.stream().anyMatch(d -> d.startsWith("m ")) && idle(consuming, queue));
                assertThat(send).as("the sender is still waiting for its reply").isNotDone();
                // Redisson's timeout passes and it sends the command again (a send sent again before the first copy
                // was handled found the id live and wrote nothing: wait for one after); then the replies arrive, the
                // first one late
                int sentBefore = proxy.requestsWhileHeld();
                await("the send sent again").atMost(Duration.ofSeconds(20))
                        .until(() -> proxy.requestsWhileHeld() > sentBefore);
                proxy.release();

                assertThat(send.get(30, TimeUnit.SECONDS)).as("the send returns normally, once").isEqualTo("m");
                if (copies == 1) {
                    // both runs of the script have answered: a second copy would be pending, in flight or handled now
                    assertThat(idle(consuming, queue)).as("the second run wrote nothing").isTrue();
                    assertThat(deliveries.stream().filter(d -> d.startsWith("m ")).count()).isEqualTo(1);
                    return;
                }
                await("second copy handled").atMost(Duration.ofSeconds(20))
                        .until(() -> deliveries.stream().filter(d -> d.startsWith("m ")).count() == 2);
                List<String> ofM = deliveries.stream().filter(d -> d.startsWith("m ")).toList();
                assertThat(ofM).as("two writes, each delivered once with attempt 1")
                        .allMatch(d -> d.startsWith("m attempt 1 enqueued "));
                assertThat(ofM.get(0)).isNotEqualTo(ofM.get(1));
            } finally {
                if (consumer != null) {
                    consumer.stop();
                }
                FaultSupport.shutdown(producerRedis);
                FaultSupport.shutdown(consumerRedis);
                TestRedis.deleteKeys(prefix);
            }
        }
    }

    private static boolean idle(DelayQueueClient client, String queue) {
        QueueStats stats = client.stats(queue);
        return stats.pending() == 0 && stats.inFlight() == 0;
    }

    /** A TCP proxy to Redis that forwards every request and, while told to, holds Redis's replies back. */
    private static final class ReplyHolder implements AutoCloseable {

        private final String host;
        private final int upstreamPort;
        private final ServerSocket server;
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private final AtomicInteger requestsWhileHeld = new AtomicInteger();
        /** The replies held back, per connection, in order; null while replies pass. */
        private @Nullable Map<OutputStream, ByteArrayOutputStream> held;

        ReplyHolder(String host, int upstreamPort) throws IOException {
            this.host = host;
            this.upstreamPort = upstreamPort;
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread accept = new Thread(this::accept, "reply-holder-accept");
            accept.setDaemon(true);
            accept.start();
        }

        int port() {
            return server.getLocalPort();
        }

        synchronized void holdReplies() {
            held = new LinkedHashMap<>();
        }

        int requestsWhileHeld() {
            return requestsWhileHeld.get();
        }

        /** Writes the replies held back, in order, and lets replies pass again. */
        synchronized void release() throws IOException {
            Map<OutputStream, ByteArrayOutputStream> replies = held;
            held = null;
            if (replies != null) {
                for (Map.Entry<OutputStream, ByteArrayOutputStream> e : replies.entrySet()) {
                    e.getKey().write(e.getValue().toByteArray());
                    e.getKey().flush();
                }
            }
        }

        /** Forwards a reply, or holds it back. */
        private synchronized void reply(OutputStream out, byte[] buffer, int read) throws IOException {
            if (held != null) {
                held.computeIfAbsent(out, k -> new ByteArrayOutputStream()).write(buffer, 0, read);
            } else {
                out.write(buffer, 0, read);
                out.flush();
            }
        }

        private void accept() {
            for (int n = 0; !server.isClosed(); n++) {
                try {
                    Socket client = server.accept();
                    Socket upstream = new Socket(host, upstreamPort);
                    client.setTcpNoDelay(true);
                    upstream.setTcpNoDelay(true);
                    sockets.add(client);
                    sockets.add(upstream);
                    pump(client, upstream, false, "reply-holder-request-" + n);
                    pump(upstream, client, true, "reply-holder-reply-" + n);
                } catch (IOException e) {
                    return; // closed
                }
            }
        }

        /** Copies {@code from} to {@code to} until either closes, then closes both. */
        private void pump(Socket from, Socket to, boolean replies, String name) {
            Thread t = new Thread(() -> {
                byte[] buffer = new byte[16 * 1024];
                try {
                    InputStream in = from.getInputStream();
                    OutputStream out = to.getOutputStream();
                    for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                        if (replies) {
                            reply(out, buffer, read);
                        } else {
                            synchronized (this) {
                                if (held != null) {
                                    requestsWhileHeld.incrementAndGet();
                                }
                            }
                            out.write(buffer, 0, read);
                            out.flush();
                        }
                    }
                } catch (IOException e) {
                    // a socket closed
                }
                close(from);
                close(to);
            }, name);
            t.setDaemon(true);
            t.start();
        }

        private static void close(Socket socket) {
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            sockets.forEach(ReplyHolder::close);
        }
    }
}
