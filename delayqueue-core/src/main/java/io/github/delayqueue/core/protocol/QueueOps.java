package io.github.delayqueue.core.protocol;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.FlowLimit;
import io.github.delayqueue.core.MessagePage;
import io.github.delayqueue.core.NotReplicatedException;
import io.github.delayqueue.core.QueueFlow;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.core.SendMode;
import io.github.delayqueue.core.history.HistoryPage;
import io.github.delayqueue.core.history.MessageStatus;
import io.github.delayqueue.core.history.RunningMessage;
import io.github.delayqueue.core.history.SettledMessage;

/** The Redis operations of one queue; each is one script call. Arguments are already validated. */
public final class QueueOps {

    /**
     * One claimed delivery. {@code member} is the delayed/in-flight set member, {@code attempt} its fence,
     * {@code dueNanos} its due time on this JVM's {@link System#nanoTime()} scale (the Redis clock carried
     * over by the claim's round trip), so that lateness is measured on the Redis clock; {@code claimedMs} when the
     * claim ran (ms, Redis clock: what a history record says of it).
     */
    public record Claimed(String member, String id, int attempt, long dueMs, String envelope, long dueNanos,
            long claimedMs) {
    }

    /**
     * What a claim returned; {@code nextEventMs} is -1 when nothing is pending or in flight;
     * {@code clockReadAtNanos} when (on {@link System#nanoTime()}) Redis read {@code serverNowMicros}, taken
     * as the middle of the round trip. {@code redelivered}, {@code leaseDead} and {@code badDueDead}: expired
     * leases put back, expired leases dead-lettered on their last attempt, messages with a due time delayqueue
     * never writes dead-lettered. {@code expiredDead} and {@code expiredDropped}: messages past their expiry
     * dead-lettered or deleted instead of claimed. {@code deadTrimmed}: dead letters the housekeeping stage deleted
     * ({@link #DEAD_TRIM} means there may be more), or history records past their age if more of those.
     * {@code historyTrimmed}: history records past their age the housekeeping stage deleted.
     */
    public record ClaimResult(long serverNowMicros, long clockReadAtNanos, long nextEventMs, List<Claimed> messages,
            int redelivered, int leaseDead, int badDueDead, @Nullable FlowLimit throttledBy, int expiredDead,
            int expiredDropped, int deadTrimmed, int historyTrimmed, boolean paused) {

        public ClaimResult(long serverNowMicros, long clockReadAtNanos, long nextEventMs, List<Claimed> messages,
                int redelivered, int leaseDead, int badDueDead, @Nullable FlowLimit throttledBy) {
            this(serverNowMicros, clockReadAtNanos, nextEventMs, messages, redelivered, leaseDead, badDueDead, throttledBy,
                    0, 0, 0, 0, false);
        }

        /** Most dead letters one claim's housekeeping deletes (includes/housekeeping.lua's DEAD_TRIM). */
        public static final int DEAD_TRIM = 100;

        public long serverNowMs() {
            return serverNowMicros / 1000;
        }

        /**
         * Reads claim.lua's reply (its header says what it holds). {@code sent} and {@code received} (nanoTime) frame the
         * call: the server read its clock about half a round trip before the reply arrived.
         */
        static ClaimResult read(List<Object> out, long sent, long received) {
            // the server read its clock about half a round trip before the reply arrived
            long clockReadAt = received - (received - sent) / 2;
            long nowMicros = Long.parseLong(out.get(0).toString());
            String next = out.get(1).toString();
            // "" or "<redelivered>:<lease dead>:<bad due dead>:<expired dead>:<expired dropped>:<dead trimmed>
            // [:<history trimmed>]", claim.lua (a reply without the last field reads as 0 of it)
            String reaped = out.get(2).toString();
            int redelivered = 0;
            int leaseDead = 0;
            int badDueDead = 0;
            int expiredDead = 0;
            int expiredDropped = 0;
            int deadTrimmed = 0;
            int historyTrimmed = 0;
            if (!reaped.isEmpty()) {
                int first = reaped.indexOf(':');
                int second = reaped.indexOf(':', first + 1);
                int third = reaped.indexOf(':', second + 1);
                int fourth = reaped.indexOf(':', third + 1);
                redelivered = Integer.parseInt(reaped, 0, first, 10);
                leaseDead = Integer.parseInt(reaped, first + 1, second, 10);
                badDueDead = Integer.parseInt(reaped, second + 1, third, 10);
                expiredDead = Integer.parseInt(reaped, third + 1, fourth, 10);
                int fifth = reaped.indexOf(':', fourth + 1);
                expiredDropped = Integer.parseInt(reaped, fourth + 1, fifth, 10);
                int sixth = reaped.indexOf(':', fifth + 1);
                deadTrimmed = Integer.parseInt(reaped, fifth + 1, sixth < 0 ? reaped.length() : sixth, 10);
                historyTrimmed = sixth < 0 ? 0 : Integer.parseInt(reaped, sixth + 1, reaped.length(), 10);
            }
            String held = out.get(3).toString(); // a flow limit's letter, or P: the queue is paused
            boolean paused = held.equals("P");
            FlowLimit throttledBy = paused ? null : ClaimLimits.throttledBy(held);
            List<Claimed> claimed = new ArrayList<>((out.size() - 4) / 2);
            for (int i = 4; i + 1 < out.size(); i += 2) {
                String head = out.get(i).toString(); // "<attempt>:<due>:<member>", see claim.lua
                int first = head.indexOf(':');
                int second = head.indexOf(':', first + 1);
                String member = head.substring(second + 1);
                long dueMs = Long.parseLong(head, first + 1, second, 10);
                long dueNanos = clockReadAt - (nowMicros - dueMs * 1000) * 1000;
                claimed.add(new Claimed(member, Envelope.idOf(member), Integer.parseInt(head, 0, first, 10), dueMs,
                        out.get(i + 1).toString(), dueNanos, nowMicros / 1000));
            }
            return new ClaimResult(nowMicros, clockReadAt, next.isEmpty() ? -1 : Long.parseLong(next), claimed,
                    redelivered, leaseDead, badDueDead, throttledBy, expiredDead, expiredDropped, deadTrimmed, historyTrimmed, paused);
        }
    }

