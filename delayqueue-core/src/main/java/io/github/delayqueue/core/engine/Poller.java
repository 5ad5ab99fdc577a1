package io.github.delayqueue.core.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DeadLetterCause;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.DelayQueueListener;
import io.github.delayqueue.core.ExpiryAction;
import io.github.delayqueue.core.FlowLimit;
import io.github.delayqueue.core.PartitionCountException;
import io.github.delayqueue.core.history.HistoryTrim;
import io.github.delayqueue.core.protocol.ClaimLimits;
import io.github.delayqueue.core.protocol.GroupLimits;
import io.github.delayqueue.core.protocol.HistoryRecord;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.QueueRoute;

/**
 * The claiming loop of one consumer, on its own thread ({@code delayqueue-poller-<queue>-1}): claims up
 * to {@code min(batchSize, free handler slots)} due messages per script call, hands them to the consumer's
 * handlers, and sleeps until the next due time or lease deadline the claim reported (to the microsecond,
 * on the Redis clock), a wake-up, a freed slot, or at most {@code maxPollInterval}.
 */
public final class Poller {

    private static final Logger log = LoggerFactory.getLogger(DelayQueueConsumer.class);
    private static final long NOT_SLEEPING = Long.MIN_VALUE;
    private static final long BACKLOG_WAIT_MS = 5;
    /** A settle backlog that lasts this long is logged at WARN: settling fails or cannot keep up. */
    private static final long SETTLE_LAG_WARN_NANOS = TimeUnit.SECONDS.toNanos(1);
    /**
     * How often this poller's claims run the claim's housekeeping stage (includes/housekeeping.lua: dead letters past
     * their retention or count, members scored past any due time): on the first claim, then at most once per this.
     */
    static final long HOUSEKEEPING_NANOS = TimeUnit.SECONDS.toNanos(1);
    /**
     * A poller without flow limits deletes the limits recorded in Redis (hold.lua's forget-limits) when it starts and
     * then once per this many of its longest poll intervals: an instance with limits still running in a rolling deploy
     * rewrites them, and they would otherwise stay in the flow view after it stops. Not on every claim (a queue without
     * limits pays nothing per claim), nor on every idle poll (that would double an idle queue's commands): the view
     * drops stale limits within 10 poll intervals, 10 s by default, the window the claim rate is counted over. On the
     * same period every poller (with limits or not) puts the groups' marker back if an older release's claim deleted
     * it (QueueOps.markGroups): grouped messages then wait at most that long.
     */
    static final int FORGET_LIMITS_EVERY_POLLS = 10;

    private final String queue;
    private final QueueOps ops;
    private final ConsumerOptions options;
    private final Slots slots;
    /** The partition count check, run before the first claim ({@link QueueRoute#check}). */
    private final Runnable partitionCheck;
    private final Settler settler;
    private final WakeUps wakeUps;
    private final BooleanSupplier running;
    /** Hands a claimed message to a handler thread; returns why the executor refused it, or null. */
    private final Function<QueueOps.Claimed, @Nullable Throwable> dispatch;
    private final DelayQueueListener listener;
    /** A batch consumer's dispatch: one claim's messages as one batch; null for a consumer of single messages. */
    private final @Nullable Function<List<QueueOps.Claimed>, @Nullable Throwable> dispatchBatch;
    /** How long a batch consumer's claim that found fewer than a batch waits to fill it (0: not at all). */
    private final long batchWaitNanos;
    /**
     * Whether the client's {@link Watch} covers this poller: its instance takes turns checking the queue and its wake-up
     * subscription works. Then it sleeps until the next event it knows of; otherwise at most {@code maxPollInterval}.
     */
    private final BooleanSupplier covered;

    /**
     * What the last claim saw, for the watch's turns: its Redis time (ms), and whether a limit that ends at a known time
     * (a rate limit, a slow-down) held due messages back.
     */
    private volatile long lastClaimServerMs = Long.MIN_VALUE;
    private volatile boolean lastClaimHeld;
    private volatile boolean lastClaimPaused;
    /** The watch asked for the periodic pass (the flow view, the groups' marker) and a housekeeping claim. */
    private volatile boolean periodicRequested;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    // guarded by lock
    private boolean wakeRequested;
    /** When this poller's last claim ran the housekeeping stage (System.nanoTime), or none yet. */
    private long housekeptAt;
    private boolean housekept;
    private long sleepingUntilServerMs = NOT_SLEEPING;

