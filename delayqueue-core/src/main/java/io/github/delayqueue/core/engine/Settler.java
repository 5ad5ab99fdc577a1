package io.github.delayqueue.core.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.github.delayqueue.core.DeadLetterCause;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.DelayQueueListener;
import io.github.delayqueue.core.history.HistoryTrim;
import io.github.delayqueue.core.protocol.Envelope;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.SetScript;

/**
 * Settles one consumer's finished deliveries (acks, retries, dead letters) in batches of up to
 * {@value #BATCH} per script call, on the settler thread its client's consumers share. At most one
 * drain task per consumer is queued or running at a time; a failed batch is retried with back-off
 * (100 ms doubling to 5 s) without holding the thread, so one queue's failing settles do not delay
 * another's.
 */
public final class Settler {

    static final int BATCH = 500;
    private static final long LINGER_MS = 2;
    private static final Logger log = LoggerFactory.getLogger(DelayQueueConsumer.class);

    private final String queue;
    private final QueueOps ops;
    private final ScheduledExecutorService executor;
    /** Told after every settled batch (the poller waits for it while too many are unsettled). */
    private final Runnable progress;
    private final DelayQueueListener listener;
    private final SetForwarding sets;
    private final ScheduledExecutorService forwarder;
    private final ConcurrentLinkedQueue<QueueOps.Settlement> pending = new ConcurrentLinkedQueue<>();
    /** Added and not yet settled (or given up): the queued ones and the batch under way. */
    private final AtomicInteger unsettled = new AtomicInteger();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    private volatile boolean closing;

    // touched only by drain(), which never runs twice at once
    private final List<QueueOps.Settlement> batch = new ArrayList<>(BATCH);
    private boolean busy;
    private boolean lingered;
    private long backoffMs;

    /**
     * {@code sets}: where the marks of job-set members this settler's calls applied are forwarded, on
     * {@code forwarder}.
     */
    Settler(String queue, QueueOps ops, ScheduledExecutorService executor, Runnable progress,
            DelayQueueListener listener, SetForwarding sets, ScheduledExecutorService forwarder) {
        this.sets = sets;
        this.forwarder = forwarder;
        this.queue = queue;
        this.ops = ops;
        this.executor = executor;
        this.progress = progress;
        this.listener = listener;
    }

    /** Queues a settlement; after {@link #close()} has finished it is dropped (left in flight, redelivered). */
    void add(QueueOps.Settlement settlement) {
        if (drained.isDone()) {
            return;
        }
        unsettled.incrementAndGet();
        pending.add(settlement);
        schedule(0);
    }

    /** Finished deliveries not yet settled: the poller stops claiming while there are too many. */
    int unsettled() {
        return unsettled.get();
    }

    /**
     * Settles what is queued and completes when nothing is left, or when a settle at shutdown failed
     * (those deliveries are redelivered after their lease).
     */
    CompletableFuture<Void> close() {
        closing = true;
        schedule(0);
        return drained;
    }

    private void schedule(long delayMs) {
        if (scheduled.compareAndSet(false, true)) {
            submit(delayMs);
        }
    }