    /** How a delivery is settled; {@link #code} is its letter in settle.lua's arguments. */
    public enum SettleOp {
        /** Done: deleted everywhere. */
        ACK('A'),
        /** Failed: back to the delayed set in {@code delayMs}, {@code text} its error. */
        RETRY('R'),
        /** To the dead letters, {@code text} the reason. */
        DEAD('D'),
        /** To the dead letters without a handler run (the payload could not be decoded): {@link #DEAD} in Redis. */
        UNDECODABLE('D'),
        /** Never run (the executor refused it): back at its due time, {@code delayMs} holding it; attempt not counted. */
        HAND_BACK('H'),
        /** The handler asked for it again in {@code delayMs}: not a failure, attempt not counted. */
        LATER('L');

        final char code;

        SettleOp(char code) {
            this.code = code;
        }
    }

    /**
     * One finished delivery to settle, fenced by its member and attempt. {@code noDedupWindow}: its envelope carries no
     * dedup window ({@link Envelope#holdsNoDedupWindow}), so an ack need not look for one to remember. {@code record}:
     * for an ack or a dead letter of a queue that keeps its history ({@link HistoryRecord}), the record to keep, the
     * history keeping the latest {@code keep} (0: no count bound); null otherwise. {@code set}: the job set the message
     * belongs to ({@link Envelope#setOf}), or null: an ack that applies leaves the set its mark (settle.lua's S).
     */
    public record Settlement(SettleOp op, String member, int attempt, long delayMs, @Nullable String text,
            boolean noDedupWindow, @Nullable String record, int keep, @Nullable String set) {

        public Settlement(SettleOp op, String member, int attempt, long delayMs, @Nullable String text,
                boolean noDedupWindow, @Nullable String record, int keep) {
            this(op, member, attempt, delayMs, text, noDedupWindow, record, keep, null);
        }

        /** A settlement that may carry a dedup window (an ack looks it up). */
        public Settlement(SettleOp op, String member, int attempt, long delayMs, @Nullable String text) {
            this(op, member, attempt, delayMs, text, false, null, 0);
        }

        public Settlement(SettleOp op, String member, int attempt, long delayMs, @Nullable String text,
                boolean noDedupWindow) {
            this(op, member, attempt, delayMs, text, noDedupWindow, null, 0);
        }
    }

    /** What a dead-letter script call does with the letters it selects; {@link #arg} is its op in dead.lua's arguments. */
    public enum DeadOp {
        /** Reads them ({@link #listDead}). */
        LIST("list"),
        /** Sends them again ({@link #moveDead}). */
        REQUEUE("requeue"),
        /** Deletes them ({@link #moveDead}). */
        PURGE("purge");

        public final String arg;

        DeadOp(String arg) {
            this.arg = arg;
        }
    }

    /**
     * Most bytes of messages one enqueue script call carries (a single larger message goes alone): 500
     * messages of up to 1 MiB each in one call would hold Redis for seconds, and other consumers' leases
     * with it. {@code DelayQueueClient.sendAll} and the {@link Combiner} both cut their calls here.
     */
    public static final int SCRIPT_BYTES = 1024 * 1024;

    /** Most single sends combined into one script call (as {@code DelayQueueClient.SCRIPT_BATCH}). */
    static final int COMBINED = 500;

    /**
     * Most envelope bytes one claim returns (at least one message is claimed, whatever its size): a claim
     * of a full batch of 1 MiB payloads would otherwise build a 100 MiB reply inside Redis, blocking it
     * for seconds while other consumers' leases run out.
     */
    public static final int CLAIM_BYTES = 1024 * 1024;

    /** Most combined script calls under way at once per queue and mode (see {@link Combiner}). */
    static final int CALLS = 2;

    private final Scripts scripts;
    private final QueueKeys keys;
    /** The keys of the scripts that use flow.lua: {@link QueueKeys#flowKeys()}, made once. */
    private final List<Object> flowKeys;
    private final Combiner keeping = new Combiner(SendMode.IF_ABSENT);
    private final Combiner replacing = new Combiner(SendMode.REPLACE);

    /** Whether each enqueue call waits for replicas, how many and how long; see {@code ClientOptions.waitForReplicas()}. */
    private final ReplicaWait replicaWait;

    public QueueOps(Scripts scripts, QueueKeys keys) {
        this(scripts, keys, ReplicaWait.none(keys.queue()));
    }

    QueueOps(Scripts scripts, QueueKeys keys, ReplicaWait replicaWait) {
        this.scripts = scripts;
        this.keys = keys;
        this.flowKeys = keys.flowKeys();
        this.replicaWait = replicaWait;
    }

    public QueueKeys keys() {
        return keys;
    }

    /**
     * Writes messages; {@code triples} holds id, due ({@link Due#scriptArg()}), body per message. Returns a
     * written flag per message. Single-message sends from concurrent threads are combined into one script
     * call (see {@link Combiner}).
     */
    public List<Object> enqueue(SendMode mode, List<String> triples) {
        if (triples.size() == 3) {
            return (mode == SendMode.REPLACE ? replacing : keeping).send(triples);
        }
        return enqueueNow(mode, triples);
    }

    private List<Object> enqueueNow(SendMode mode, List<String> triples) {
        if (!replicaWait.waits()) {
            List<Object> written = scripts.list(Scripts.Name.ENQUEUE, keys.keys(), enqueueArgs(mode, triples));
            replicaWait.probeIfDue(this::probeReplicas);
            return written;
        }
        try {
            return enqueueAsync(mode, triples).toCompletableFuture().join();
        } catch (CompletionException e) {
            throw unwrap(e);
        }
    }