    /**
     * Free slots the poller waits for (0: it is not waiting for slots). Under a backlog it waits for
     * half a batch rather than claiming one message per round trip as each handler finishes.
     */
    private volatile int slotsWanted;
    /** Whether the poller waits for the settler to catch up (back-pressure). */
    private volatile boolean awaitingSettles;

    Poller(String queue, QueueOps ops, ConsumerOptions options, Slots slots, Settler settler, WakeUps wakeUps,
            BooleanSupplier running, Function<QueueOps.Claimed, @Nullable Throwable> dispatch,
            DelayQueueListener listener, Runnable partitionCheck,
            @Nullable Function<List<QueueOps.Claimed>, @Nullable Throwable> dispatchBatch, long batchWaitNanos,
            BooleanSupplier covered) {
        this.covered = covered;
        this.dispatchBatch = dispatchBatch;
        this.batchWaitNanos = batchWaitNanos;
        this.partitionCheck = partitionCheck;
        this.queue = queue;
        this.ops = ops;
        this.options = options;
        this.slots = slots;
        this.settler = settler;
        this.wakeUps = wakeUps;
        this.running = running;
        this.dispatch = dispatch;
        this.listener = listener;
    }

    /**
     * Tells the listener what the claim did: claimed, the expired leases and bad due times it found, and the history
     * records its housekeeping deleted by age.
     */
    private void report(QueueOps.ClaimResult result) {
        if (!result.messages().isEmpty()) {
            listener.claimed(queue, result.messages().size());
        }
        if (result.redelivered() > 0) {
            listener.redelivered(queue, result.redelivered());
        }
        if (result.leaseDead() > 0) {
            listener.deadLettered(queue, DeadLetterCause.LEASE_EXPIRED, result.leaseDead());
        }
        if (result.badDueDead() > 0) {
            listener.deadLettered(queue, DeadLetterCause.INVALID_DUE_TIME, result.badDueDead());
        }
        if (result.expiredDead() > 0) {
            listener.deadLettered(queue, DeadLetterCause.EXPIRED, result.expiredDead());
        }
        if (result.expiredDropped() > 0) {
            listener.expiredDropped(queue, result.expiredDropped());
        }
        if (result.throttledBy() != null) {
            listener.claimThrottled(queue, result.throttledBy());
        }
        if (result.historyTrimmed() > 0) {
            listener.historyTrimmed(queue, HistoryTrim.AGE, result.historyTrimmed());
        }
    }

    /**
     * The claim's fixed arguments, worked out once per run from the consumer's options and this partition's share, and
     * the loop's state between claims.
     */
    private final class Loop {
        final long leaseMs = options.visibilityTimeout().toMillis();
        final long maxSleepMs = options.maxPollInterval().toMillis();
        final int maxAttempts = options.retry().maxAttempts();
        final int reapLimit = Math.max(options.batchSize(), 100);
        final long deadRetentionMs = options.deadLetterRetention().toMillis();
        final int partitions = ops.keys().partitions();
        // each partition keeps its share of the queue's dead letters (ids spread evenly over the partitions)
        final int maxDead = (options.deadLetterMaxCount() + partitions - 1) / partitions;
        // and its share of the flow limits; a claim held back by one names when it lets messages go (half the burst
        // free again, the end of a hold) as its next event, or none at the in-flight cap (a settle wakes the poller)
        final ClaimLimits flow = ClaimLimits.of(options.rateLimit(), options.maxInFlight(), ops.keys().partition(), partitions);
        final GroupLimits groupFlow = groupLimits();
        // With a backlog, claim at least this many at once (waiting up to BACKLOG_WAIT_MS for free slots):
        // claiming each slot as it frees costs a round trip and a script call per message.
        int minClaim = Math.max(1, Math.min(options.batchSize(), options.concurrency()) / 2);
        // The pollers of a partitioned queue share the consumer's slots, and a claim holds what it took until Redis
        // answers: a partition whose master stops answering held every slot for the client's timeout and retries, and
        // the whole queue stopped (PartitionsOnClusterTest). One claim takes at most an even share; a busy partition
        // still fills every free slot, by claiming again.
        int claimCap = partitions == 1 ? Integer.MAX_VALUE : Math.max(1, (options.concurrency() + partitions - 1) / partitions);
        // back-pressure: while settling fails or lags, claim nothing more, so finished deliveries waiting to
        // be settled stay bounded (at most this plus the running handlers), whatever Redis answers. Four
        // batches: a healthy settler under a burst holds up to two (one being written, one piling up), and a
        // bound it reaches in normal flow would pause claiming for nothing.
        final int unsettledLimit = Math.max(4 * Settler.BATCH, 4 * options.concurrency());
        final long forgetEveryNanos = TimeUnit.MILLISECONDS.toNanos(maxSleepMs) * FORGET_LIMITS_EVERY_POLLS;
        boolean backlog;
        long settleBacklogSince;
        boolean settleLagWarned;
        long backoffMs;
        int failures;
        int rejections;
        long rejectedBackoffMs;
        boolean checked;
        long forgotAt;

