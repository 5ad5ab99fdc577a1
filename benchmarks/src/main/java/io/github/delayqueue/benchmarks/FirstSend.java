package io.github.delayqueue.benchmarks;

import java.time.Duration;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.DelayQueueClient;

/**
 * The first and second send of a fresh JVM, with or without {@link DelayQueueClient#warmUp} first (what the
 * starter does in the background at startup). One line per run; run it several times, each a new JVM:
 * {@code java -cp benchmarks/target/benchmarks.jar io.github.delayqueue.benchmarks.FirstSend cold|warm}
 * against {@code DELAYQUEUE_REDIS_URL} (default {@code redis://127.0.0.1:6379}).
 */
public final class FirstSend {

    record Order(String id, long cents) {
    }

    private FirstSend() {
    }

    public static void main(String[] args) {
        boolean warm = args.length > 0 && args[0].equals("warm");
        String url = System.getenv().getOrDefault("DELAYQUEUE_REDIS_URL", "redis://127.0.0.1:6379");
        Config config = new Config();
        config.setLazyInitialization(true); // as the starter builds it
        config.useSingleServer().setAddress(url);
        RedissonClient redisson = Redisson.create(config);
        String prefix = "first-send-" + System.nanoTime();
        try {
            DelayQueueClient client = DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix(prefix).build());
            if (warm) {
                client.warmUp("orders");
            }
            long a = System.nanoTime();
            client.send("orders", new Order("o-1", 100), Duration.ofMinutes(15));
            long b = System.nanoTime();
            client.send("orders", new Order("o-2", 200), Duration.ofMinutes(15));
            long c = System.nanoTime();
            System.out.printf("FIRST-SEND mode=%s first_ms=%.1f second_ms=%.1f%n", warm ? "warm" : "cold", (b - a) / 1e6,
                    (c - b) / 1e6);
        } finally {
            redisson.getKeys().deleteByPattern(prefix + ":*");
            redisson.shutdown();
        }
    }
}