    /**
     * One enqueue script call; when {@link #replicaWait} waits, followed by WAIT on the same connection, failing with
     * {@link NotReplicatedException} when fewer replicas acknowledged the write in time and replicas are required.
     */
    private CompletionStage<List<Object>> enqueueAsync(SendMode mode, List<String> triples) {
        if (!replicaWait.waits()) {
            CompletionStage<List<Object>> written = scripts.listAsync(Scripts.Name.ENQUEUE, keys.keys(),
                    enqueueArgs(mode, triples));
            replicaWait.probeIfDue(this::probeReplicas);
            return written;
        }
        int replicas = replicaWait.replicas();
        return scripts.listSyncedAsync(Scripts.Name.ENQUEUE, keys.keys(), replicas, replicaWait.timeout(),
                enqueueArgs(mode, triples)).thenApply(synced -> {
                    if (replicaWait.failed(synced.replicas())) {
                        throw new NotReplicatedException("written to queue '" + keys.queue() + "' on the Redis master, but "
                                + synced.replicas() + " of " + replicas + " replicas acknowledged it within "
                                + replicaWait.timeout().toMillis() + " ms: it is lost if that master fails before a replica "
                                + "has it (send it again with the same id and IF_ABSENT to be sure)", replicas,
                                synced.replicas());
                    }
                    return synced.result();
                });
    }

    /**
     * For {@link ReplicaWait}: enqueue.lua with no message (it reads the clock and the head, writes nothing) followed
     * by {@code WAIT} on its connection, whose last write the replicas of a healthy master have acknowledged already or
     * acknowledge at once; completes with the replicas that acknowledged within the timeout. The sends' own script, so
     * it is loaded already: loading another one would block the sender that starts the probe (on a cluster, loading
     * goes to every node, and retries while one is down).
     */
    private CompletionStage<Integer> probeReplicas() {
        return scripts.listSyncedAsync(Scripts.Name.ENQUEUE, keys.keys(), replicaWait.replicas(), replicaWait.timeout(),
                keys.wakeChannel(), modeArg(SendMode.IF_ABSENT)).thenApply(Scripts.Synced::replicas);
    }

    private Object[] enqueueArgs(SendMode mode, List<String> triples) {
        Object[] args = new Object[2 + triples.size()];
        args[0] = keys.wakeChannel();
        args[1] = modeArg(mode);
        for (int i = 0; i < triples.size(); i++) {
            args[2 + i] = triples.get(i);
        }
        return args;
    }

    /**
     * Applies versioned intents with versioned.lua ({@code args} as its ARGV from the third on); with
     * {@link #replicaWait} waiting, followed by WAIT as an enqueue is. Returns one number per intent: 1 applied, 0 nothing
     * to do, -1 superseded.
     */
    public List<Object> applyVersioned(long keepMs, List<String> args) {
        Object[] all = new Object[2 + args.size()];
        all[0] = keys.wakeChannel();
        all[1] = Long.toString(keepMs);
        for (int i = 0; i < args.size(); i++) {
            all[2 + i] = args.get(i);
        }
        if (!replicaWait.waits()) {
            List<Object> applied = scripts.list(Scripts.Name.VERSIONED, keys.versionedKeys(), all);
            replicaWait.probeIfDue(this::probeReplicas);
            return applied;
        }
        int replicas = replicaWait.replicas();
        try {
            return scripts.listSyncedAsync(Scripts.Name.VERSIONED, keys.versionedKeys(), replicas, replicaWait.timeout(),
                    all).thenApply(synced -> {
                        if (replicaWait.failed(synced.replicas())) {
                            throw new NotReplicatedException("written to queue '" + keys.queue() + "' on the Redis master, "
                                    + "but " + synced.replicas() + " of " + replicas + " replicas acknowledged it within "
                                    + replicaWait.timeout().toMillis() + " ms: it is lost if that master fails before a replica "
                                    + "has it (apply the intents again with the same versions to be sure: that writes "
                                    + "nothing twice)", replicas, synced.replicas());
                        }
                        return synced.result();
                    }).toCompletableFuture().join();
        } catch (CompletionException e) {
            throw unwrap(e);
        }
    }

    /**
     * Writes imported messages with import.lua: {@code triples} as for {@link #enqueue}, every due an instant.
     * An id in the import ledger, or live, is not written again. Returns a flag per message: 1 written, 0 not.
     */
    public List<Object> importBatch(List<String> triples) {
        List<Object> withLedger = new ArrayList<>(keys.keys());
        withLedger.add(keys.importLedger());
        Object[] args = new Object[1 + triples.size()];
        args[0] = keys.wakeChannel();
        for (int i = 0; i < triples.size(); i++) {
            args[1 + i] = triples.get(i);
        }
        return scripts.list(Scripts.Name.IMPORT, withLedger, args);
    }

    /** The send mode in enqueue.lua's arguments: {@code "1"} replaces a live message with the same id, {@code "0"} keeps it. */
    public static String modeArg(SendMode mode) {
        return switch (mode) {
            case REPLACE -> "1";
            case IF_ABSENT -> "0";
        };
    }

    public ClaimResult claim(int limit, long leaseMs, int maxAttempts, int reapLimit, long deadRetentionMs, int maxDead) {
        return claim(limit, leaseMs, maxAttempts, reapLimit, deadRetentionMs, maxDead, ClaimLimits.NONE);
    }

    /** A claim within this partition's share of the queue's flow limits ({@link ClaimLimits}). */
    public ClaimResult claim(int limit, long leaseMs, int maxAttempts, int reapLimit, long deadRetentionMs, int maxDead,
            ClaimLimits flow) {
        return claim(limit, leaseMs, maxAttempts, reapLimit, deadRetentionMs, maxDead, flow, false);
    }

