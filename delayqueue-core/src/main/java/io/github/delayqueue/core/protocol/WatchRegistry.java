package io.github.delayqueue.core.protocol;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.ScoredEntry;

/**
 * The Redis side of the instances taking turns at checking idle queues: the registry of instances and the queues each
 * consumes (watch.lua, keys {@code <prefix>:{~watch}:instances} and {@code :targets}), and the reads of a turn (the
 * head of a queue's delayed and in-flight sets, whether it is paused), pipelined in one round trip.
 */
public final class WatchRegistry {

    private final Scripts scripts;
    private final RedissonClient redisson;
    private final List<Object> keys;

    public WatchRegistry(RedissonClient redisson, Scripts scripts, String keyPrefix) {
        this.redisson = redisson;
        this.scripts = scripts;
        String base = keyPrefix + ":{~watch}:";
        this.keys = List.of(base + "instances", base + "targets");
    }

    /** The registry's keys (instances, targets). */
    public List<Object> keys() {
        return keys;
    }

    /**
     * One beat of watch.lua: what the registry says after an instance registered (or left). {@code ids} are the
     * instances registered, in no particular order; {@code generation} changes whenever one came, went or changed its
     * queues; {@code clockReadAtNanos} is when (System.nanoTime) the server about read its clock.
     */
    public record Beat(long serverNowMicros, long clockReadAtNanos, long generation, List<String> ids) {
    }

    /** Registers {@code id} for {@code ttlMs} with the queues it consumes (their delayed keys). */
    public Beat beat(String id, long ttlMs, List<String> targets) {
        long sent = System.nanoTime();
        List<Object> out = scripts.list(Scripts.Name.WATCH, keys, "beat", id, Long.toString(ttlMs), String.join("\n", targets));
        return read(out, sent, System.nanoTime());
    }

    /**
     * Removes {@code id} from the registry (a stopping instance), waiting at most a second: its turns pass to the others
     * at their next beat. If it fails or takes longer, the registration lapses.
     */
    public void leave(String id) {
        try {
            scripts.listAsync(Scripts.Name.WATCH, keys, "leave", id).toCompletableFuture().get(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // it lapses
        }
    }

    private static Beat read(List<Object> out, long sent, long received) {
        long micros = Long.parseLong(out.get(0).toString());
        long generation = Long.parseLong(out.get(1).toString());
        List<String> ids = new ArrayList<>(out.size() - 2);
        for (int i = 2; i < out.size(); i++) {
            ids.add(out.get(i).toString());
        }
        return new Beat(micros, received - (received - sent) / 2, generation, ids);
    }

    /** The queues (delayed keys) each of {@code ids} consumes, as registered; an id without a list has none. */
    public Map<String, List<String>> targetsOf(List<String> ids) {
        Map<String, List<String>> targets = new HashMap<>();
        if (ids.isEmpty()) {
            return targets;
        }
        Map<String, String> lists = redisson.<String, String>getMap((String) keys.get(1), StringCodec.INSTANCE)
                .getAll(new HashSet<>(ids)); // HMGET
        for (String id : ids) {
            String list = lists.get(id);
            targets.put(id, list == null || list.isEmpty() ? List.of() : Arrays.asList(list.split("\n")));
        }
        return targets;
    }

    /** What a turn reads of one queue (partition): always its delayed head, its lease head and pause mark if asked. */
    public record Probe(QueueKeys queue, boolean leases, boolean paused) {
    }

    /**
     * What a turn found: the earliest due time in delayed and lease deadline in flight (ms, Redis clock; -1 when the
     * set is empty or was not read), and whether the queue is paused (false when not read).
     */
    public record Heads(long dueMs, long leaseMs, boolean paused) {
    }

    /** Reads the probes in one pipelined round trip (per shard on a cluster); the heads in the probes' order. */
    public List<Heads> probe(List<Probe> probes) {
        RBatch batch = redisson.createBatch(org.redisson.api.BatchOptions.defaults());
        List<RFuture<? extends Collection<ScoredEntry<String>>>> due = new ArrayList<>(probes.size());
        List<RFuture<Integer>> marks = new ArrayList<>(probes.size());
        List<@Nullable RFuture<? extends Collection<ScoredEntry<String>>>> leases = new ArrayList<>(probes.size());
        List<@Nullable RFuture<Boolean>> paused = new ArrayList<>(probes.size());
        for (Probe probe : probes) {
            List<Object> k = probe.queue().keys();
            // delayed's head past the priorities' markers (scored -inf, includes/priorities.lua: a score Redisson cannot
            // read back), and how many markers there are: a marked queue may hold prioritized messages due in sets
            // of their own, which this turn does not read, so it reads as due now and its consumer claims
            var delayed = batch.<String>getScoredSortedSet((String) k.get(1), StringCodec.INSTANCE);
            due.add(delayed.entryRangeAsync(Double.NEGATIVE_INFINITY, false, Double.POSITIVE_INFINITY, true, 0, 1));
            marks.add(delayed.countAsync(Double.NEGATIVE_INFINITY, true, Double.NEGATIVE_INFINITY, true));
            leases.add(probe.leases()
                    ? batch.<String>getScoredSortedSet((String) k.get(2), StringCodec.INSTANCE).entryRangeAsync(0, 0)
                    : null);
            paused.add(probe.paused()
                    ? batch.<String, String>getMap((String) k.get(9), StringCodec.INSTANCE).containsKeyAsync("since")
                    : null);
        }
        batch.execute();
        List<Heads> heads = new ArrayList<>(probes.size());
        for (int i = 0; i < probes.size(); i++) {
            RFuture<? extends Collection<ScoredEntry<String>>> lease = leases.get(i);
            RFuture<Boolean> pause = paused.get(i);
            Integer marked = done(marks.get(i));
            heads.add(new Heads(marked != null && marked > 0 ? 0 : head(done(due.get(i))), lease == null ? -1 : head(done(lease)),
                    pause != null && Boolean.TRUE.equals(done(pause))));
        }
        return heads;
    }

    /** The value of a command of the executed batch (complete: execute() waited for every one). */
    private static <T> @Nullable T done(RFuture<T> future) {
        return future.toCompletableFuture().join();
    }

    /** The score of the first entry (a due time or deadline in ms), -1 for none or one no script writes. */
    private static long head(@Nullable Collection<ScoredEntry<String>> entries) {
        if (entries == null || entries.isEmpty()) {
            return -1;
        }
        double score = entries.iterator().next().getScore();
        // a score no script writes (fractional, infinite, negative) reads as due now: the claim deals with it
        return score >= 0 && score < 0x1p53 && score == Math.rint(score) ? (long) score : 0;
    }
}
