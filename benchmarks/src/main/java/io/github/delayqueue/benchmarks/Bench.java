package io.github.delayqueue.benchmarks;

import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * What one benchmark run shares: the Redis (embedded or external), two Redisson clients standing for
 * a producer application and a consumer application (both engines use the same two), a measuring
 * connection, and the Redis clock.
 */
final class Bench implements AutoCloseable {

    final Settings settings;
    final String url;
    final boolean embedded;
    final RedissonClient producer;
    final RedissonClient consumer;
    final Resp resp;
    final RedisClock clock;
    private final @Nullable EmbeddedRedis server;

    /** False in the before side's Bench: the clients are the run's, shut down by its own Bench. */
    private final boolean ownsClients;

    Bench(Settings settings) {
        this.settings = settings;
        String configured = settings.get("redis-url");
        if (configured.isBlank()) {
            configured = System.getProperty("DELAYQUEUE_REDIS_URL", System.getenv("DELAYQUEUE_REDIS_URL"));
        }
        if (configured == null || configured.isBlank() || configured.trim().equals("embedded")) {
            server = new EmbeddedRedis();
            url = server.url();
            embedded = true;
        } else {
            server = null;
            url = configured.trim();
            embedded = false;
        }
        ownsClients = true;
        try {
            resp = new Resp(url);
            producer = client();
            consumer = client();
            clock = RedisClock.sample(resp);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * The before side's Bench ({@link BeforeEngine}, in the before class loader): the run's Redis, its two Redisson
     * clients (Redisson is the parent loader's, one class in both) and its Redis clock, and a measuring connection of
     * its own; {@link #close} closes that connection only.
     */
    Bench(Settings settings, String url, boolean embedded, RedissonClient producer, RedissonClient consumer,
            RedisClock clock) {
        this.settings = settings;
        this.url = url;
        this.embedded = embedded;
        this.server = null;
        this.ownsClients = false;
        this.producer = producer;
        this.consumer = consumer;
        this.clock = clock;
        this.resp = new Resp(url);
    }

    /** A Redisson client like the producer's and the consumer's (consumers-4 makes one per instance); the caller shuts it down. */
    RedissonClient client() {
        int blocking = settings.integer("redisson-consumers");
        // enqueue-rate-32's senders each hold a connection while their call is under way
        int producers = Math.max(32, Math.max(settings.integer("threads"), settings.integer("e2e-producers")));
        Config config = new Config();
        config.setThreads(4);
        config.setNettyThreads(8);
        config.useSingleServer().setAddress(url).setConnectionMinimumIdleSize(4)
                .setConnectionPoolSize(Math.max(32, 2 * (blocking + producers))).setSubscriptionConnectionMinimumIdleSize(1)
                .setTimeout(30_000);
        return Redisson.create(config);
    }

    /** CPU used from now on by this JVM (both engines' clients and handlers) and by the Redis server. */
    CpuMeter cpu() {
        return new CpuMeter();
    }

    final class CpuMeter {
        private final long jvm0 = jvmCpuNanos();
        private final double redis0 = redisCpuSeconds();

        /** Adds {@code <prefix>jvm_cpu_s} and {@code <prefix>redis_cpu_s} (CPU seconds since this meter was made) to a DETAIL line. */
        Side.Measure addTo(Side.Measure m, String prefix) {
            return m.with(prefix + "jvm_cpu_s", (jvmCpuNanos() - jvm0) / 1e9)
                    .with(prefix + "redis_cpu_s", redisCpuSeconds() - redis0);
        }
    }

    private static long jvmCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
    }

    private double redisCpuSeconds() {
        java.util.Map<String, String> cpu = resp.info("cpu");
        return Double.parseDouble(cpu.get("used_cpu_sys")) + Double.parseDouble(cpu.get("used_cpu_user"));
    }

    /**
     * Heap used (bytes) after a collection: {@code System.gc()} twice (the second collects what the first's
     * finalization and reference processing freed), then the memory pool's used figure.
     */
    static long heapUsedAfterGc() throws InterruptedException {
        for (int i = 0; i < 2; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    long usedMemory() {
        return Long.parseLong(resp.info("memory").get("used_memory"));
    }

    String redisVersion() {
        return resp.info("server").get("redis_version");
    }

    @Override
    public void close() {
        if (producer != null && ownsClients) {
            producer.shutdown();
        }
        if (consumer != null && ownsClients) {
            consumer.shutdown();
        }
        if (resp != null) {
            resp.close();
        }
        if (server != null) {
            server.close();
        }
    }
}