    /** A claim that deletes messages past their expiry when {@code dropExpired}, else dead-letters them. */
    public ClaimResult claim(int limit, long leaseMs, int maxAttempts, int reapLimit, long deadRetentionMs, int maxDead,
            ClaimLimits flow, boolean dropExpired) {
        return claim(limit, leaseMs, maxAttempts, reapLimit, deadRetentionMs, maxDead, flow, dropExpired, GroupLimits.NONE);
    }

    /** A claim that also applies limits per group of messages ({@link GroupLimits}, includes/groups.lua). */
    public ClaimResult claim(int limit, long leaseMs, int maxAttempts, int reapLimit, long deadRetentionMs, int maxDead,
            ClaimLimits flow, boolean dropExpired, GroupLimits groupLimits) {
        return claim(limit, leaseMs, maxAttempts, reapLimit, deadRetentionMs, maxDead, flow, dropExpired, groupLimits, true);
    }

    /**
     * A claim that runs the housekeeping stage (includes/housekeeping.lua: dead letters past their retention or count,
     * members scored past any due time) only when {@code housekeeping}: the engine asks about once a second, not on
     * every claim.
     */
    public ClaimResult claim(int limit, long leaseMs, int maxAttempts, int reapLimit, long deadRetentionMs, int maxDead,
            ClaimLimits flow, boolean dropExpired, GroupLimits groupLimits, boolean housekeeping) {
        return claim(limit, leaseMs, maxAttempts, reapLimit, deadRetentionMs, maxDead, flow, dropExpired, groupLimits,
                housekeeping, 0);
    }

    /** A claim whose housekeeping also deletes history records older than {@code historyMs} (0: none). */
    public ClaimResult claim(int limit, long leaseMs, int maxAttempts, int reapLimit, long deadRetentionMs, int maxDead,
            ClaimLimits flow, boolean dropExpired, GroupLimits groupLimits, boolean housekeeping, long historyMs) {
        return claim(limit, leaseMs, maxAttempts, reapLimit, deadRetentionMs, maxDead, flow, dropExpired, groupLimits,
                housekeeping, historyMs, null);
    }

    /**
     * A claim of a consumer that keeps the history when {@code historyInstance} names its instance: each message it
     * dead-letters or drops without a settle has its running record deleted (includes/history.lua's
     * history_drop_running).
     */
    public ClaimResult claim(int limit, long leaseMs, int maxAttempts, int reapLimit, long deadRetentionMs, int maxDead,
            ClaimLimits flow, boolean dropExpired, GroupLimits groupLimits, boolean housekeeping, long historyMs,
            @Nullable String historyInstance) {
        return claim(limit, leaseMs, maxAttempts, reapLimit, deadRetentionMs, maxDead, flow, dropExpired, groupLimits,
                housekeeping, historyMs, historyInstance, 0);
    }

    /**
     * A claim that orders due messages of different priorities (includes/priorities.lua) with {@code agingMs} a level:
     * {@link #STRICT_PRIORITY} for strict priority, 0 for the script's default (one minute).
     */
    public ClaimResult claim(int limit, long leaseMs, int maxAttempts, int reapLimit, long deadRetentionMs, int maxDead,
            ClaimLimits flow, boolean dropExpired, GroupLimits groupLimits, boolean housekeeping, long historyMs,
            @Nullable String historyInstance, long agingMs) {
        long sent = System.nanoTime();
        // the options as one JSON object (includes/claim_state.lua): numbers, and the limits as the strings they are
        // recorded as
        StringBuilder options = new StringBuilder(160).append("{\"n\":").append(limit).append(",\"lease\":").append(leaseMs)
                .append(",\"attempts\":").append(maxAttempts).append(",\"reap\":").append(reapLimit)
                .append(",\"dead_ms\":").append(deadRetentionMs).append(",\"dead_max\":").append(maxDead)
                .append(",\"bytes\":").append(CLAIM_BYTES).append(",\"expired\":\"").append(dropExpired ? "drop" : "dead")
                .append("\",\"house\":").append(housekeeping);
        if (historyMs > 0) {
            options.append(",\"hist_ms\":").append(historyMs);
        }
        if (historyInstance != null) {
            options.append(",\"hist_inst\":").append(HistoryRecord.quoted(historyInstance));
        }
        if (agingMs != 0) {
            options.append(",\"aging\":").append(agingMs);
        }
        if (!flow.equals(ClaimLimits.NONE)) {
            appendStrings(options.append(",\"flow\":"), flow.scriptArgs());
        }
        if (!groupLimits.none()) { // a consumer without group limits passes nothing more
            appendStrings(options.append(",\"group\":"), groupLimits.scriptArgs());
        }
        Object[] args = {options.append('}').toString()};
        List<Object> out = scripts.list(Scripts.Name.CLAIM, flowKeys, args);
        return ClaimResult.read(out, sent, System.nanoTime());
    }

    /** The aging of a claim with strict priority (includes/claim_state.lua). */
    public static final long STRICT_PRIORITY = -1;

    /** {@code ["a","b"]}: the strings are numbers, with nothing to escape. */
    private static void appendStrings(StringBuilder out, String[] values) {
        out.append('[');
        for (int i = 0; i < values.length; i++) {
            out.append(i == 0 ? "\"" : ",\"").append(values[i]).append('"');
        }
        out.append(']');
    }

    /**
     * Deletes the flow limits the claims recorded in this partition's flow hash and their claim counts (flow.lua's
     * {@code limits} and {@code claims}): a consumer without limits runs, and its claims do not read them (that would
     * cost every claim of a queue without limits). A claim with limits records its own again. Also re-marks the
     * groups as {@link #markGroups()} does, and answers as it does.
     */
    public boolean forgetLimits() {
        return scripts.number(Scripts.Name.HOLD, flowKeys, keys.wakeChannel(), "forget-limits") > 0;
    }

