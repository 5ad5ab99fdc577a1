package io.github.delayqueue.benchmarks;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.config.Config;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.protocol.ClaimLimits;
import io.github.delayqueue.core.protocol.GroupLimits;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.Scripts;

/**
 * What the claim script costs Redis per claimed message on a queue of ungrouped messages ({@code plain}), of grouped
 * ones in 10 groups ({@code grouped}), and of both, alternating ({@code mixed}: every claim holds candidates of both
 * kinds, which it merges in due order). Each round writes 2,000 messages already due, on an embedded Redis of its own,
 * then claims them 100 at a time (no limits) and reads the claims' Redis time from {@code INFO commandstats}
 * ({@code evalsha}'s usec: a script's time includes the commands it runs). Prints the median of the rounds per kind:
 * {@code java -cp benchmarks/target/benchmarks.jar io.github.delayqueue.benchmarks.GroupedClaimCost ROUNDS}, for
 * example {@code 9}. Before/after an engine change: the same command on a jar built at each commit.
 */
public final class GroupedClaimCost {

    private static final Pattern STAT = Pattern.compile("usec=(\\d+)");
    private static final int MESSAGES = 2_000;
    private static final int CLAIM = 100;

    private GroupedClaimCost() {
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 9;
        try (EmbeddedRedis server = new EmbeddedRedis()) {
            Config config = new Config();
            config.useSingleServer().setAddress(server.url());
            RedissonClient redisson = Redisson.create(config);
            try {
                for (String kind : List.of("plain", "grouped", "mixed")) {
                    List<Double> perMessage = new ArrayList<>();
                    for (int round = 0; round < rounds; round++) {
                        perMessage.add(round(redisson, kind, "claim-cost-" + kind + "-" + round));
                    }
                    Collections.sort(perMessage);
                    System.out.printf("GROUPED-CLAIM-COST kind=%s rounds=%d median_us_per_message=%.2f min=%.2f max=%.2f%n",
                            kind, rounds, perMessage.get(rounds / 2), perMessage.get(0), perMessage.get(rounds - 1));
                }
            } finally {
                redisson.shutdown();
            }
        }
    }

    private static double round(RedissonClient redisson, String kind, String prefix) {
        DelayQueueClient client = DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix(prefix).build());
        Instant due = Instant.now().minusSeconds(5);
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            boolean grouped = kind.equals("grouped") || (kind.equals("mixed") && i % 2 == 0);
            SendOptions options = SendOptions.id("m" + i);
            requests.add(SendRequest.at("payload-" + i, due.plusMillis(i), grouped ? options.group("G" + i % 10) : options));
            if (requests.size() == 500) {
                client.sendAll("q", requests);
                requests.clear();
            }
        }
        QueueOps ops = new QueueOps(new Scripts(redisson), QueueKeys.of(prefix, "q", 0, 1));
        long before = evalshaMicros(redisson);
        int claimed = 0;
        for (int k = 0; k < 2 * MESSAGES / CLAIM && claimed < MESSAGES; k++) {
            claimed += ops.claim(CLAIM, 60_000, 5, 100, 86_400_000L, 1_000, ClaimLimits.NONE, false, GroupLimits.NONE)
                    .messages().size();
        }
        long micros = evalshaMicros(redisson) - before;
        redisson.getKeys().deleteByPattern(prefix + ":*");
        if (claimed != MESSAGES) {
            throw new IllegalStateException(kind + ": claimed " + claimed + " of " + MESSAGES);
        }
        return micros / (double) claimed;
    }

    private static long evalshaMicros(RedissonClient redisson) {
        Map<String, String> info = redisson.getRedisNodes(RedisNodes.SINGLE).getInstance()
                .info(RedisNode.InfoSection.COMMANDSTATS);
        String evalsha = info.get("cmdstat_evalsha");
        Matcher m = STAT.matcher(evalsha == null ? "" : evalsha);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }
}
