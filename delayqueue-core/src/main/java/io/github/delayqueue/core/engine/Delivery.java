package io.github.delayqueue.core.engine;

import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.protocol.Envelope;
import io.github.delayqueue.core.protocol.HistoryRecord;
import io.github.delayqueue.core.protocol.QueueOps;

/**
 * One claimed message, from its dispatch until its handler finished and its slot was freed. It settles
 * once (the first of ack, retry, dead letter or hand-back wins) and frees its slot once.
 */
public final class Delivery implements MessageContext.Control {

    /** What a delivery reports to: its consumer. */
    interface Owner {

        void settle(QueueOps.Settlement settlement);

        /**
         * How many history records the queue (partition) keeps for this consumer: -1 keeps none, 0 keeps them without a
         * count bound ({@link io.github.delayqueue.core.ConsumerOptions.Builder#keepHistory}).
         */
        int historyKeep();

        /** {@code slotReleased}: this call freed the delivery's handler slot (only the first call does). */
        void finished(Delivery delivery, boolean slotReleased);

        /**
         * A handler's progress or result as the JSON kept in the history: encoded by the consumer's codec, at most
         * {@link MessageContext#MAX_RESULT_BYTES}; throws IllegalArgumentException otherwise.
         */
        String encodeResult(Object value);

        /**
         * The delivery's progress changed: the owner writes it into its running record, at most every
         * {@link MessageContext#PROGRESS_INTERVAL_MS}, off the handler's thread; never throws.
         */
        void progressChanged(Delivery delivery);
    }

    final QueueOps.Claimed claimed;
    final long startNanos = System.nanoTime();
    /** When its handler started ({@link System#nanoTime()}), set only while a listener listens; 0 until then. */
    volatile long handlerStartNanos;
    /** Set by the handler thread once the envelope is decoded; null until then. */
    volatile @Nullable MessageContext context;
    private final Owner owner;
    private final AtomicBoolean settled = new AtomicBoolean();
    private final AtomicBoolean slotHeld = new AtomicBoolean(true);
    /** Whether its handler thread took it up ({@link #begin}); one that never does is finished by its task's end. */
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile @Nullable FutureTask<Void> task;
    private volatile boolean timedOut;
    /** Set before shutdown interrupts the handler: whatever it does next, its work was abandoned. */
    private volatile boolean cutOff;
    /** The message was cancelled while this delivery ran: nothing of it is settled (the message is gone). */
    private volatile boolean cancelled;
    private volatile boolean leaseLostLogged;
    /** The handler's result and last progress (JSON), for the history record; null until set. */
    private volatile @Nullable String resultJson;
    volatile @Nullable String progressJson;
    /** When progress was last written to Redis ({@link System#nanoTime()}); 0 before the first write. */
    volatile long progressWrittenNanos;
    /** A progress write is scheduled or under way (at most one per delivery: writes stay in order). */
    final AtomicBoolean progressWriting = new AtomicBoolean();
    /** Its running record was written (by a lease extension's round or a progress write). */
    volatile boolean runningWritten;

    Delivery(QueueOps.Claimed claimed, Owner owner) {
        this.claimed = claimed;
        this.owner = owner;
    }

    /** Settles the delivery unless it was settled already; see {@link QueueOps.Settlement} for the ops. */
    void settle(QueueOps.SettleOp op, long delayMs, @Nullable String text) {
        if (settled.compareAndSet(false, true)) {
            boolean noWindow = op == QueueOps.SettleOp.ACK && Envelope.holdsNoDedupWindow(claimed.envelope());
            int keep = owner.historyKeep();
            boolean recorded = op == QueueOps.SettleOp.ACK || op == QueueOps.SettleOp.DEAD
                    || op == QueueOps.SettleOp.UNDECODABLE;
            owner.settle(new QueueOps.Settlement(op, claimed.member(), claimed.attempt(), delayMs, text, noWindow,
                    keep >= 0 && recorded ? record(op != QueueOps.SettleOp.ACK, text) : null, Math.max(keep, 0),
                    recorded ? Envelope.setOf(claimed.envelope()) : null));
        }
    }

