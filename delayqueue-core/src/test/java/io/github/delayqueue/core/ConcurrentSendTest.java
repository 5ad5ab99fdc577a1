package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.protocol.Envelope;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * Single sends from many threads at once are combined into overlapping script calls; none is lost,
 * none is written twice, every caller gets its own outcome, and one thread's sends keep their order.
 */
@ExtendWith(RedisExtension.class)
class ConcurrentSendTest {

    private static final int THREADS = 16;
    private static final int PER_THREAD = 1_500;

    private final RedisContext redis;
    private final DelayQueueClient client;

    ConcurrentSendTest(RedisContext redis) {
        this.redis = redis;
        this.client = redis.client();
    }

    @Test
    void everyConcurrentSingleSendIsWrittenExactlyOnce() throws Exception {
        Set<String> ids = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < PER_THREAD; i++) {
                        ids.add(this.client.send("many", thread + ":" + i, Duration.ofHours(1)));
                        // every fifth send names an id another thread also uses: if-absent keeps one of them
                        if (i % 5 == 0) {
                            this.client.send("many", "shared", Duration.ofHours(1), SendOptions.id("shared-" + i));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(ids).hasSize(THREADS * PER_THREAD);
        assertThat(this.client.stats("many").pending()).isEqualTo(THREADS * PER_THREAD + PER_THREAD / 5);
    }

    @Test
    void oneThreadsReplacingSendsKeepTheirOrderWhileOthersSend() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> noise = new ArrayList<>();
            for (int t = 0; t < 7; t++) {
                noise.add(pool.submit(() -> {
                    for (int i = 0; i < 1_000; i++) {
                        this.client.send("order", "noise", Duration.ofHours(1));
                    }
                    return null;
                }));
            }
            Future<?> writer = pool.submit(() -> {
                for (int v = 0; v < 500; v++) {
                    this.client.send("order", "v" + v, Duration.ofHours(1), SendOptions.id("latest").replaceExisting());
                }
                return null;
            });
            writer.get(2, TimeUnit.MINUTES);
            for (Future<?> f : noise) {
                f.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        String envelope = this.redis.redisson().<String, String>getMap(this.redis.prefix() + ":{order}:messages",
                StringCodec.INSTANCE).get("latest");
        assertThat(Envelope.parse(envelope).payload()).isEqualTo("\"v499\"");
        assertThat(this.client.stats("order").pending()).isEqualTo(7_000 + 1);
    }
}
