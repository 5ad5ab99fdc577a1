package io.github.delayqueue.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;
import org.redisson.config.SentinelServersConfig;

/**
 * A Redis Sentinel set-up for tests: the one named by {@code DELAYQUEUE_REDIS_SENTINEL}
 * ({@code host:port,host:port,...;master=name}), or else a master, one replica and three sentinels (quorum 2), started
 * from the bundled Redis 6.2 binary on free ports ({@link RedisProcesses}) with {@code down-after-milliseconds} as given
 * (2 s for {@link #shared()}) and {@code failover-timeout} 5 s. Only an embedded set-up may be {@link #kill killed}.
 */
public final class TestSentinel implements AutoCloseable {

    /** Environment variable (or system property) naming an external Sentinel set-up for the tests. */
    public static final String SENTINEL_VARIABLE = "DELAYQUEUE_REDIS_SENTINEL";

    private static @Nullable TestSentinel shared;

    private final List<String> sentinels;
    private final String master;
    private final @Nullable RedisProcesses processes;

    private TestSentinel(List<String> sentinels, String master, @Nullable RedisProcesses processes) {
        this.sentinels = sentinels;
        this.master = master;
        this.processes = processes;
    }

    /** The external set-up, or one embedded set-up per JVM (down after 2 s), stopped when the JVM exits. */
    public static synchronized TestSentinel shared() {
        if (shared == null) {
            String configured = System.getProperty(SENTINEL_VARIABLE, System.getenv(SENTINEL_VARIABLE));
            shared = configured != null && !configured.isBlank() ? parse(configured.trim()) : startEmbedded(2_000);
        }
        return shared;
    }

    private static TestSentinel parse(String configured) {
        String[] parts = configured.split(";");
        String master = "mymaster";
        for (int i = 1; i < parts.length; i++) {
            if (parts[i].trim().startsWith("master=")) {
                master = parts[i].trim().substring("master=".length());
            }
        }
        return new TestSentinel(Arrays.stream(parts[0].split(",")).map(String::trim).toList(), master, null);
    }

    /** Starts a master, a replica and three sentinels of its own; the caller closes them. */
    public static TestSentinel startEmbedded(int downAfterMs) {
        RedisProcesses processes = new RedisProcesses();
        try {
            int masterPort = TestRedis.freePort();
            int replicaPort = TestRedis.freePort();
            processes.start(masterPort, false, "repl-diskless-sync yes", "repl-diskless-sync-delay 0");
            processes.start(replicaPort, false, "replicaof 127.0.0.1 " + masterPort, "repl-diskless-sync yes",
                    "repl-diskless-sync-delay 0");
            RedisProcesses.await("replica in sync", Duration.ofSeconds(20), () -> String.valueOf(
                    RedisProcesses.call(replicaPort, "INFO", "replication")).contains("master_link_status:up"));
            List<Integer> sentinelPorts = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                int port = TestRedis.freePort();
                sentinelPorts.add(port);
                processes.start(port, true, "sentinel monitor mymaster 127.0.0.1 " + masterPort + " 2",
                        "sentinel down-after-milliseconds mymaster " + downAfterMs, "sentinel failover-timeout mymaster 5000",
                        "sentinel parallel-syncs mymaster 1");
            }
            for (int port : sentinelPorts) {
                RedisProcesses.await("sentinel " + port + " knows the replica and the other sentinels", Duration.ofSeconds(30),
                        () -> ((List<?>) RedisProcesses.call(port, "SENTINEL", "REPLICAS", "mymaster")).size() == 1
                                && ((List<?>) RedisProcesses.call(port, "SENTINEL", "SENTINELS", "mymaster")).size() == 2);
            }
            return new TestSentinel(sentinelPorts.stream().map(p -> "127.0.0.1:" + p).toList(), "mymaster", processes);
        } catch (RuntimeException e) {
            processes.close();
            throw e;
        }
    }

    /** {@code host:port} of the sentinels. */
    public List<String> sentinels() {
        return sentinels;
    }

    public String master() {
        return master;
    }

    public boolean isEmbedded() {
        return processes != null;
    }

    /** A new client through the sentinels (4 threads, 8 Netty threads, 5 s timeout, {@code tune} last). */
    public RedissonClient newClient(Consumer<SentinelServersConfig> tune) {
        Config config = new Config();
        config.setThreads(4);
        config.setNettyThreads(8);
        SentinelServersConfig servers = config.useSentinelServers().setMasterName(master).setTimeout(5_000)
                .setMasterConnectionMinimumIdleSize(2).setSlaveConnectionMinimumIdleSize(1)
                .setSubscriptionConnectionMinimumIdleSize(1).setReadMode(ReadMode.MASTER); // as TestCluster: no stale reads
        sentinels.forEach(node -> servers.addSentinelAddress("redis://" + node));
        tune.accept(servers);
        return Redisson.create(config);
    }

    public RedissonClient newClient() {
        return newClient(servers -> {
        });
    }

    /** The port of the current master, as the first sentinel that answers says. */
    public int masterPort() {
        for (String sentinel : sentinels) {
            String[] hp = sentinel.split(":");
            try {
                List<?> address = (List<?>) RedisProcesses.call(hp[0], Integer.parseInt(hp[1]), "SENTINEL",
                        "GET-MASTER-ADDR-BY-NAME", master);
                return Integer.parseInt(String.valueOf(address.get(1)));
            } catch (RuntimeException e) {
                // ask the next sentinel
            }
        }
        throw new IllegalStateException("no sentinel of " + sentinels + " answers");
    }

    /** The ports of the master's replicas, as the first sentinel that answers says. */
    public List<Integer> replicaPorts() {
        for (String sentinel : sentinels) {
            String[] hp = sentinel.split(":");
            try {
                List<?> replicas = (List<?>) RedisProcesses.call(hp[0], Integer.parseInt(hp[1]), "SENTINEL", "REPLICAS", master);
                List<Integer> ports = new ArrayList<>();
                for (Object replica : replicas) {
                    List<?> fields = (List<?>) replica;
                    for (int i = 0; i + 1 < fields.size(); i += 2) {
                        if ("port".equals(fields.get(i))) {
                            ports.add(Integer.parseInt(String.valueOf(fields.get(i + 1))));
                        }
                    }
                }
                return ports;
            } catch (RuntimeException e) {
                // ask the next sentinel
            }
        }
        throw new IllegalStateException("no sentinel of " + sentinels + " answers");
    }

    /** SIGKILL to the server on {@code port} (embedded set-ups only). */
    public void kill(int port) {
        if (processes == null) {
            throw new IllegalStateException("only an embedded Sentinel set-up can be killed; this one is " + sentinels);
        }
        processes.kill(port);
    }

    /** Starts a killed server again; an old master comes back as a replica once the sentinels see it. */
    public void restart(int port) {
        if (processes == null) {
            throw new IllegalStateException("only an embedded Sentinel set-up can be restarted; this one is " + sentinels);
        }
        processes.restart(port);
    }

    @Override
    public void close() {
        if (processes != null) {
            processes.close();
        }
    }
}
