package io.github.delayqueue.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

/**
 * A Redis Cluster for tests: the one named by {@code DELAYQUEUE_REDIS_CLUSTER_NODES} ({@code host:port,host:port,...}),
 * or else 3 masters with a replica each, started from the bundled Redis 6.2 binary on free ports
 * ({@link RedisProcesses}), {@code cluster-node-timeout} as given (2 s for {@link #shared()}). Only an embedded cluster
 * may be {@link #kill killed} or failed over.
 */
public final class TestCluster implements AutoCloseable {

    /** Environment variable (or system property) naming an external cluster for the tests. */
    public static final String NODES_VARIABLE = "DELAYQUEUE_REDIS_CLUSTER_NODES";

    private static @Nullable TestCluster shared;

    private final List<String> nodes;
    private final @Nullable RedisProcesses processes;

    private TestCluster(List<String> nodes, @Nullable RedisProcesses processes) {
        this.nodes = nodes;
        this.processes = processes;
    }

    /** The external cluster, or one embedded cluster per JVM (node timeout 2 s), stopped when the JVM exits. */
    public static synchronized TestCluster shared() {
        if (shared == null) {
            String configured = System.getProperty(NODES_VARIABLE, System.getenv(NODES_VARIABLE));
            shared = configured != null && !configured.isBlank()
                    ? new TestCluster(Arrays.stream(configured.split(",")).map(String::trim).toList(), null)
                    : startEmbedded(2_000);
        }
        return shared;
    }

    /** Whether {@link #shared()} is (or would be) an embedded cluster, which tests may kill nodes of. */
    public static boolean externalConfigured() {
        String configured = System.getProperty(NODES_VARIABLE, System.getenv(NODES_VARIABLE));
        return configured != null && !configured.isBlank();
    }

