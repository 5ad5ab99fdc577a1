package io.github.delayqueue.core.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.WatchRegistry;

/**
 * The instances consuming a queue take turns checking it for work that no wake-up announced, so that an idle queue
 * costs Redis about one read per {@code maxPollInterval} however many instances consume it. One per client, on the
 * shared thread {@code delayqueue-watch-N}, while the client has running consumers.
 *
 * <p>Each instance registers in Redis every {@link #BEAT_MS} with the queues (partitions) it consumes
 * ({@link WatchRegistry}); a registration lapses after {@link #TTL_MS} unless renewed, and a stopping instance leaves at
 * once. Time is cut into turns of the queue's {@code maxPollInterval} on the Redis clock; turn {@code k} of a queue
 * belongs to one of the instances consuming it, in rotation ({@link #owner}). The owner of a turn reads the head of
 * the queue's delayed set (and every {@code visibilityTimeout / 2} the head of its leases, and whether it is paused
 * when its consumer found it paused) and wakes its own consumer when something is due before the next turn; the
 * consumer then claims as after a wake-up. Every {@link #PERIODIC_TURNS} turns one instance, in rotation too, has its
 * consumer run the periodic pass (the flow view's limits, the groups' marker) and a claim with housekeeping. An instance
 * that read a lease deadline reads the leases again when it passes, turn or not: a stopped instance's leases are found
 * when they expire.
 *
 * <p>Meanwhile a consumer whose wake-up subscription works sleeps until the next event it knows of (at most
 * {@link #COVERED_SLEEP_MS}); one whose subscription failed, or any consumer while this watch cannot reach Redis,
 * claims on its own every {@code maxPollInterval} as without the watch ({@link #covers}).
 */
final class Watch {

    private static final Logger log = LoggerFactory.getLogger(DelayQueueConsumer.class);
    /** How often an instance renews its registration (and reads the others'). */
    static final long BEAT_MS = 5_000;
    /** How long a registration lasts unless renewed: an instance that stopped without leaving keeps its turns this long. */
    static final long TTL_MS = 3 * BEAT_MS;
    /** Every this many turns of a queue, one instance's consumer runs the periodic pass and a housekeeping claim. */
    static final int PERIODIC_TURNS = 30;
    /** The longest the watch thread sleeps between turns (it reads no Redis when no turn or beat is due). */
    static final long IDLE_CHECK_MS = 100;
    /** The longest a covered consumer sleeps on its own: a last resort should every turn be missed. */
    static final long COVERED_SLEEP_MS = TimeUnit.HOURS.toMillis(1);

    private final WatchRegistry registry;
    private final String id = UUID.randomUUID().toString();
    /** The queues (partitions) this client consumes, by delayed key. */
    private final Map<String, Target> targets = new ConcurrentHashMap<>();
    private volatile boolean targetsChanged;
    private volatile boolean healthy;
    private volatile @Nullable ScheduledExecutorService executor;

    // the watch thread's state: one thread at a time, but a client whose consumers stop and start again runs its next
    // passes on a new thread, so it is volatile
    private volatile boolean beaten;
    private volatile long beatAtNanos;
    private volatile long serverMicrosAtBeat;
    private volatile long clockReadAtNanos;
    private volatile long generation = -1;
    /** The instances consuming each queue, by delayed key, sorted: as the registry said at the last beat. */
    private volatile Map<String, List<String>> consumers = Map.of();
    private volatile int failures;

    Watch(WatchRegistry registry) {
        this.registry = registry;
    }

    /** One queue (partition) this client consumes, with its local consumers' pollers. */
    private static final class Target {
        final QueueKeys keys;
        final String key;
        final List<Poller> pollers = new CopyOnWriteArrayList<>();
        volatile long intervalMs;
        volatile long leaseMs;
        volatile long lastTurn = Long.MIN_VALUE;
        /** When the earliest lease deadline read passes (ms, Redis clock): the leases are read again then. */
        volatile long leaseFollowUpMs = Long.MAX_VALUE;

        Target(QueueKeys keys) {
            this.keys = keys;
            this.key = (String) keys.keys().get(1);
        }

        void sizes() {
            long interval = Long.MAX_VALUE;
            long lease = Long.MAX_VALUE;
            for (Poller poller : pollers) {
                interval = Math.min(interval, poller.intervalMs());
                lease = Math.min(lease, poller.leaseMs());
            }
            intervalMs = Math.max(1, interval);
            leaseMs = Math.max(1, lease);
        }
    }

    /** Whether consumers may sleep past their {@code maxPollInterval}: the last turn's reads and beat succeeded. */
    boolean covers() {
        return healthy;
    }