    /**
     * Puts the groups' marker back in the delayed set when groups have pending messages (includes/groups.lua's
     * group_mark): an older release's claim deletes it, and grouped messages would then wait for the next write to
     * their groups. Three reads when nothing is to be done; pollers run it now and then, not per claim. Returns whether
     * job-set marks wait in this partition longer than a forward takes (includes/sets.lua: an instance died between a
     * settle and its forward), which the caller then forwards.
     */
    public boolean markGroups() {
        return scripts.number(Scripts.Name.HOLD, flowKeys, keys.wakeChannel(), "mark-groups") > 0;
    }

    /** Holds this queue's (partition's) claims for {@code delayMs} on every instance; returns the hold's end (ms, Redis clock). */
    public long hold(long delayMs) {
        return scripts.number(Scripts.Name.HOLD, flowKeys, keys.wakeChannel(), Long.toString(delayMs));
    }

    /**
     * Holds the claims of one group of this queue's (partition's) messages for {@code delayMs} on every instance
     * (a grouped message's {@code SlowDownException}); returns the hold's end (ms, Redis clock).
     */
    public long holdGroup(long delayMs, String group) {
        return scripts.number(Scripts.Name.HOLD, flowKeys, keys.wakeChannel(), Long.toString(delayMs), group);
    }

    /**
     * What a settle call did: an applied flag per settlement (false: a newer delivery owns the message, or it is gone),
     * and how many history records the count bound deleted in the call.
     */
    public record Settled(boolean[] applied, int historyTrimmed) {

        /** Reads settle.lua's reply, "<flags>[:<history trimmed>]" (flags alone: none trimmed). */
        static Settled read(String out) {
            int colon = out.indexOf(':');
            return colon < 0 ? new Settled(flags(out), 0)
                    : new Settled(flags(out, colon), Integer.parseInt(out, colon + 1, out.length(), 10));
        }
    }

    /** Returns an applied flag per settlement (false: a newer delivery owns the message, or it is gone). */
    public boolean[] settle(List<Settlement> settlements) {
        return settleCounted(settlements).applied();
    }

    /** {@link #settle}, with the history records the call's count bound deleted. */
    public Settled settleCounted(List<Settlement> settlements) {
        List<Object> args = new ArrayList<>(1 + settlements.size());
        args.add(keys.wakeChannel());
        String set = null;
        for (Settlement s : settlements) {
            // see settle.lua: an ack is one argument; the member goes last because an id may hold ':'
            char code = s.op().code;
            String record = s.record();
            if (s.op() == SettleOp.ACK && !java.util.Objects.equals(s.set(), set)) {
                set = s.set(); // the job set of this ack and the next ones, for their mark: settle.lua
                args.add(set == null ? "S" : "S" + set);
            }
            if (record != null && (s.op() == SettleOp.ACK || s.op() == SettleOp.DEAD || s.op() == SettleOp.UNDECODABLE)) {
                // K (ack) and E (dead) keep the record in the history: settle.lua
                boolean ack = s.op() == SettleOp.ACK;
                args.add((ack ? 'K' : 'E') + "" + s.attempt() + ":" + s.keep() + ":" + s.member());
                if (!ack) {
                    args.add(s.text() == null ? "" : s.text());
                }
                args.add(record);
                continue;
            }
            switch (s.op()) {
                case ACK -> args.add((s.noDedupWindow() ? 'a' : code) + "" + s.attempt() + ":" + s.member());
                case RETRY -> {
                    args.add(code + "" + s.attempt() + ":" + s.delayMs() + ":" + s.member());
                    args.add(s.text() == null ? "" : s.text());
                }
                case HAND_BACK, LATER -> args.add(code + "" + s.attempt() + ":" + s.delayMs() + ":" + s.member());
                case DEAD, UNDECODABLE -> {
                    args.add(code + "" + s.attempt() + ":" + s.member());
                    args.add(s.text() == null ? "" : s.text());
                }
            }
        }
        return Settled.read(scripts.text(Scripts.Name.SETTLE, flowKeys, args.toArray()));
    }

    /** {@code fences} holds member, attempt pairs. Returns an extended flag per pair. */
    public boolean[] extend(long leaseMs, List<String> fences) {
        Object[] args = new Object[2 + fences.size()];
        args[0] = keys.wakeChannel();
        args[1] = Long.toString(leaseMs);
        for (int i = 0; i < fences.size(); i++) {
            args[2 + i] = fences.get(i);
        }
        return flags(scripts.text(Scripts.Name.EXTEND, keys.keys(), args));
    }

    public boolean cancel(String id) {
        return cancelled(id) != null;
    }

    /**
     * Cancels {@code id}: null if no live message had it, "" if one did, or the id of the job set it was a member of
     * (its mark is written: the caller forwards it).
     */
    public @Nullable String cancelled(String id) {
        String reply = scripts.text(Scripts.Name.CANCEL, flowKeys, keys.wakeChannel(), id); // 1 pending, 2 in flight
        if (reply.isEmpty() || reply.equals("0")) {
            return null;
        }
        int colon = reply.indexOf(':');
        return colon < 0 ? "" : reply.substring(colon + 1);
    }

    public boolean reschedule(String id, Due due) {
        return scripts.number(Scripts.Name.RESCHEDULE, keys.keys(), keys.wakeChannel(), id, due.scriptArg()) == 1;
    }

    /** The op of pause.lua; {@link #arg} is its name in the script's arguments. */
    public enum PauseOp {
        PAUSE("pause"), RESUME("resume"), STATUS("status");

        public final String arg;

        PauseOp(String arg) {
            this.arg = arg;
        }
    }

    /** Pauses, resumes or reads the pause mark; true if it changed (or, for status, if the queue is paused). */
    public boolean pause(PauseOp op) {
        return scripts.number(Scripts.Name.PAUSE, keys.keys(), keys.wakeChannel(), op.arg) == 1;
    }

    /**
     * Reads the stats as a lone send writes: an asynchronous script call answered on Redisson's threads, waited for.
     * For {@code DelayQueueClient.warmUp}: the first asynchronous call of a JVM costs tens of milliseconds.
     */
    public void warmUp() {
        scripts.listAsync(Scripts.Name.STATS, flowKeys, keys.wakeChannel()).toCompletableFuture().join();
    }