    private void submit(long delayMs) {
        try {
            executor.schedule(this::drain, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) { // the shared thread stopped: nothing can be settled any more
            scheduled.set(false);
            drained.complete(null);
        }
    }

    /**
     * While settlements keep coming (the last batch held more than one), waits {@value #LINGER_MS} ms
     * before taking the next batch: a burst then settles in a few large script calls instead of many small
     * ones, each with its own round trip and fixed Redis cost. A lone ack is sent at once. Only the ack is
     * later; handler slots were freed before it.
     */
    /**
     * Tells the listener what Redis applied of the batch, how many settles the fence rejected, and how many history
     * records the call's count bound deleted.
     */
    private void report(QueueOps.Settled settled) {
        boolean[] applied = settled.applied();
        int acked = 0;
        int retried = 0;
        int failedDead = 0;
        int undecodableDead = 0;
        int stale = 0;
        for (int i = 0; i < batch.size(); i++) {
            if (i >= applied.length || !applied[i]) {
                stale++;
                continue;
            }
            switch (batch.get(i).op()) {
                case ACK -> acked++;
                case RETRY -> retried++;
                case DEAD -> failedDead++;
                case UNDECODABLE -> undecodableDead++;
                default -> { } // retry-later and hand-back are neither failures nor settled outcomes
            }
        }
        if (acked > 0) {
            listener.acknowledged(queue, acked);
        }
        if (retried > 0) {
            listener.retried(queue, retried);
        }
        if (failedDead > 0) {
            listener.deadLettered(queue, DeadLetterCause.HANDLER_FAILED, failedDead);
        }
        if (undecodableDead > 0) {
            listener.deadLettered(queue, DeadLetterCause.UNDECODABLE, undecodableDead);
        }
        if (stale > 0) {
            listener.staleSettles(queue, stale);
        }
        if (settled.historyTrimmed() > 0) {
            listener.historyTrimmed(queue, HistoryTrim.COUNT, settled.historyTrimmed());
        }
    }

    /**
     * Forwards the job-set marks waiting in this partition (an instance died between its settle and the forward), on
     * the forwarding thread; a sweep that cannot run now runs at the next periodic pass that finds them.
     */
    void sweepMarks() {
        try {
            forwarder.execute(() -> sets.sweep(ops.keys()));
        } catch (RejectedExecutionException e) {
            log.debug("Queue '{}': job-set marks not swept, the settler stops", queue);
        }
    }

    /** The job-set members of the batch that were settled for good: their marks go to their sets. */
    private void forwardMarks(boolean[] applied) {
        List<SetScript.Mark> marks = null;
        for (int i = 0; i < batch.size(); i++) {
            QueueOps.Settlement s = batch.get(i);
            if (s.set() != null && applied[i]) {
                char kind = switch (s.op()) {
                    case ACK -> 'A';
                    case DEAD, UNDECODABLE -> 'D';
                    default -> 0;
                };
                if (kind != 0) {
                    if (marks == null) {
                        marks = new ArrayList<>();
                    }
                    marks.add(new SetScript.Mark(kind, s.set(), Envelope.idOf(s.member())));
                }
            }
        }
        if (marks != null) {
            List<String> forwarded = SetScript.entriesOf(marks);
            try {
                forwarder.execute(() -> sets.forward(ops.keys(), forwarded));
            } catch (RejectedExecutionException e) {
                log.debug("Queue '{}': {} job-set marks left for a periodic pass, the client stops", queue, marks.size());
            }
        }
    }

    private void drain() {
        if (batch.isEmpty()) {
            if (busy && !lingered && !closing && unsettled.get() < BATCH) {
                lingered = true;
                submit(LINGER_MS); // still scheduled: adds meanwhile do not queue another task
                return;
            }
            lingered = false;
            for (QueueOps.Settlement next = pending.poll(); next != null; next = pending.poll()) {
                batch.add(next);
                if (batch.size() == BATCH) {
                    break;
                }
            }
            busy = batch.size() > 1;
        }
        if (!batch.isEmpty()) {
            try {
                QueueOps.Settled settled = ops.settleCounted(batch);
                if (listener != DelayQueueListener.NONE) {
                    report(settled);
                }
                forwardMarks(settled.applied());
                unsettled.addAndGet(-batch.size());
                batch.clear();
                backoffMs = 0;
                progress.run();
            } catch (Throwable e) { // an Error too: settling must not stop while deliveries finish
                if (closing) {
                    Threads.loopFailed(log, e, "Queue '{}': could not settle {} finished deliveries at shutdown; they "
                            + "will be delivered again after their lease: {}", queue, unsettled.get());
                    unsettled.set(0);
                    batch.clear();
                    pending.clear();
                    drained.complete(null);
                    scheduled.set(false);
                    return;
                }
                backoffMs = Math.min(Math.max(100, backoffMs * 2), 5_000);
                Threads.loopFailed(log, e, "Queue '{}': settling {} deliveries failed, retrying in {} ms: {}", queue,
                        batch.size(), backoffMs);
                submit(backoffMs); // still scheduled
                return;
            }
        }
        scheduled.set(false);
        if (!pending.isEmpty()) {
            schedule(0);
        } else if (closing && unsettled.get() == 0) {
            drained.complete(null);
        } else if (closing) {
            schedule(0); // an add raced with the check above
        }
    }
}