    /** A consumer's poller starts: its queue joins this instance's registration at the next turn. */
    void register(QueueKeys keys, Poller poller) {
        // in one compute, as unregister: a target emptied meanwhile by another poller's unregister is not left orphaned
        targets.compute((String) keys.keys().get(1), (k, target) -> {
            Target joined = target == null ? new Target(keys) : target;
            joined.pollers.add(poller);
            joined.sizes();
            return joined;
        });
        targetsChanged = true;
    }

    /** A consumer's poller stopped. */
    void unregister(QueueKeys keys, Poller poller) {
        String key = (String) keys.keys().get(1);
        targets.computeIfPresent(key, (k, target) -> {
            target.pollers.remove(poller);
            target.sizes();
            return target.pollers.isEmpty() ? null : target;
        });
        targetsChanged = true;
    }

    /** Starts the turns on {@code executor} (the client's first consumer started). */
    synchronized void start(ScheduledExecutorService executor) {
        this.executor = executor;
        beaten = false;
        generation = -1;
        schedule(executor, 0);
    }

    /**
     * Stops the turns, waits (at most 2 s) for a pass under way to end, then leaves the registry (the client's last
     * consumer stopped): the other instances take this one's turns at their next beat. A pass cannot beat again after
     * the leave, so nothing stays registered.
     */
    void stop(ScheduledExecutorService on) {
        synchronized (this) {
            executor = null;
        }
        on.shutdownNow();
        try {
            on.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        boolean wasHealthy = healthy;
        healthy = false;
        if (wasHealthy || beaten) {
            try {
                registry.leave(id);
            } catch (RuntimeException e) {
                log.debug("Could not leave the registry of idle-queue turns (it lapses in {} ms): {}", TTL_MS, e.toString());
            }
        }
    }

    private void schedule(ScheduledExecutorService on, long delayMs) {
        try {
            on.schedule(this::run, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // stopped meanwhile
        }
    }

    private void run() {
        ScheduledExecutorService on = executor;
        if (on == null) {
            return;
        }
        long delayMs;
        try {
            if (!beaten || targetsChanged || System.nanoTime() - beatAtNanos >= TimeUnit.MILLISECONDS.toNanos(BEAT_MS)) {
                beat();
            }
            turn();
            if (failures > 0) {
                log.info("Turns at checking idle queues work again after {} failures", failures);
            }
            failures = 0;
            healthy = true;
            delayMs = untilNextTurnMs();
        } catch (RuntimeException e) {
            if (executor != on || Thread.currentThread().isInterrupted()) {
                return; // stopped meanwhile (the last consumer stopped, or the client shuts down): not a failure
            }
            failures++;
            boolean was = healthy;
            healthy = false;
            if (was) {
                wakeAll(); // each consumer claims on its own again until the turns work
            }
            if (failures == 1 || failures % 20 == 0) {
                Threads.loopFailed(log, e, "Turns at checking idle queues failed ({} in a row); each consumer polls on "
                        + "its own meanwhile: {}", failures);
            }
            delayMs = Math.min(BEAT_MS, 250L << Math.min(failures, 5));
        } catch (Error e) {
            healthy = false;
            wakeAll();
            throw e;
        }
        if (executor == on) {
            schedule(on, delayMs);
        }
    }

    /** Renews this instance's registration and reads who consumes which queue when that changed. */
    private void beat() {
        targetsChanged = false; // before reading them: a change meanwhile beats again at the next turn
        List<String> mine = new ArrayList<>(new TreeSet<>(targets.keySet()));
        WatchRegistry.Beat beat = registry.beat(id, TTL_MS, mine);
        serverMicrosAtBeat = beat.serverNowMicros();
        clockReadAtNanos = beat.clockReadAtNanos();
        beatAtNanos = System.nanoTime();
        if (beat.generation() != generation || !beaten) {
            Map<String, List<String>> lists = registry.targetsOf(beat.ids());
            Map<String, List<String>> byQueue = new HashMap<>();
            for (String instance : new TreeSet<>(lists.keySet())) {
                for (String queue : lists.get(instance)) {
                    byQueue.computeIfAbsent(queue, k -> new ArrayList<>()).add(instance);
                }
            }
            consumers = byQueue;
            generation = beat.generation();
        }
        beaten = true;
    }

    /** The Redis clock now (ms), from the last beat's reading and this JVM's monotonic clock since. */
    private long serverNowMs() {
        return (serverMicrosAtBeat + (System.nanoTime() - clockReadAtNanos) / 1_000) / 1_000;
    }

    /** The instances consuming {@code key}, sorted, with this one (registered from its next beat on) included. */
    private List<String> consumersOf(String key) {
        List<String> known = consumers.get(key);
        if (known != null && known.contains(id)) {
            return known;
        }
        Set<String> with = new TreeSet<>(known == null ? List.of() : known);
        with.add(id);
        return new ArrayList<>(with);
    }

    /**
     * Which of {@code instances} (sorted, the same list on every instance) owns turn {@code turn} of the queue whose
     * delayed key is {@code key}: they rotate, each queue starting at another instance, so one instance's turns spread
     * over time and queues.
     */
    static String owner(List<String> instances, String key, long turn) {
        return instances.get((int) Math.floorMod(turn + key.hashCode(), (long) instances.size()));
    }

    /**
     * Which instance has turn {@code turn} of a duty that comes every {@code every} turns (the periodic pass, reading
     * the leases), or null when the duty has no turn then. They rotate too, over the duty's own turns: with the plain
     * rotation, a number of instances that divides {@code every} would give the duty to the same instance each time.
     */
    static @Nullable String dutyOwner(List<String> instances, String key, long turn, long every) {
        long shifted = turn + key.hashCode();
        if (Math.floorMod(shifted, every) != 0) {
            return null;
        }
        return instances.get((int) Math.floorMod(Math.floorDiv(shifted, every) + key.hashCode(), (long) instances.size()));
    }

    /** Which instance runs the periodic pass in turn {@code turn}, or null when it is no periodic turn. */
    static @Nullable String periodicOwner(List<String> instances, String key, long turn) {
        return dutyOwner(instances, key, turn, PERIODIC_TURNS);
    }

    /** This instance's turns now: reads the heads of the queues whose turn it owns, and wakes their consumers. */
    private void turn() {
        long now = serverNowMs();
        List<Target> read = new ArrayList<>();
        List<WatchRegistry.Probe> probes = new ArrayList<>();
        for (Target target : targets.values()) {
            long interval = target.intervalMs;
            long turn = Math.floorDiv(now, interval);
            boolean newTurn = turn != target.lastTurn;
            // a lease deadline read earlier is followed up when it passes, not at the next turn
            boolean followUp = now >= target.leaseFollowUpMs;
            if (!newTurn && !followUp) {
                continue;
            }
            boolean mine = false;
            boolean leases = followUp;
            if (newTurn) {
                target.lastTurn = turn;
                List<String> instances = consumersOf(target.key);
                mine = owner(instances, target.key, turn).equals(id);
                if (id.equals(periodicOwner(instances, target.key, turn))) {
                    target.pollers.forEach(Poller::periodicPass);
                }
                long leaseTurns = Math.max(1, target.leaseMs / 2 / interval);
                leases |= id.equals(dutyOwner(instances, target.key, turn, leaseTurns));
            }
            if (mine || leases) {
                boolean paused = mine && target.pollers.stream().anyMatch(Poller::pausedAtLastClaim);
                probes.add(new WatchRegistry.Probe(target.keys, leases, paused));
                read.add(target);
            }
        }
        if (probes.isEmpty()) {
            return;
        }
        List<WatchRegistry.Heads> heads = registry.probe(probes);
        now = serverNowMs();
        for (int i = 0; i < read.size(); i++) {
            found(read.get(i), probes.get(i), heads.get(i), now);
        }
    }

    /** What a turn read of one queue: its consumers are woken when something is due before the next turn. */
    private static void found(Target target, WatchRegistry.Probe probe, WatchRegistry.Heads heads, long nowMs) {
        long head = heads.dueMs();
        if (probe.leases()) {
            // read again when the earliest lease passes (a claim returns a lease once its deadline is past)
            target.leaseFollowUpMs = heads.leaseMs() < 0 ? Long.MAX_VALUE : heads.leaseMs() + 1;
            if (heads.leaseMs() >= 0 && (head < 0 || heads.leaseMs() < head)) {
                head = heads.leaseMs();
            }
        }
        boolean dueSoon = head >= 0 && head <= nowMs + target.intervalMs;
        boolean resumed = probe.paused() && !heads.paused();
        if (dueSoon || resumed) {
            for (Poller poller : target.pollers) {
                poller.probed(dueSoon ? head : Long.MIN_VALUE, probe.paused(), heads.paused());
            }
        }
    }

    private void wakeAll() {
        for (Target target : targets.values()) {
            target.pollers.forEach(poller -> poller.signal(false));
        }
    }

    /**
     * Until the next turn of any queue (or the next beat), at least 10 ms and at most {@link #IDLE_CHECK_MS}: a queue
     * registered meanwhile is beaten and turned at once, not after the turns or the beat this run planned.
     */
    private long untilNextTurnMs() {
        long now = serverNowMs();
        long next = Math.min(IDLE_CHECK_MS, BEAT_MS - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - beatAtNanos));
        for (Target target : targets.values()) {
            long interval = target.intervalMs;
            next = Math.min(next, (Math.floorDiv(now, interval) + 1) * interval - now);
        }
        return Math.max(10, next + 1);
    }
}