    /** For {@code DelayQueueClient.warmUp}: starts the replica probe, so that sends wait from the first where they can. */
    public void probeReplicasIfDue() {
        replicaWait.probeIfDue(this::probeReplicas);
    }

    public QueueStats stats() {
        return stats(statsReply());
    }

    /** stats.lua's reply: the counts, then this partition's flow state ({@link FlowPart}). */
    List<Object> statsReply() {
        return scripts.list(Scripts.Name.STATS, flowKeys, keys.wakeChannel());
    }

    /** The statistics of stats.lua's reply, with the flow of {@code flow} (this partition's, or the queue's sum). */
    QueueStats stats(List<Object> out, QueueFlow flow) {
        String next = out.get(5).toString();
        return new QueueStats(keys.queue(), number(out.get(1)), number(out.get(2)), number(out.get(3)),
                number(out.get(4)), next.isEmpty() ? null : Instant.ofEpochMilli(Long.parseLong(next)),
                Instant.ofEpochMilli(Long.parseLong(out.get(0).toString())), flow,
                out.size() > 11 ? number(out.get(11)) : 0, // the history's size
                readyByPriority(number(out.get(2)), out.size() > 12 ? out.get(12).toString() : ""));
    }

    /**
     * stats.lua's due messages per priority ("<level>:<due>" joined by ','), the rest of {@code ready} at the default
     * priority.
     */
    static Map<Integer, Long> readyByPriority(long ready, String levels) {
        Map<Integer, Long> counts = new java.util.HashMap<>();
        long others = 0;
        if (!levels.isEmpty()) {
            for (String part : levels.split(",")) {
                int colon = part.indexOf(':');
                long due = Long.parseLong(part.substring(colon + 1));
                counts.merge(Integer.parseInt(part.substring(0, colon)), due, Long::sum);
                others += due;
            }
        }
        counts.merge(Envelope.DEFAULT_PRIORITY, Math.max(0, ready - others), Long::sum);
        return counts;
    }

    private QueueStats stats(List<Object> out) {
        return stats(out, FlowPart.sum(List.of(flowPart(out)), number(out.get(3))));
    }

    static FlowPart flowPart(List<Object> out) {
        return FlowPart.of(out.get(6).toString(), out.get(7).toString(), number(out.get(8)), out.get(9).toString(),
                number(out.get(10)));
    }

    /** Which set {@link #page} reads; {@link #arg} is its name in peek.lua's arguments. */
    public enum PageOf {
        PENDING("delayed"), IN_FLIGHT("inflight");

        public final String arg;

        PageOf(String arg) {
            this.arg = arg;
        }
    }

    MessagePage page(PageOf set, long offset, int limit) {
        return page(offset, limit, set.arg);
    }

    /** A page by rank of one group's pending messages (peek.lua's {@code group}), in due order. */
    MessagePage groupPage(String group, long offset, int limit) {
        return page(offset, limit, "group", group);
    }

    private MessagePage page(long offset, int limit, String set, String... more) {
        List<Object> args = new ArrayList<>(List.of(keys.wakeChannel(), set, Long.toString(offset), Integer.toString(limit)));
        args.addAll(List.of(more));
        List<Object> out = scripts.list(Scripts.Name.PEEK, keys.keys(), args.toArray());
        return new MessagePage(keys.queue(), number(out.get(1)), offset, Instant.ofEpochMilli(number(out.get(0))),
                queued(out));
    }

    /**
     * The groups of this queue's (partition's) grouped messages, the earliest next claim first (peek.lua's
     * {@code groups}): at most {@code limit}.
     */
    public List<io.github.delayqueue.core.GroupStats> groups(int limit) {
        List<Object> out = scripts.list(Scripts.Name.PEEK, keys.keys(), keys.wakeChannel(), "groups", Integer.toString(limit));
        List<io.github.delayqueue.core.GroupStats> groups = new ArrayList<>();
        for (int i = 2; i + 4 < out.size(); i += 5) {
            String oldest = out.get(i + 3).toString();
            String next = out.get(i + 4).toString();
            groups.add(new io.github.delayqueue.core.GroupStats(out.get(i).toString(),
                    Long.parseLong(out.get(i + 1).toString()), Long.parseLong(out.get(i + 2).toString()),
                    oldest.isEmpty() ? null : java.time.Instant.ofEpochMilli(Long.parseLong(oldest)),
                    next.isEmpty() ? null : java.time.Instant.ofEpochMilli(Long.parseLong(next))));
        }
        return groups;
    }

    public java.util.Optional<QueuedMessage> peek(String id) {
        List<QueuedMessage> found = queued(scripts.list(Scripts.Name.PEEK, keys.keys(), keys.wakeChannel(), "id", id));
        return found.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(found.get(0));
    }

    /**
     * Whether the message is stored at all (peek.lua's 'exists'), live or not: false once it was cancelled, acknowledged
     * or dead-lettered.
     */
    public boolean exists(String id) {
        List<Object> out = scripts.list(Scripts.Name.PEEK, keys.keys(), keys.wakeChannel(), "exists", id);
        return out.size() > 1 && "1".equals(out.get(1).toString());
    }