        Loop() {
            minClaim = Math.min(minClaim, claimCap);
            if (dispatchBatch != null) { // a batch consumer: one claim is one batch (batchSize is the batch size here)
                claimCap = options.batchSize();
                minClaim = 1; // a partial batch goes as soon as it is claimed
            }
        }
    }

    /**
     * The poller's loop, in named steps: check the partition count once, keep the flow view current, wait while
     * settles lag, take free handler slots, claim, dispatch what was claimed, then sleep until the next event (a
     * wake-up, the claim's next due time or permit, or {@code maxPollInterval}).
     */
    void run() {
        Loop loop = new Loop();
        wakeUps.subscribe();
        while (running.getAsBoolean()) {
            try {
                checkPartitionsOnce(loop);
                keepFlowViewCurrent(loop);
                if (settlesLag(loop)) {
                    continue;
                }
                int wanted = takeSlots(loop);
                if (wanted == 0) {
                    continue;
                }
                QueueOps.ClaimResult result = claim(loop, wanted);
                if (!dispatchClaimed(loop, result.messages()) || result.messages().size() == wanted
                        || result.deadTrimmed() >= QueueOps.ClaimResult.DEAD_TRIM) {
                    continue; // rejected (after a pause), or probably more are due, or more dead letters to delete
                }
                sleepUntilNextEvent(loop, result);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (PartitionCountException e) {
                throw e; // a configuration error: claiming again cannot help
            } catch (Throwable e) { // an Error too: the poller must not end while the consumer runs
                if (!backOff(loop, e)) {
                    break;
                }
            }
        }
    }

    private void checkPartitionsOnce(Loop loop) {
        if (!loop.checked) {
            partitionCheck.run(); // a PartitionCountException ends the loop: the consumer's failure()
            loop.checked = true;
        }
    }

    /**
     * The periodic pass (hold.lua): the flow view's limits, or the groups' marker. When it starts, then when the watch
     * gives this instance the queue's periodic turn; when the watch does not cover it, every
     * FORGET_LIMITS_EVERY_POLLS poll intervals.
     */
    private void keepFlowViewCurrent(Loop loop) {
        boolean requested = periodicRequested;
        if (requested) {
            periodicRequested = false;
            housekept = false; // and the claim that follows runs the housekeeping stage
        }
        if (loop.forgotAt == 0 || requested
                || (!covered.getAsBoolean() && System.nanoTime() - loop.forgotAt >= loop.forgetEveryNanos)) {
            // the flow view shows no limits once only consumers without any run; forgetLimits re-marks the groups too
            boolean staleMarks = loop.flow.equals(ClaimLimits.NONE) ? ops.forgetLimits() : ops.markGroups();
            if (staleMarks) {
                settler.sweepMarks(); // job-set marks an instance left when it died between a settle and its forward
            }
            loop.forgotAt = System.nanoTime() | 1; // never 0: 0 means not yet
        }
    }

    /** Whether settles lag behind (then it has waited a little for them, and claims nothing this turn). */
    private boolean settlesLag(Loop loop) throws InterruptedException {
        if (settler.unsettled() >= loop.unsettledLimit) {
            long now = System.nanoTime();
            if (loop.settleBacklogSince == 0) {
                loop.settleBacklogSince = now;
                log.debug("Queue '{}': {} finished deliveries wait to be settled; claiming paused until they "
                        + "are", queue, settler.unsettled());
            } else if (!loop.settleLagWarned && now - loop.settleBacklogSince >= SETTLE_LAG_WARN_NANOS) {
                loop.settleLagWarned = true;
                log.warn("Queue '{}': {} finished deliveries have waited over a second to be settled; claiming "
                        + "paused until they are", queue, settler.unsettled());
            }
            awaitSettles(loop.unsettledLimit, 20);
            return true;
        }
        if (loop.settleBacklogSince != 0) {
            if (loop.settleLagWarned) {
                log.info("Queue '{}': settling caught up; claiming again", queue);
            }
            loop.settleBacklogSince = 0;
            loop.settleLagWarned = false;
        }
        return false;
    }

    /** Takes the handler slots this claim may fill (0: none now; it has waited for one). */
    private int takeSlots(Loop loop) throws InterruptedException {
        int free = slots.available();
        if (free == 0) {
            awaitSlots(1, loop.maxSleepMs);
            return 0;
        }
        if (loop.backlog && free < loop.minClaim) {
            awaitSlots(loop.minClaim, BACKLOG_WAIT_MS);
            free = slots.available();
        }
        int wanted = Math.min(Math.min(options.batchSize(), free), loop.claimCap);
        if (wanted == 0 || !slots.take(wanted)) {
            return 0; // the poller of another partition took them first
        }
        return wanted;
    }

    /** The claim's priority aging (QueueOps.claim): strict, or this consumer's aging when not the script's default. */
    private long agingMs() {
        if (options.strictPriority()) {
            return QueueOps.STRICT_PRIORITY;
        }
        long ms = options.priorityAging().toMillis();
        return ms == ConsumerOptions.DEFAULT_PRIORITY_AGING.toMillis() ? 0 : ms;
    }

    /** This instance, named in the running record of each message a claim hands out, when the history is kept. */
    private @Nullable String historyInstance() {
        return options.keepsHistory() ? HistoryRecord.INSTANCE : null;
    }

    /**
     * Claims up to {@code wanted} (a batch consumer waits up to {@code batchWait} to fill its batch), tells the
     * listener, and gives back the slots it did not fill; each claimed message keeps its slot until its delivery ends.
     */
    private QueueOps.ClaimResult claim(Loop loop, int wanted) throws InterruptedException {
        beforeClaim();
        QueueOps.ClaimResult result;
        try {
            result = ops.claim(wanted, loop.leaseMs, loop.maxAttempts, loop.reapLimit, loop.deadRetentionMs, loop.maxDead,
                    loop.flow, options.onExpiry() == ExpiryAction.DROP, loop.groupFlow, housekeepingDue(),
                    options.historyMaxAge().toMillis(), historyInstance(), agingMs());
        } catch (Throwable e) {
            slots.giveBack(wanted);
            throw e;
        }
        if (listener != DelayQueueListener.NONE) {
            report(result);
        }
        lastClaimServerMs = result.serverNowMs();
        // a rate limit or a slow-down holds due messages until a time the claim named (the poller sleeps until it); the
        // cap on messages in flight names none: a settle's (or a cancel's) wake-up frees it, and a turn that sees due
        // messages then claims, should that wake-up be lost
        lastClaimHeld = result.throttledBy() == FlowLimit.RATE_LIMIT || result.throttledBy() == FlowLimit.SLOW_DOWN;
        lastClaimPaused = result.paused();
        if (result.deadTrimmed() >= QueueOps.ClaimResult.DEAD_TRIM) {
            housekept = false; // there may be more to delete: the next claim runs the stage again
        }
        if (dispatchBatch != null && batchWaitNanos > 0 && !result.messages().isEmpty()
                && result.messages().size() < wanted) {
            result = fill(result, wanted, loop.leaseMs, loop.maxAttempts, loop.reapLimit, loop.deadRetentionMs,
                    loop.maxDead, loop.flow);
        }
        slots.giveBack(wanted - result.messages().size());
        loop.backlog = result.messages().size() == wanted;
        if (loop.failures > 0) {
            log.info("Queue '{}': Redis answers again after {} failed polls", queue, loop.failures);
        }
        loop.failures = 0;
        loop.backoffMs = 0;
        wakeUps.retryIfDue();
        return result;
    }

    /**
     * Hands the claimed messages to the handlers (one batch, or one by one); false when the executor refused them:
     * they were handed back, and the poller has paused to give the executor time (other consumers may take them).
     */
    private boolean dispatchClaimed(Loop loop, List<QueueOps.Claimed> messages) throws InterruptedException {
        boolean rejected = false;
        if (dispatchBatch != null && !messages.isEmpty()) {
            Throwable rejection = dispatchBatch.apply(messages);
            if (rejection != null) { // each delivery of the batch gave its own slot back
                rejected = true;
                rejected(loop, messages, rejection);
            }
        }
        for (int i = 0; dispatchBatch == null && i < messages.size() && !rejected; i++) {
            Throwable rejection = dispatch.apply(messages.get(i));
            if (rejection != null) {
                slots.giveBack(messages.size() - i - 1); // never dispatched (the refused one's delivery gave its own)
                rejected = true;
                rejected(loop, messages.subList(i, messages.size()), rejection);
            }
        }
        if (rejected) {
            pause(loop.rejectedBackoffMs);
            return false;
        }
        if (loop.rejections > 0 && !messages.isEmpty()) {
            log.info("Queue '{}': the handler executor accepts work again after {} rejections", queue, loop.rejections);
            loop.rejections = 0;
            loop.rejectedBackoffMs = 0;
        }
        return true;
    }

    private void rejected(Loop loop, List<QueueOps.Claimed> messages, Throwable rejection) {
        loop.rejections++;
        loop.rejectedBackoffMs = Math.min(Math.max(100, loop.rejectedBackoffMs * 2), 5_000);
        handBack(messages, rejection, loop.rejections, loop.rejectedBackoffMs);
    }

    /**
     * Sleeps until the claim's next event, to the microsecond, or {@code maxPollInterval} (while the watch covers this
     * poller, {@link Watch#COVERED_SLEEP_MS}: its turns wake it); a wake-up ends it sooner.
     */
    private void sleepUntilNextEvent(Loop loop, QueueOps.ClaimResult result) throws InterruptedException {
        long capMs = covered.getAsBoolean() ? Watch.COVERED_SLEEP_MS : loop.maxSleepMs;
        long untilServerMs = result.serverNowMs() + capMs;
        long sleepNanos = TimeUnit.MILLISECONDS.toNanos(capMs);
        if (result.nextEventMs() >= 0 && result.nextEventMs() < untilServerMs) {
            // the server read its clock about half a round trip before the reply arrived (clockReadAtNanos), and
            // dispatching took some of the time since
            long eventAt = result.clockReadAtNanos()
                    + TimeUnit.MICROSECONDS.toNanos(result.nextEventMs() * 1000 - result.serverNowMicros());
            untilServerMs = result.nextEventMs();
            sleepNanos = eventAt - System.nanoTime();
        }
        if (sleepNanos > 0) {
            awaitNanos(sleepNanos, untilServerMs);
        }
    }

    /** A failed turn: logs it (the first and every 20th) and backs off; false when interrupted meanwhile. */
    private boolean backOff(Loop loop, Throwable e) {
        loop.failures++;
        loop.backoffMs = Math.min(Math.max(100, loop.backoffMs * 2),
                Math.max(1_000, Math.min(loop.maxSleepMs * 5, 10_000)));
        if (loop.failures == 1 || loop.failures % 20 == 0) {
            Threads.loopFailed(log, e, "Queue '{}': polling Redis failed ({} in a row), retrying in {} ms: {}",
                    queue, loop.failures, loop.backoffMs);
        }
        try {
            await(loop.backoffMs, NOT_SLEEPING);
            return true;
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** This partition's share of the consumer's limits per group of messages. */
    private GroupLimits groupLimits() {
        return GroupLimits.of(options.groupRateLimit(), options.groupMaxInFlight(), ops.keys().partition(),
                ops.keys().partitions());
    }

    /**
     * A batch consumer's claim found fewer messages than a batch: claims again as more become due (a wake-up, the
     * next due time the claim reported) until the batch is full or {@code batchWait} has passed, holding the
     * {@code wanted} slots taken for it. A failing claim ends the wait with what was claimed so far.
     */
    private QueueOps.ClaimResult fill(QueueOps.ClaimResult first, int wanted, long leaseMs, int maxAttempts,
            int reapLimit, long deadRetentionMs, int maxDead, ClaimLimits flow) throws InterruptedException {
        List<QueueOps.Claimed> messages = new ArrayList<>(first.messages());
        QueueOps.ClaimResult last = first;
        long deadline = System.nanoTime() + batchWaitNanos;
        while (messages.size() < wanted && running.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            long sleepNanos = left;
            if (last.nextEventMs() >= 0) {
                long eventAt = last.clockReadAtNanos()
                        + TimeUnit.MICROSECONDS.toNanos(last.nextEventMs() * 1000 - last.serverNowMicros());
                sleepNanos = Math.min(left, Math.max(0, eventAt - System.nanoTime()));
            }
            if (sleepNanos > 0) {
                awaitNanos(sleepNanos, NOT_SLEEPING);
            }
            beforeClaim();
            try {
                last = ops.claim(wanted - messages.size(), leaseMs, maxAttempts, reapLimit, deadRetentionMs, maxDead,
                        flow, options.onExpiry() == ExpiryAction.DROP, groupLimits(), false, 0, historyInstance(), agingMs());
            } catch (RuntimeException e) {
                log.debug("Queue '{}': a claim to fill a batch failed; handing over {} messages: {}", queue,
                        messages.size(), e.toString());
                break;
            }
            if (listener != DelayQueueListener.NONE) {
                report(last);
            }
            messages.addAll(last.messages());
        }
        return new QueueOps.ClaimResult(last.serverNowMicros(), last.clockReadAtNanos(), last.nextEventMs(), messages,
                0, 0, 0, last.throttledBy());
    }

    /**
     * Gives messages the executor refused back to the delayed set at their due time, their attempt not
     * counted, so this or another consumer takes them at once rather than after their lease. If that
     * write fails too, they stay in flight and are redelivered after their lease.
     */
    private void handBack(List<QueueOps.Claimed> refused, Throwable rejection, int rejections, long backoffMs) {
        if (rejections == 1 || rejections % 20 == 0) {
            log.warn("Queue '{}': the handler executor refused {} messages ({} in a row: {}); handed back to the queue "
                    + "without counting the attempt, claiming again in {} ms", queue, refused.size(), rejections,
                    rejection.toString(), backoffMs);
        }
        List<QueueOps.Settlement> back = new ArrayList<>(refused.size());
        for (QueueOps.Claimed claimed : refused) {
            back.add(new QueueOps.Settlement(QueueOps.SettleOp.HAND_BACK, claimed.member(), claimed.attempt(), claimed.dueMs(), null));
        }
        try {
            ops.settle(back);
        } catch (RuntimeException e) {
            log.warn("Queue '{}': could not hand back {} refused messages; they will be delivered again after their "
                    + "lease: {}", queue, refused.size(), e.toString());
        }
    }

    /** The settler settled a batch: wakes the poller if it waits for settles to catch up. */
    void settleProgress() {
        if (awaitingSettles) {
            signal(false);
        }
    }

    /** Waits up to {@code millis} until fewer than {@code limit} finished deliveries wait to be settled. */
    private void awaitSettles(int limit, long millis) throws InterruptedException {
        awaitingSettles = true;
        long nanos = TimeUnit.MILLISECONDS.toNanos(millis);
        lock.lock();
        try {
            while (running.getAsBoolean() && settler.unsettled() >= limit && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            wakeRequested = false;
        } finally {
            awaitingSettles = false;
            lock.unlock();
        }
    }

    /** A handler freed its slot: wakes the poller if it waits for that many free slots (not one sleeping until a due time). */
    void slotFreed() {
        int wanted = slotsWanted;
        if (wanted > 0 && slots.available() >= wanted) {
            signal(false);
        }
    }

    /** Waits up to {@code millis} until at least {@code wanted} handler slots are free. */
    private void awaitSlots(int wanted, long millis) throws InterruptedException {
        slotsWanted = wanted;
        try {
            if (slots.available() < wanted) { // re-read: a handler may have finished meanwhile
                await(millis, NOT_SLEEPING);
            }
        } finally {
            slotsWanted = 0;
        }
    }

    /** Whether this claim runs the housekeeping stage: the first, then one per {@link #HOUSEKEEPING_NANOS}. */
    private boolean housekeepingDue() {
        long now = System.nanoTime();
        if (housekept && now - housekeptAt < HOUSEKEEPING_NANOS) {
            return false;
        }
        housekept = true;
        housekeptAt = now;
        return true;
    }

    private void beforeClaim() {
        lock.lock();
        try {
            wakeRequested = false;
        } finally {
            lock.unlock();
        }
    }

    /** Sleeps up to {@code millis}, or until woken by a sooner message, a freed slot, or a stop. */
    private void await(long millis, long untilServerMs) throws InterruptedException {
        awaitNanos(TimeUnit.MILLISECONDS.toNanos(millis), untilServerMs);
    }

    private void awaitNanos(long nanos, long untilServerMs) throws InterruptedException {
        lock.lock();
        try {
            sleepingUntilServerMs = untilServerMs;
            while (!wakeRequested && running.getAsBoolean() && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            wakeRequested = false;
        } finally {
            sleepingUntilServerMs = NOT_SLEEPING;
            lock.unlock();
        }
    }

    /**
     * The server time (ms) this poller sleeps until, or {@link Long#MIN_VALUE} while it is not sleeping on a due
     * time (claiming, dispatching, backing off). For tests that must know the poller waits for a wake-up.
     */
    long sleepingUntilServerMs() {
        lock.lock();
        try {
            return sleepingUntilServerMs;
        } finally {
            lock.unlock();
        }
    }

    /** Sleeps {@code millis} unless stopped; unlike {@link #await}, wake-ups and freed slots do not end it. */
    private void pause(long millis) throws InterruptedException {
        long nanos = TimeUnit.MILLISECONDS.toNanos(millis);
        lock.lock();
        try {
            while (running.getAsBoolean() && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Wakes the poller: a wake-up message ({@code message} true, naming the due time it announces, or
     * {@link Long#MIN_VALUE}) only when that is before its planned wake; anything else (a freed slot, a stop)
     * always.
     */
    void signal(boolean message, long dueServerMs) {
        lock.lock();
        try {
            if (!message || sleepingUntilServerMs == NOT_SLEEPING || dueServerMs < sleepingUntilServerMs) {
                wakeRequested = true;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    void signal(boolean message) {
        signal(message, Long.MIN_VALUE);
    }

    /**
     * A turn of the watch read the queue: {@code headMs} is due before the next turn (or {@link Long#MIN_VALUE} when
     * nothing is), and, when {@code pauseRead}, whether the queue is paused. Wakes the poller as a wake-up naming that
     * due time would, unless its last claim saw the head and held it back on purpose (a limit or a pause), or the
     * queue is still paused; a queue found resumed wakes it (its resume's wake-up may have been lost).
     */
    void probed(long headMs, boolean pauseRead, boolean paused) {
        if (lastClaimPaused) {
            if (pauseRead && !paused) {
                signal(false);
            }
            return;
        }
        if (headMs == Long.MIN_VALUE || (lastClaimHeld && headMs < lastClaimServerMs)) {
            return;
        }
        signal(true, headMs);
    }

    /** The watch gives this instance the queue's periodic turn: the pass and a housekeeping claim, at once. */
    void periodicPass() {
        periodicRequested = true;
        signal(false);
    }

    /** Whether the last claim found the queue paused: the watch's turns then read whether it still is. */
    boolean pausedAtLastClaim() {
        return lastClaimPaused;
    }

    long intervalMs() {
        return options.maxPollInterval().toMillis();
    }

    long leaseMs() {
        return options.visibilityTimeout().toMillis();
    }
}
