package io.github.delayqueue.core.migration;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.redisson.api.RBucket;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.ImportInProgressException;
import io.github.delayqueue.core.engine.Threads;

/**
 * The lease that lets one {@code RDelayedQueueImporter} run at a time per key prefix: a string key
 * {@code <prefix>:rdelayedqueue-import} holding the holder's token (random, with its host, process and start time),
 * set only if absent and with an expiry ({@code SET NX PX}), renewed every third of that expiry by a named daemon
 * thread while the run goes on, and deleted when it ends; both only while the key still holds this holder's token.
 * A holder that dies (kill -9) leaves a key that expires by itself. A renewal that finds the key gone or another
 * token marks the lease lost, and the run stops before its next write ({@link #check()}).
 */
public final class ImportLease implements AutoCloseable {

    /** How long a lease lasts without renewal. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(30);

    private static final Duration POLL = Duration.ofMillis(200);

    private static final Logger log = LoggerFactory.getLogger(ImportLease.class);

    /** Sets the expiry only if the key still holds this token. */
    private static final String RENEW = """
            if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
            return 0
            """;

    /** Deletes the key only if it still holds this token. */
    private static final String RELEASE = """
            if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
            return 0
            """;

    private final RedissonClient redisson;
    private final String key;
    private final String token;
    private final Duration ttl;
    private final ScheduledExecutorService renewer;
    private volatile boolean lost;

    private ImportLease(RedissonClient redisson, String key, String token, Duration ttl) {
        this.redisson = redisson;
        this.key = key;
        this.token = token;
        this.ttl = ttl;
        this.renewer = Executors.newSingleThreadScheduledExecutor(Threads.named("delayqueue-import-lease"));
        long every = Math.max(1, ttl.toMillis() / 3);
        this.renewer.scheduleWithFixedDelay(this::renew, every, every, TimeUnit.MILLISECONDS);
    }

    public static String key(String keyPrefix) {
        return keyPrefix + ":rdelayedqueue-import";
    }

    /**
     * Takes the lease, waiting up to {@code maxWait} for another holder to release it (or for its lease to expire).
     *
     * @throws ImportInProgressException if another holder still has it after {@code maxWait}
     */
    public static ImportLease acquire(RedissonClient redisson, String key, String what, Duration ttl, Duration maxWait) {
        String token = UUID.randomUUID() + " " + what + " by " + ManagementFactory.getRuntimeMXBean().getName()
                + " since " + Instant.now();
        RBucket<String> bucket = redisson.getBucket(key, StringCodec.INSTANCE);
        long deadline = System.nanoTime() + maxWait.toNanos();
        while (true) {
            if (bucket.setIfAbsent(token, ttl)) {
                return new ImportLease(redisson, key, token, ttl);
            }
            if (System.nanoTime() - deadline >= 0) {
                String holder = bucket.get();
                long left = bucket.remainTimeToLive();
                throw new ImportInProgressException("Another RDelayedQueue import holds the import lease " + key
                        + (holder == null ? "" : " (" + holder.substring(holder.indexOf(' ') + 1) + ")")
                        + (left > 0 ? ", " + left + " ms left unless renewed" : "") + ": imports under one key prefix "
                        + "run one at a time, so this one read and wrote nothing"
                        + (maxWait.isZero() ? "" : " in the " + maxWait + " it waited")
                        + ". Run it again once the other has ended, or let it wait with waitForOtherImport(Duration)");
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ImportInProgressException("Interrupted while waiting for the import lease " + key);
            }
        }
    }

    private void renew() {
        try {
            Long renewed = this.redisson.getScript(StringCodec.INSTANCE).eval(this.key, RScript.Mode.READ_WRITE, RENEW,
                    RScript.ReturnType.LONG, List.of(this.key), this.token, String.valueOf(this.ttl.toMillis()));
            if (renewed == null || renewed == 0) {
                this.lost = true;
                log.warn("The RDelayedQueue import lease {} was lost (expired or taken over): the import stops "
                        + "before its next write", this.key);
                this.renewer.shutdown();
            }
        } catch (RuntimeException e) {
            // Redis unreachable: tried again at the next tick; the run's own writes fail meanwhile
            Threads.loopFailed(log, e, "Could not renew the RDelayedQueue import lease {}: {}", this.key);
        }
    }

    /**
     * @throws DelayQueueException if the lease was lost: another import may be running, so this one must not write
     */
    public void check() {
        if (this.lost) {
            throw new DelayQueueException("The RDelayedQueue import lease " + this.key + " was lost (it expired "
                    + "without renewal, for example during a long pause of this JVM, or was taken over): this import "
                    + "stopped before its next write; run it again", null);
        }
    }

    @Override
    public void close() {
        this.renewer.shutdownNow();
        try {
            this.redisson.getScript(StringCodec.INSTANCE).eval(this.key, RScript.Mode.READ_WRITE, RELEASE,
                    RScript.ReturnType.LONG, List.of(this.key), this.token);
        } catch (RuntimeException e) {
            log.warn("Could not release the RDelayedQueue import lease {} (it expires by itself): {}", this.key,
                    e.toString());
        }
    }
}