    /** Starts an embedded cluster of 3 masters and 3 replicas of its own; the caller closes it. */
    public static TestCluster startEmbedded(int nodeTimeoutMs) {
        RedisProcesses processes = new RedisProcesses();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                int port = TestRedis.freePort(10_000); // its cluster bus listens on port + 10000
                ports.add(port);
                processes.start(port, false, "cluster-enabled yes", "cluster-config-file nodes-" + port + ".conf",
                        "cluster-node-timeout " + nodeTimeoutMs, "cluster-replica-validity-factor 0",
                        "repl-diskless-sync yes", "repl-diskless-sync-delay 0");
            }
            for (int port : ports.subList(1, 6)) {
                RedisProcesses.call(ports.get(0), "CLUSTER", "MEET", "127.0.0.1", Integer.toString(port));
            }
            int[][] ranges = {{0, 5460}, {5461, 10922}, {10923, 16383}};
            for (int m = 0; m < 3; m++) {
                List<String> args = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
                for (int slot = ranges[m][0]; slot <= ranges[m][1]; slot++) {
                    args.add(Integer.toString(slot));
                }
                RedisProcesses.call(ports.get(m), args.toArray(String[]::new));
            }
            for (int port : ports) {
                RedisProcesses.await("node " + port + " knows all 6", Duration.ofSeconds(20),
                        () -> nodeLines(port).size() == 6 && nodeLines(port).stream().noneMatch(l -> l.contains("handshake")));
            }
            for (int r = 0; r < 3; r++) {
                String masterId = (String) RedisProcesses.call(ports.get(r), "CLUSTER", "MYID");
                RedisProcesses.call(ports.get(3 + r), "CLUSTER", "REPLICATE", masterId);
            }
            for (int port : ports) {
                RedisProcesses.await("cluster state ok on " + port, Duration.ofSeconds(30),
                        () -> String.valueOf(RedisProcesses.call(port, "CLUSTER", "INFO")).contains("cluster_state:ok"));
            }
            for (int port : ports.subList(3, 6)) {
                RedisProcesses.await("replica " + port + " in sync", Duration.ofSeconds(30),
                        () -> String.valueOf(RedisProcesses.call(port, "INFO", "replication")).contains("master_link_status:up"));
            }
            for (int port : ports.subList(0, 3)) { // every node sees the replicas as such
                RedisProcesses.await("node " + port + " sees 3 replicas", Duration.ofSeconds(20),
                        () -> nodeLines(port).stream().filter(l -> l.split(" ")[2].contains("slave")).count() == 3);
            }
            return new TestCluster(ports.stream().map(p -> "127.0.0.1:" + p).toList(), processes);
        } catch (RuntimeException e) {
            processes.close();
            throw e;
        }
    }

    /** {@code host:port} of the seed nodes. */
    public List<String> nodes() {
        return nodes;
    }

    public boolean isEmbedded() {
        return processes != null;
    }

    /**
     * A new client on this cluster (4 threads, 8 Netty threads, 5 s timeout, reads from the masters, {@code tune}
     * last); the caller shuts it down. Reads from the masters because tests read keys straight after a script wrote
     * them: with Redisson's default ({@code ReadMode.SLAVE}) such a read went to a replica that had not yet received
     * the write ({@code DedupWindowPartitionedOnClusterTest.aCancelledIdIsNotRemembered} saw the window a cancel had
     * just deleted, on a loaded machine). The engine's own reads are scripts, which Redisson sends to the master.
     */
    public RedissonClient newClient(Consumer<ClusterServersConfig> tune) {
        Config config = new Config();
        config.setThreads(4);
        config.setNettyThreads(8);
        ClusterServersConfig servers = config.useClusterServers().setTimeout(5_000).setMasterConnectionMinimumIdleSize(2)
                .setSlaveConnectionMinimumIdleSize(1).setSubscriptionConnectionMinimumIdleSize(1)
                .setReadMode(ReadMode.MASTER);
        nodes.forEach(node -> servers.addNodeAddress("redis://" + node));
        tune.accept(servers);
        return Redisson.create(config);
    }

    public RedissonClient newClient() {
        return newClient(servers -> {
        });
    }

    /** The port of the master that serves {@code key} now. */
    public int masterPortOf(String key) {
        long slot = -1;
        for (String node : nodes) {
            String[] hp = node.split(":");
            try {
                slot = (Long) RedisProcesses.call(hp[0], Integer.parseInt(hp[1]), "CLUSTER", "KEYSLOT", key);
                break;
            } catch (RuntimeException e) {
                // a killed node: ask the next
            }
        }
        for (String line : liveNodeLines()) {
            String[] f = line.split(" ");
            if (!f[2].contains("master") || f[2].contains("fail")) {
                continue;
            }
            for (int i = 8; i < f.length; i++) {
                if (f[i].startsWith("[")) {
                    continue; // a slot being migrated
                }
                String[] range = f[i].split("-");
                long from = Long.parseLong(range[0]);
                long to = range.length > 1 ? Long.parseLong(range[1]) : from;
                if (slot >= from && slot <= to) {
                    return port(f[1]);
                }
            }
        }
        throw new IllegalStateException("no live master serves slot " + slot);
    }

    /** The port of a replica of the master on {@code masterPort}, as the cluster sees it now. */
    public Optional<Integer> replicaPortOf(int masterPort) {
        List<String> lines = liveNodeLines();
        String masterId = lines.stream().filter(l -> port(l.split(" ")[1]) == masterPort).map(l -> l.split(" ")[0])
                .findFirst().orElseThrow();
        return lines.stream().map(l -> l.split(" ")).filter(f -> f[3].equals(masterId) && !f[2].contains("fail"))
                .map(f -> port(f[1])).findFirst();
    }

    /** SIGKILL to the node on {@code port} (embedded clusters only). */
    public void kill(int port) {
        embedded().kill(port);
    }

    /** Starts a killed node again; an old master that was failed over rejoins as a replica of its successor. */
    public void restart(int port) {
        embedded().restart(port);
    }

    /** {@code CLUSTER FAILOVER} on the replica on {@code replicaPort}: a manual, coordinated failover. */
    public void failover(int replicaPort) {
        embedded();
        RedisProcesses.call(replicaPort, "CLUSTER", "FAILOVER");
    }

    private RedisProcesses embedded() {
        if (processes == null) {
            throw new IllegalStateException("only an embedded cluster can be killed or failed over; this one is " + nodes);
        }
        return processes;
    }

    /** CLUSTER NODES as seen from the first node that answers. */
    private List<String> liveNodeLines() {
        for (String node : nodes) {
            String[] hp = node.split(":");
            try {
                Object out = RedisProcesses.call(hp[0], Integer.parseInt(hp[1]), "CLUSTER", "NODES");
                return lines(out);
            } catch (RuntimeException e) {
                // a killed node: ask the next
            }
        }
        throw new IllegalStateException("no node of " + nodes + " answers");
    }

    private static List<String> nodeLines(int port) {
        return lines(RedisProcesses.call(port, "CLUSTER", "NODES"));
    }

    private static List<String> lines(@Nullable Object out) {
        return Arrays.stream(String.valueOf(out).split("\n")).map(String::trim).filter(l -> !l.isEmpty()).toList();
    }

    /** The port of {@code ip:port@busport}. */
    private static int port(String address) {
        String hostPort = address.split("@")[0];
        return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
    }

    @Override
    public void close() {
        if (processes != null) {
            processes.close();
        }
    }
}
