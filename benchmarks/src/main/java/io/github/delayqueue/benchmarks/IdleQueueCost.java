package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.config.Config;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.MessageContext;

/**
 * What idle queues cost Redis: starts one consumer per queue, none with a message, on an embedded Redis of its own
 * (no other client), lets them settle for 10 s, then counts the commands Redis ran over the measured window from
 * {@code INFO commandstats} (commands a script runs counted one by one, the script's own call too) and the
 * microseconds they took. One line per command, then the totals per second and per queue (the client's
 * connection PINGs apart: they are per client, not per queue):
 * {@code java -cp benchmarks/target/benchmarks.jar io.github.delayqueue.benchmarks.IdleQueueCost QUEUES
 * MAX_POLL_INTERVAL SECONDS}, for example {@code 10 PT1S 60}.
 */
public final class IdleQueueCost {

    private static final Pattern STAT = Pattern.compile("calls=(\\d+),usec=(\\d+)");

    private IdleQueueCost() {
    }

    public static void main(String[] args) throws InterruptedException {
        int queues = Integer.parseInt(args[0]);
        Duration maxPollInterval = Duration.parse(args[1]);
        long seconds = Long.parseLong(args[2]);
        try (EmbeddedRedis server = new EmbeddedRedis()) {
            Config config = new Config();
            config.useSingleServer().setAddress(server.url());
            RedissonClient redisson = Redisson.create(config);
            DelayQueueClient client = DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix("idle").build());
            List<DelayQueueConsumer> consumers = new ArrayList<>();
            try {
                for (int i = 0; i < queues; i++) {
                    DelayQueueConsumer consumer = client.newConsumer("idle-" + i, String.class,
                            (String payload, MessageContext context) -> {
                            }, ConsumerOptions.builder().maxPollInterval(maxPollInterval).build());
                    consumer.start();
                    consumers.add(consumer);
                }
                Thread.sleep(10_000);
                Map<String, long[]> before = commandStats(redisson);
                long start = System.nanoTime();
                Thread.sleep(seconds * 1000);
                Map<String, long[]> after = commandStats(redisson);
                double window = (System.nanoTime() - start) / 1e9;
                long calls = 0;
                long pings = 0;
                long usec = 0;
                for (Map.Entry<String, long[]> e : after.entrySet()) {
                    long[] was = before.getOrDefault(e.getKey(), new long[2]);
                    long c = e.getValue()[0] - was[0];
                    long u = e.getValue()[1] - was[1];
                    if (e.getKey().equals("info") || c == 0) {
                        continue; // the measurement's own INFO
                    }
                    System.out.printf("IDLE-COST command=%s calls=%d per_s=%.2f usec=%d%n", e.getKey(), c, c / window, u);
                    if (e.getKey().equals("ping")) {
                        pings += c; // the client keeps its connections alive: per client, not per queue
                    } else {
                        calls += c;
                    }
                    usec += e.getKey().equals("evalsha") ? u : 0; // a script's usec includes the commands it runs
                }
                long claims = after.getOrDefault("evalsha", new long[2])[0] - before.getOrDefault("evalsha", new long[2])[0];
                System.out.printf("IDLE-COST queues=%d max_poll_interval=%s window_s=%.1f commands_per_s=%.1f "
                        + "client_pings_per_s=%.2f claims_per_s_per_queue=%.2f commands_per_s_per_queue=%.1f "
                        + "script_usec_per_claim=%.0f%n", queues, maxPollInterval, window, calls / window,
                        pings / window, claims / window / queues, calls / window / queues,
                        claims == 0 ? 0.0 : (double) usec / claims);
            } finally {
                consumers.forEach(DelayQueueConsumer::stop);
                redisson.shutdown();
            }
        }
    }

    /** command → {calls, usec} from INFO commandstats. */
    private static Map<String, long[]> commandStats(RedissonClient redisson) {
        Map<String, long[]> stats = new TreeMap<>();
        redisson.getRedisNodes(RedisNodes.SINGLE).getInstance().info(RedisNode.InfoSection.COMMANDSTATS)
                .forEach((key, value) -> {
                    Matcher m = STAT.matcher(value);
                    if (key.startsWith("cmdstat_") && m.find()) {
                        stats.put(key.substring("cmdstat_".length()), new long[] { Long.parseLong(m.group(1)),
                                Long.parseLong(m.group(2)) });
                    }
                });
        return stats;
    }
}
