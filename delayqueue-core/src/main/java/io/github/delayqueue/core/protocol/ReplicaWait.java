package io.github.delayqueue.core.protocol;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.NotReplicatedException;

/**
 * Whether the sends of one queue partition wait for replicas ({@link ClientOptions#waitForReplicas()}), and, when
 * replicas are not {@linkplain ClientOptions#replicasRequired() required}, whether the partition's master has replicas
 * that acknowledge. Then sends wait only once a probe ({@code WAIT} after a read, a call of its own started by a send
 * or the warm-up, off every send's path) found the replicas: a master without a replica (a standalone Redis) never
 * makes a send wait, and an ACL that denies {@code WAIT} never fails one. A send whose replicas did not acknowledge it
 * in time returns (it was written on the master), and later sends stop waiting, so a replica that is lost costs the
 * sends under way the timeout once. While sends do not wait, the probe asks again a second after a miss, then at most
 * every {@value #MAX_PROBE_SECONDS} s.
 */
final class ReplicaWait {

    /** The client's logger, where its other send warnings go (this package may not name the entry point). */
    private static final Logger log = LoggerFactory.getLogger("io.github.delayqueue.core.DelayQueueClient");

    static final long FIRST_PROBE_SECONDS = 1;
    static final long MAX_PROBE_SECONDS = 8;

    private final String queue;
    private final int replicas;
    private final Duration timeout;
    private final boolean required;

    /** Whether sends wait (always, when replicas are required). */
    private volatile boolean waiting;
    private final AtomicBoolean probing = new AtomicBoolean();
    private volatile long nextProbeNanos;
    private volatile long probeIntervalNanos = TimeUnit.SECONDS.toNanos(FIRST_PROBE_SECONDS);
    private volatile boolean deniedLogged;
    /** Whether sends stopped waiting after a miss (warned): the probe that finds the replicas again says so at INFO. */
    private volatile boolean missed;

    ReplicaWait(String queue, int replicas, Duration timeout, boolean required) {
        this.queue = queue;
        this.replicas = replicas;
        this.timeout = timeout;
        this.required = required;
        this.waiting = replicas > 0 && required;
        this.nextProbeNanos = System.nanoTime();
    }

    static ReplicaWait none(String queue) {
        return new ReplicaWait(queue, 0, Duration.ZERO, true);
    }

    int replicas() {
        return replicas;
    }

    Duration timeout() {
        return timeout;
    }

    /** Whether the next send waits for replicas. */
    boolean waits() {
        return waiting;
    }

    /** Whether a send that {@code acknowledged} replicas acknowledged must throw {@link NotReplicatedException}. */
    boolean failed(int acknowledged) {
        if (acknowledged >= replicas) {
            return false;
        }
        if (required) {
            return true;
        }
        if (waiting) {
            waiting = false;
            missed = true;
            nextProbeNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(FIRST_PROBE_SECONDS);
            probeIntervalNanos = TimeUnit.SECONDS.toNanos(FIRST_PROBE_SECONDS);
            log.warn("Queue '{}': {} of {} replicas of its Redis master acknowledged a send within {} ms; sends do not "
                    + "wait for replicas until they acknowledge again (a failover before they catch up loses what was "
                    + "sent meanwhile)", queue, acknowledged, replicas, timeout.toMillis());
        }
        return false;
    }

    /**
     * After a send that did not wait: starts {@code probe} (replicas that acknowledged a WAIT of its own) when one is
     * due and none is under way.
     */
    void probeIfDue(Supplier<CompletionStage<Integer>> probe) {
        if (replicas == 0 || waiting || System.nanoTime() - nextProbeNanos < 0 || !probing.compareAndSet(false, true)) {
            return;
        }
        CompletionStage<Integer> asked;
        try {
            asked = probe.get();
        } catch (RuntimeException e) {
            probed(0);
            return;
        }
        asked.whenComplete((acknowledged, error) -> {
            if (error != null && !deniedLogged && String.valueOf(error.getMessage()).contains("NOPERM")) {
                deniedLogged = true;
                log.warn("Queue '{}': the Redis ACL denies WAIT, so sends do not wait for replicas and a failover can "
                        + "lose sends that returned; allow +wait (see docs/internals/redis-layout.md): {}", queue, error.toString());
            }
            probed(error == null ? acknowledged : 0);
        });
    }

    private void probed(int acknowledged) {
        try {
            if (acknowledged >= replicas) {
                waiting = true;
                if (missed) {
                    missed = false;
                    log.info("Queue '{}': {} replicas of its Redis master acknowledge again; sends wait for them", queue,
                            acknowledged);
                }
            } else {
                long interval = probeIntervalNanos;
                nextProbeNanos = System.nanoTime() + interval;
                probeIntervalNanos = Math.min(interval * 2, TimeUnit.SECONDS.toNanos(MAX_PROBE_SECONDS));
            }
        } finally {
            probing.set(false);
        }
    }
}