    /** Where one message stands: live (peek.lua's 'id'), else its history record (its 'status'), else unknown. */
    public MessageStatus status(String id) {
        List<Object> out = scripts.list(Scripts.Name.PEEK, keys.keys(), keys.wakeChannel(), "status", id);
        if (out.size() >= 4 && "h".equals(out.get(1).toString())) {
            SettledMessage settled = HistoryRecord.read(id, out.get(2).toString(),
                    (long) Double.parseDouble(out.get(3).toString()));
            if (settled == null) {
                return new MessageStatus(id, MessageStatus.State.UNKNOWN, null, null, null);
            }
            MessageStatus.State state = switch (settled.outcome()) {
                case COMPLETED -> MessageStatus.State.COMPLETED;
                case DEAD_LETTERED -> MessageStatus.State.DEAD_LETTERED;
                case CANCELLED -> MessageStatus.State.CANCELLED;
            };
            return new MessageStatus(id, state, null, null, settled);
        }
        List<QueuedMessage> live = queued(out);
        if (live.isEmpty()) {
            return new MessageStatus(id, MessageStatus.State.UNKNOWN, null, null, null);
        }
        QueuedMessage message = live.get(0);
        if (message.state() == QueuedMessage.State.PENDING) {
            return new MessageStatus(id, MessageStatus.State.PENDING, message, null, null);
        }
        RunningMessage running = null;
        if (out.size() == 10 && "r".equals(out.get(8).toString()) && message.leaseDeadline() != null) {
            running = HistoryRecord.running(out.get(9).toString(), message.attempts(),
                    message.leaseDeadline().toEpochMilli());
        }
        return new MessageStatus(id, MessageStatus.State.IN_FLIGHT, message, running, null);
    }

    /**
     * Writes the running records of deliveries under way (running.lua): per delivery five strings, id, member, attempt,
     * its record ({@link HistoryRecord#writeRunning}) and its progress JSON or {@code ""}; a flag per delivery, false
     * when it is no longer the message's current one.
     */
    public boolean[] running(List<String> deliveries) {
        Object[] args = new Object[1 + deliveries.size()];
        args[0] = keys.wakeChannel();
        for (int i = 0; i < deliveries.size(); i++) {
            args[1 + i] = deliveries.get(i);
        }
        return flags(scripts.text(Scripts.Name.RUNNING, keys.keys(), args));
    }

    /** As {@link #running}, one delivery, without blocking: the handler's progress. */
    public CompletionStage<Boolean> runningAsync(String id, String member, int attempt, String record, String progress) {
        return scripts.listAsync(Scripts.Name.RUNNING, keys.keys(), keys.wakeChannel(), id, member,
                Integer.toString(attempt), record, progress).thenApply(out -> !out.isEmpty() && "1".equals(out.get(0).toString()));
    }

    /** peek.lua's answer: the time, a count, then six fields per message. */
    private static List<QueuedMessage> queued(List<Object> out) {
        List<QueuedMessage> messages = new ArrayList<>((out.size() - 2) / 6);
        for (int i = 2; i + 5 < out.size(); i += 6) {
            String id = out.get(i).toString();
            boolean pending = "d".equals(out.get(i + 1).toString());
            Instant score = Instant.ofEpochMilli(Long.parseLong(out.get(i + 2).toString()));
            String attempts = out.get(i + 3).toString();
            String stored = out.get(i + 4).toString();
            String error = out.get(i + 5).toString();
            Envelope envelope;
            try {
                envelope = Envelope.parse(stored);
            } catch (IllegalArgumentException e) {
                envelope = null;
            }
            messages.add(new QueuedMessage(id, pending ? QueuedMessage.State.PENDING : QueuedMessage.State.IN_FLIGHT,
                    pending ? score : null, pending ? null : score, attempts.isEmpty() ? 0 : parseIntOr(attempts, 0),
                    error.isEmpty() ? null : error, envelope == null ? null : envelope.enqueuedAt(),
                    envelope == null ? java.util.Map.of() : envelope.headers(),
                    envelope == null ? stored : envelope.payload(), envelope == null ? null : envelope.group(),
                    envelope == null ? Envelope.DEFAULT_PRIORITY : envelope.priority()));
        }
        return messages;
    }

    List<DeadLetter> listDead(long offset, int limit) {
        List<Object> out = scripts.list(Scripts.Name.DEAD, keys.keys(), keys.wakeChannel(), DeadOp.LIST.arg,
                Integer.toString(limit), Long.toString(offset));
        List<DeadLetter> letters = new ArrayList<>(out.size() / 5);
        for (int i = 0; i + 4 < out.size(); i += 5) {
            letters.add(deadLetter(out.get(i).toString(), out.get(i + 1).toString(), out.get(i + 2).toString(),
                    out.get(i + 3).toString()));
        }
        return letters;
    }

    /**
     * A page of this queue's (partition's) history, the latest settled first (recent.lua): at most {@code limit}
     * records from rank {@code offset}. A record this version cannot read is left out (the total still counts it).
     */
    HistoryPage history(long offset, int limit) {
        List<Object> out = scripts.list(Scripts.Name.RECENT, keys.keys(), keys.wakeChannel(), Long.toString(offset),
                Integer.toString(limit));
        List<SettledMessage> records = new ArrayList<>((out.size() - 2) / 3);
        for (int i = 2; i + 2 < out.size(); i += 3) {
            String id = out.get(i).toString();
            SettledMessage settled = HistoryRecord.read(id, out.get(i + 2).toString(), Long.parseLong(out.get(i + 1).toString()));
            if (settled != null) {
                records.add(settled);
            }
        }
        return new HistoryPage(keys.queue(), number(out.get(1)), offset, Instant.ofEpochMilli(number(out.get(0))), records);
    }

    /**
     * No keys (stored form) means the oldest {@code limit} from position {@code offset} on.
     * Returns how many were moved.
     */
    public long moveDead(DeadOp op, int limit, long offset, Collection<String> storedKeys) {
        Object[] args = new Object[4 + storedKeys.size()];
        args[0] = keys.wakeChannel();
        args[1] = op.arg;
        args[2] = Integer.toString(limit);
        args[3] = Long.toString(offset);
        int i = 4;
        for (String key : storedKeys) {
            args[i++] = key;
        }
        return scripts.number(Scripts.Name.DEAD, keys.keys(), args);
    }