    /** This delivery's history record, with the time its claim ran on the Redis clock. */
    private String record(boolean dead, @Nullable String reason) {
        long now = System.nanoTime();
        return HistoryRecord.write(dead, claimed.dueMs(), claimed.claimedMs(), claimed.attempt(),
                (now - startNanos) / 1_000_000, Envelope.groupOf(claimed.member()), dead ? reason : null,
                dead ? null : resultJson, progressJson);
    }

    /** Its running record, without progress ({@link HistoryRecord#writeRunning}). */
    String runningRecord() {
        return HistoryRecord.writeRunning(claimed.dueMs(), claimed.claimedMs(), claimed.attempt());
    }

    @Override
    public boolean cancelled() {
        return cancelled;
    }

    /**
     * Keeps the handler's progress for the record; its owner writes it into the running record (at most every
     * {@link MessageContext#PROGRESS_INTERVAL_MS}, the latest value last, never on the handler's thread). Checked
     * (encoded, sized) whether or not the queue keeps its history, so that turning the history on fails no handler.
     */
    @Override
    public void progress(Object progress) {
        if (progress == null) { // a caller without null checks: a clear refusal, not the codec's "null"
            throw new IllegalArgumentException("progress must not be null (a result may be cleared with result(null))");
        }
        String json = owner.encodeResult(progress);
        if (owner.historyKeep() < 0) {
            return;
        }
        progressJson = json;
        owner.progressChanged(this);
    }

    /**
     * Keeps the handler's result for the record of its acknowledgement (ignored when the queue keeps no history);
     * checked either way, as {@link #progress} is.
     */
    @Override
    public void result(@Nullable Object result) {
        String json = result == null ? null : owner.encodeResult(result);
        if (owner.historyKeep() >= 0) {
            resultJson = json;
        }
    }

    boolean isSettled() {
        return settled.get();
    }

    /** The executor refused it: nothing to settle from here on (it is handed back), no lease to extend. */
    void neverRun() {
        settled.set(true);
    }

    void finish() {
        owner.finished(this, slotHeld.compareAndSet(true, false));
    }

    /**
     * The handler thread takes the delivery up; false when it was cancelled or timed out before (then its task's end
     * finishes it: {@link #finishIfNeverStarted}).
     */
    boolean begin() {
        return started.compareAndSet(false, true) && !cancelled && !timedOut;
    }

    /** Its task was cancelled: finishes it unless its handler thread took it up (that one finishes it itself). */
    void finishIfNeverStarted() {
        if (started.compareAndSet(false, true)) {
            finish();
        }
    }

    void runOn(FutureTask<Void> task) {
        this.task = task;
    }

    /** Interrupts the handler (if it runs); used by the handler timeout. */
    void interrupt() {
        FutureTask<Void> running = task;
        if (running != null) {
            running.cancel(true);
        }
    }

    /** Marks it timed out; false if it was already. */
    boolean timeOut() {
        if (timedOut) {
            return false;
        }
        timedOut = true;
        return true;
    }

    boolean timedOut() {
        return timedOut;
    }

    void cutOff() {
        cutOff = true;
    }

    /**
     * The message was cancelled while this delivery runs: from here on nothing of it is settled (any settle would be
     * stale: the message is gone). False when it had settled already, or was cancelled before.
     */
    boolean cancel() {
        if (cancelled || !settled.compareAndSet(false, true)) {
            return false;
        }
        cancelled = true;
        return true;
    }

    boolean isCancelled() {
        return cancelled;
    }

    boolean isCutOff() {
        return cutOff;
    }

    /** True the first time only: a lost lease is logged once per delivery. */
    boolean firstLeaseLoss() {
        if (leaseLostLogged) {
            return false;
        }
        leaseLostLogged = true;
        return true;
    }
}
