package io.github.delayqueue.spring.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.testing.TestRedis;

/**
 * A TCP proxy in front of the test Redis that holds every reply back for {@code delay} (a slow network), or, with
 * no delay, a server that accepts connections and never answers (a Redis that hangs). Each connection is two
 * named daemon threads; {@link #close()} ends them all.
 */
final class SlowRedis implements AutoCloseable {

    private final ServerSocket server;
    private final Duration delay;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private SlowRedis(Duration delay) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.delay = delay;
        Thread acceptor = new Thread(this::accept, "slow-redis-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Forwards to the test Redis, each reply {@code delay} late. */
    static SlowRedis delaying(Duration delay) throws IOException {
        return new SlowRedis(delay);
    }

    /** Accepts connections and never answers. */
    static SlowRedis silent() throws IOException {
        return new SlowRedis(null);
    }

    String url() {
        return "redis://127.0.0.1:" + this.server.getLocalPort();
    }

    private void accept() {
        try {
            while (!this.server.isClosed()) {
                Socket client = this.server.accept();
                this.sockets.add(client);
                if (this.delay == null) {
                    continue; // holds the connection open, reads nothing, answers nothing
                }
                URI redis = URI.create(TestRedis.url());
                Socket upstream = new Socket(redis.getHost(), redis.getPort());
                this.sockets.add(upstream);
                pump(client.getInputStream(), upstream.getOutputStream(), Duration.ZERO, "slow-redis-requests");
                pump(upstream.getInputStream(), client.getOutputStream(), this.delay, "slow-redis-replies");
            }
        } catch (IOException e) {
            // closed
        }
    }

    private static void pump(InputStream in, OutputStream out, Duration delay, String name) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    if (!delay.isZero()) {
                        Thread.sleep(delay.toMillis());
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // closed
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void close() throws IOException {
        this.server.close();
        for (Socket socket : this.sockets) {
            socket.close();
        }
    }
}