    private static DeadLetter deadLetter(String key, String deadAt, String reason, String stored) {
        String id = DeadLetterKeys.id(key);
        String shown = DeadLetterKeys.shown(key);
        int colon = reason.indexOf(':');
        int attempts = colon > 0 ? parseIntOr(reason.substring(0, colon), 0) : 0;
        String text = colon >= 0 ? reason.substring(colon + 1) : reason;
        Instant died = Instant.ofEpochMilli((long) Double.parseDouble(deadAt));
        try {
            Envelope envelope = Envelope.parse(stored);
            return new DeadLetter(shown, id, envelope.payload(), envelope.headers(), attempts, text, died, envelope.enqueuedAt(),
                    envelope.group());
        } catch (IllegalArgumentException e) {
            return new DeadLetter(shown, id, stored, java.util.Map.of(), attempts, text, died, null);
        }
    }

    /** One single-message send waiting to be written by {@link Combiner}. */
    private static final class Single {
        final List<String> triple;
        final Thread thread = Thread.currentThread();
        volatile boolean done;
        @Nullable Object flag;
        @Nullable RuntimeException error;

        Single(List<String> triple) {
            this.triple = triple;
        }
    }

    /**
     * Group commit for single-message sends. A sender queues its message and, unless {@value #CALLS}
     * script calls of this queue (and mode) are already under way, starts one with every message queued
     * so far (up to {@value #COMBINED}); then it waits for its own outcome. When a call completes, the
     * messages queued meanwhile go out in the next call, started at once from the completing (Redisson)
     * thread, so no sender thread has to wake up first to start it. A lone sender pays nothing extra;
     * concurrent senders share script calls (the Redis cost of a call is mostly per call, not per message).
     *
     * <p>Two calls under way rather than one: with one, a sender that queues while a call runs waits for
     * it, so two senders took turns and were no faster than one, and eight alternated between two halves.
     * Measured on the 2-core benchmark box with the harness of the time ({@code benchmarks.jar --sides=ours
     * --scenarios=enqueue-rate --enqueue-count=40000 --repeat=3 --threads=N}, means of three; the scenario is now
     * {@code enqueue-rate-<threads>} and {@code --rounds} replaced {@code --repeat}): one call under way gave 7.5k, 12.6k
     * and 20.4k msg/s with 2, 4 and 8 senders; two gave 10.9k, 17.6k and 29.9k; four gave 10.9k, 12.0k
     * and 17.0k (mostly calls of one or two messages: the per-call cost again).
     *
     * <p>Order: a call never holds one id twice (the later send waits for the next call: enqueue.lua
     * rejects such a batch). A thread's own sends are written in order, because each returns only after
     * its call completed; sends of different threads that overlap in time may be written in either order.
     */
    private final class Combiner {
        private final SendMode mode;
        private final ConcurrentLinkedQueue<Single> waiting = new ConcurrentLinkedQueue<>();
        private int calls; // under way; guarded by this

        Combiner(SendMode mode) {
            this.mode = mode;
        }

        List<Object> send(List<String> triple) {
            Single me = new Single(triple);
            scripts.ensureLoaded(Scripts.Name.ENQUEUE, keys.keys()); // so that no Redisson thread ever loads it blocking
            waiting.add(me);
            flush();
            boolean interrupted = false;
            while (!me.done) {
                LockSupport.park(this);
                interrupted |= Thread.interrupted(); // the message may be written by now: wait for the outcome
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (me.error != null) {
                throw me.error;
            }
            return List.of(me.flag);
        }

        /** Starts a call with the queued messages unless {@value #CALLS} are under way (each completion flushes again). */
        private void flush() {
            List<Single> batch;
            synchronized (this) {
                if (calls >= CALLS) {
                    return;
                }
                batch = new ArrayList<>();
                Set<String> ids = new HashSet<>();
                long bytes = 0;
                for (Single s = waiting.peek(); s != null && batch.size() < COMBINED; s = waiting.peek()) {
                    if (!ids.add(s.triple.get(0))) {
                        break; // the same id twice: the later send goes in the next call, after the earlier one
                    }
                    long size = s.triple.get(0).length() + s.triple.get(1).length() + s.triple.get(2).length();
                    if (!batch.isEmpty() && bytes + size > SCRIPT_BYTES) {
                        break; // the byte budget (characters, a lower bound of the bytes): the rest go next
                    }
                    bytes += size;
                    waiting.poll(); // the head we peeked: only this lock's holder removes from waiting
                    batch.add(s);
                }
                if (batch.isEmpty()) {
                    return;
                }
                calls++;
            }
            start(batch);
        }

        private void start(List<Single> batch) {
            List<String> triples = new ArrayList<>(batch.size() * 3);
            for (Single s : batch) {
                triples.addAll(s.triple);
            }
            CompletionStage<List<Object>> call;
            try {
                call = enqueueAsync(mode, triples);
            } catch (RuntimeException e) {
                call = CompletableFuture.failedFuture(e);
            }
            call.whenComplete((flags, error) -> {
                synchronized (this) {
                    calls--;
                }
                flush(); // the messages queued during this call go out before this call's senders are woken
                RuntimeException failure = error == null ? null : unwrap(error);
                for (int i = 0; i < batch.size(); i++) {
                    Single s = batch.get(i);
                    if (failure != null) {
                        s.error = failure;
                    } else {
                        s.flag = flags.get(i);
                    }
                    s.done = true;
                    LockSupport.unpark(s.thread);
                }
            });
        }
    }

    private static RuntimeException unwrap(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
    }

    private static int parseIntOr(String s, int fallback) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    private static long number(Object o) {
        return Long.parseLong(o.toString());
    }

    /** settle.lua and extend.lua answer with one character per entry, '1' (applied) or '0'. */
    private static boolean[] flags(String out) {
        return flags(out, out.length());
    }

    /** The flags of the first {@code end} characters (settle.lua's reply may go on with ":<history trimmed>"). */
    private static boolean[] flags(String out, int end) {
        boolean[] flags = new boolean[end];
        for (int i = 0; i < flags.length; i++) {
            flags[i] = out.charAt(i) == '1';
        }
        return flags;
    }
}
