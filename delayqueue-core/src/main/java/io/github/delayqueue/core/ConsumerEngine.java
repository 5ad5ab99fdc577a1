package io.github.delayqueue.core;

import java.io.InterruptedIOException;
import java.lang.reflect.Type;
import java.nio.channels.ClosedByInterruptException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer of one queue: a poller claims up to the number of free handler slots, handler threads
 * run the handler, a lease keeper extends leases of running handlers (and gives up on hung ones), and
 * a settler sends acks, retries and dead letters in batches.
 */
final class ConsumerEngine<T> implements DelayQueueConsumer {

    private static final Logger log = LoggerFactory.getLogger(DelayQueueConsumer.class);
    private static final long NOT_SLEEPING = Long.MIN_VALUE;
    private static final int SETTLE_BATCH = 500;
    private static final int MAX_TEXT = 4_000;
    private static final long BACKLOG_WAIT_MS = 5;
    private static final long SETTLE_LINGER_MS = 2;

    private enum State { NEW, RUNNING, STOPPING, STOPPED }

    /** One running delivery. */
    private final class Delivery {
        final QueueOps.Claimed claimed;
        final long startNanos = System.nanoTime();
        final AtomicBoolean settled = new AtomicBoolean();
        final AtomicBoolean slotHeld = new AtomicBoolean(true);
        volatile FutureTask<Void> task;
        volatile boolean timedOut;
        /** Set before shutdown interrupts the handler: whatever it does next, its work was abandoned. */
        volatile boolean cutOff;
        volatile boolean leaseLostLogged;

        Delivery(QueueOps.Claimed claimed) {
            this.claimed = claimed;
        }

        void settle(char op, long delayMs, String text) {
            if (settled.compareAndSet(false, true)) {
                settlements.add(new QueueOps.Settlement(op, claimed.member(), claimed.attempt(), delayMs, text));
            }
        }

        void finish() {
            running.remove(this);
            if (slotHeld.compareAndSet(true, false)) {
                slots.release();
                int wanted = slotsWanted;
                if (wanted > 0 && slots.availablePermits() >= wanted) {
                    signal(false); // only a poller waiting for slots cares; not one sleeping until a due time
                }
            }
        }
    }

    private final Function<String, ExecutorService> executors;
    private final RedissonClient redisson;
    private final QueueOps ops;
    private final PayloadCodec codec;
    private final Type payloadType;
    private final MessageHandler<T> handler;
    private final ConsumerOptions options;
    private final String queue;

    private final Semaphore slots;
    /** By identity, not member: a lease lost while a handler runs can bring the same member back as a second delivery. */
    private final Set<Delivery> running = ConcurrentHashMap.newKeySet();
    private final LinkedBlockingQueue<QueueOps.Settlement> settlements = new LinkedBlockingQueue<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();

    // guarded by lock
    private boolean wakeRequested;
    private long sleepingUntilServerMs = NOT_SLEEPING;

    /**
     * Free slots the poller waits for (0: it is not waiting for slots). Under a backlog it waits for a
     * half a batch rather than claiming one message per round trip as each handler finishes.
     */
    private volatile int slotsWanted;

    private volatile State state = State.NEW;
    private volatile boolean subscribed;
    /** Failed subscriptions in a row; the next attempt waits 1 s doubling up to a minute after the last. */
    private volatile int subscribeFailures;
    private volatile long nextSubscribeNanos;
    private volatile boolean settlerDone;
    /** Settlements the settler holds in its current batch (not in {@link #settlements} any more). */
    private volatile int settling;
    private Thread poller;
    private Thread settler;
    private ExecutorService workers;
    private ScheduledExecutorService keeper;
    private RTopic topic;
    private volatile Integer listenerId;

    ConsumerEngine(RedissonClient redisson, QueueOps ops, PayloadCodec codec, Type payloadType,
            MessageHandler<T> handler, ConsumerOptions options) {
        this(redisson, ops, codec, payloadType, handler, options, Threads::handlerExecutor);
    }

    /** {@code executors} makes the handler executor from its thread name prefix (tests give one that rejects). */
    ConsumerEngine(RedissonClient redisson, QueueOps ops, PayloadCodec codec, Type payloadType,
            MessageHandler<T> handler, ConsumerOptions options, Function<String, ExecutorService> executors) {
        this.executors = executors;
        this.redisson = redisson;
        this.ops = ops;
        this.codec = codec;
        this.payloadType = payloadType;
        this.handler = handler;
        this.options = options;
        this.queue = ops.keys().queue();
        this.slots = new Semaphore(options.concurrency());
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public synchronized void start() {
        if (state != State.NEW) {
            throw new IllegalStateException("consumer of queue '" + queue + "' was already started");
        }
        state = State.RUNNING;
        workers = executors.apply("delayqueue-handler-" + queue);
        keeper = Executors.newSingleThreadScheduledExecutor(Threads.named("delayqueue-lease-" + queue));
        long period = leasePeriodMs();
        keeper.scheduleWithFixedDelay(this::keepLeases, period, period, TimeUnit.MILLISECONDS);
        topic = redisson.getTopic(ops.keys().wakeChannel(), StringCodec.INSTANCE);
        settler = Threads.named("delayqueue-settler-" + queue).newThread(this::settleLoop);
        poller = Threads.named("delayqueue-poller-" + queue).newThread(this::pollLoop);
        settler.start();
        poller.start();
        log.debug("Started consumer of queue '{}' with {}", queue, options);
    }

    @Override
    public boolean isRunning() {
        return state == State.RUNNING;
    }

    @Override
    public int activeHandlers() {
        return running.size();
    }

    // ---- poller ------------------------------------------------------------------------------

    private void pollLoop() {
        long leaseMs = options.visibilityTimeout().toMillis();
        long maxSleepMs = options.maxPollInterval().toMillis();
        int maxAttempts = options.retry().maxAttempts();
        int reapLimit = Math.max(options.batchSize(), 100);
        long deadRetentionMs = options.deadLetterRetention().toMillis();
        // With a backlog, claim at least this many at once (waiting up to BACKLOG_WAIT_MS for free slots):
        // claiming each slot as it frees costs a round trip and a script call per message.
        int minClaim = Math.max(1, Math.min(options.batchSize(), options.concurrency()) / 2);
        boolean backlog = false;
        long backoffMs = 0;
        int failures = 0;
        int rejections = 0;
        long rejectedBackoffMs = 0;
        // On this thread, not in start(): with a lazily connecting client, Redisson connects inside
        // addListenerAsync and blocks for its whole retry budget while Redis is down. Started before the first
        // claim but not awaited: a wake-up published before the SUBSCRIBE completes (a round trip after start)
        // is missed, and that message waits for the safety poll (maxPollInterval) at most.
        subscribe();
        int unsettledLimit = Math.max(2 * SETTLE_BATCH, 2 * options.concurrency());
        boolean settleBacklog = false;
        while (state == State.RUNNING) {
            try {
                // back-pressure: while settling fails or lags, claim nothing more; finished deliveries waiting
                // to be settled stay bounded (at most this plus the running handlers), whatever Redis answers
                if (settlements.size() + settling >= unsettledLimit) {
                    if (!settleBacklog) {
                        settleBacklog = true;
                        log.warn("Queue '{}': {} finished deliveries wait to be settled; claiming paused until they are",
                                queue, settlements.size() + settling);
                    }
                    pause(20);
                    continue;
                }
                if (settleBacklog) {
                    settleBacklog = false;
                    log.info("Queue '{}': settling caught up; claiming again", queue);
                }
                int free = slots.availablePermits();
                if (free == 0) {
                    awaitSlots(1, maxSleepMs);
                    continue;
                }
                if (backlog && free < minClaim) {
                    awaitSlots(minClaim, BACKLOG_WAIT_MS);
                    free = slots.availablePermits();
                }
                int wanted = Math.min(options.batchSize(), free);
                beforeClaim();
                long sent = System.nanoTime();
                QueueOps.ClaimResult result = ops.claim(wanted, leaseMs, maxAttempts, reapLimit, deadRetentionMs,
                        options.deadLetterMaxCount());
                long received = System.nanoTime();
                backlog = result.messages().size() == wanted;
                if (failures > 0) {
                    log.info("Queue '{}': Redis answers again after {} failed polls", queue, failures);
                }
                failures = 0;
                backoffMs = 0;
                if (!subscribed && System.nanoTime() - nextSubscribeNanos >= 0) {
                    subscribe();
                }
                List<QueueOps.Claimed> messages = result.messages();
                boolean rejected = false;
                for (int i = 0; i < messages.size() && !rejected; i++) {
                    Throwable rejection = dispatch(messages.get(i));
                    if (rejection != null) {
                        rejected = true;
                        rejections++;
                        rejectedBackoffMs = Math.min(Math.max(100, rejectedBackoffMs * 2), 5_000);
                        handBack(messages.subList(i, messages.size()), rejection, rejections, rejectedBackoffMs);
                    }
                }
                if (rejected) {
                    pause(rejectedBackoffMs); // give the executor time; other consumers may take the messages meanwhile
                    continue;
                }
                if (rejections > 0 && !messages.isEmpty()) {
                    log.info("Queue '{}': the handler executor accepts work again after {} rejections", queue, rejections);
                    rejections = 0;
                    rejectedBackoffMs = 0;
                }
                if (result.messages().size() == wanted) {
                    continue; // probably more are due
                }
                long untilServerMs = result.serverNowMs() + maxSleepMs;
                long sleepNanos = TimeUnit.MILLISECONDS.toNanos(maxSleepMs);
                if (result.nextEventMs() >= 0 && result.nextEventMs() < untilServerMs) {
                    // to the microsecond: the server read its clock about half a round trip before the reply
                    // arrived, and dispatching took some of the time since
                    long clockReadAt = received - (received - sent) / 2;
                    long eventAt = clockReadAt
                            + TimeUnit.MICROSECONDS.toNanos(result.nextEventMs() * 1000 - result.serverNowMicros());
                    untilServerMs = result.nextEventMs();
                    sleepNanos = eventAt - System.nanoTime();
                }
                if (sleepNanos > 0) {
                    awaitNanos(sleepNanos, untilServerMs);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (Throwable e) { // an Error too: the poller must not end while the consumer runs
                failures++;
                backoffMs = Math.min(Math.max(100, backoffMs * 2), Math.max(1_000, Math.min(maxSleepMs * 5, 10_000)));
                if (failures == 1 || failures % 20 == 0) {
                    loopFailed(e, "Queue '{}': polling Redis failed ({} in a row), retrying in {} ms: {}", failures,
                            backoffMs);
                }
                try {
                    await(backoffMs, NOT_SLEEPING);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
    }

    /** Hands a claimed message to a handler thread; returns why the executor refused it, or null. */
    private Throwable dispatch(QueueOps.Claimed claimed) throws InterruptedException {
        slots.acquire(); // never blocks: only this thread acquires, and it claimed at most the free slots
        Delivery delivery = new Delivery(claimed);
        FutureTask<Void> task = new FutureTask<>(() -> handle(delivery), null);
        delivery.task = task;
        running.add(delivery);
        try {
            workers.execute(task);
            return null;
        } catch (Throwable e) { // RejectedExecutionException, or an Error such as "unable to create native thread"
            delivery.settled.set(true); // never ran: the lease keeper must not extend it
            delivery.finish();
            return e;
        }
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
            back.add(new QueueOps.Settlement('H', claimed.member(), claimed.attempt(), claimed.dueMs(), null));
        }
        try {
            ops.settle(back);
        } catch (RuntimeException e) {
            log.warn("Queue '{}': could not hand back {} refused messages; they will be delivered again after their "
                    + "lease: {}", queue, refused.size(), e.toString());
        }
    }

    /** Sleeps {@code millis} unless stopped; unlike {@link #await}, wake-ups and freed slots do not end it. */
    private void pause(long millis) throws InterruptedException {
        long nanos = TimeUnit.MILLISECONDS.toNanos(millis);
        lock.lock();
        try {
            while (state == State.RUNNING && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Waits up to {@code millis} until at least {@code wanted} handler slots are free. */
    private void awaitSlots(int wanted, long millis) throws InterruptedException {
        slotsWanted = wanted;
        try {
            if (slots.availablePermits() < wanted) { // re-read: a handler may have finished meanwhile
                await(millis, NOT_SLEEPING);
            }
        } finally {
            slotsWanted = 0;
        }
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
            while (!wakeRequested && state == State.RUNNING && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            wakeRequested = false;
        } finally {
            sleepingUntilServerMs = NOT_SLEEPING;
            lock.unlock();
        }
    }

    /** Wakes the poller; for a wake-up message, only when the new due time is before its planned wake. */
    private void signal(boolean message, long dueServerMs) {
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

    private void signal(boolean message) {
        signal(message, Long.MIN_VALUE);
    }

    private void subscribe() {
        // set before the call: a subscription that fails (even synchronously, inside addListenerAsync) resets it,
        // so the next successful poll subscribes again instead of relying on the safety poll for good
        subscribed = true;
        try {
            topic.addListenerAsync(String.class, (channel, due) -> {
                try {
                    signal(true, Long.parseLong(due));
                } catch (NumberFormatException e) {
                    signal(false);
                }
            }).whenComplete((id, error) -> {
                if (error == null) {
                    listenerId = id;
                    subscribed = true;
                    if (subscribeFailures > 0) {
                        subscribeFailures = 0;
                        log.info("Queue '{}': subscribed to wake-ups again", queue);
                    }
                    if (state != State.RUNNING) {
                        unsubscribe();
                    }
                } else {
                    subscriptionFailed(error);
                }
            });
        } catch (RuntimeException e) {
            subscriptionFailed(e);
        }
    }

    /**
     * Polls without wake-ups until a later subscription works: tried again after a successful claim, 1 s
     * after the first failure, doubling up to a minute. Said once at WARN (an ACL without channel
     * permission denies it on every try), then at DEBUG.
     */
    private void subscriptionFailed(Throwable error) {
        subscribed = false;
        int failures = ++subscribeFailures; // only one subscription is under way at a time
        long backoffMs = Math.min(60_000L, 1_000L << Math.min(failures - 1, 6));
        nextSubscribeNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoffMs);
        if (failures == 1 && state == State.RUNNING) {
            log.warn("Queue '{}': could not subscribe to wake-ups on channel '{}' ({}); polling every {} instead, "
                    + "so messages sent meanwhile may be up to that late. Allow the channel in the Redis ACL "
                    + "(see docs/redis-layout.md)", queue, ops.keys().wakeChannel(), error.toString(),
                    options.maxPollInterval());
        } else {
            log.debug("Queue '{}': wake-up subscription failed again ({} in a row): {}", queue, failures,
                    error.toString());
        }
    }

    private void unsubscribe() {
        Integer id = listenerId;
        if (id != null) {
            listenerId = null;
            try {
                topic.removeListenerAsync(id);
            } catch (RuntimeException e) {
                log.debug("Queue '{}': could not remove the wake-up listener: {}", queue, e.toString());
            }
        }
    }

    // ---- handlers ----------------------------------------------------------------------------

    private void handle(Delivery delivery) {
        QueueOps.Claimed claimed = delivery.claimed;
        try {
            Envelope envelope;
            Object payload;
            try {
                envelope = Envelope.parse(claimed.envelope());
                payload = codec.decode(envelope.payload(), payloadType);
                if (payload == null) { // no producer sends null; a handler must never see one
                    throw new IllegalArgumentException("payload is JSON null");
                }
            } catch (RuntimeException e) {
                log.warn("Queue '{}': message '{}' cannot be decoded as {}; moved to dead letters: {}", queue,
                        claimed.id(), payloadType.getTypeName(), e.toString());
                delivery.settle('D', 0, "undecodable payload for " + payloadType.getTypeName() + ": " + describe(e));
                return;
            }
            MessageContext context = new MessageContext(queue, claimed.id(), claimed.attempt(),
                    Instant.ofEpochMilli(claimed.dueMs()), envelope.enqueuedAt(), envelope.headers());
            try {
                @SuppressWarnings("unchecked")
                T typed = (T) payload;
                handler.handle(typed, context);
                if (delivery.cutOff) {
                    // returned after shutdown interrupted it (catch, restore the flag, return): the work was
                    // abandoned, so the message stays in flight and is redelivered after its lease
                    return;
                }
                delivery.settle('A', 0, null);
            } catch (Throwable e) {
                if (delivery.timedOut) {
                    return; // the lease keeper settled it already
                }
                if (delivery.cutOff || (state != State.RUNNING && interruptedBy(e))) {
                    // failed because the application is stopping (even with the interrupt wrapped in another
                    // exception): stays in flight, no attempt spent, redelivered after its lease
                    return;
                }
                failed(delivery, describe(e), e);
                if (e instanceof Error && !(e instanceof AssertionError)) {
                    throw (Error) e;
                }
            }
        } finally {
            delivery.finish();
        }
    }

    private void failed(Delivery delivery, String reason, Throwable error) {
        QueueOps.Claimed claimed = delivery.claimed;
        int maxAttempts = options.retry().maxAttempts();
        if (claimed.attempt() >= maxAttempts) {
            log.warn("Queue '{}': message '{}' failed on its last attempt ({} of {}); moved to dead letters", queue,
                    claimed.id(), claimed.attempt(), maxAttempts, error);
            delivery.settle('D', 0, reason);
        } else {
            Duration backoff = options.retry().backoffAfter(claimed.attempt());
            log.info("Queue '{}': message '{}' failed on attempt {} of {}, retrying in {} ms: {}", queue, claimed.id(),
                    claimed.attempt(), maxAttempts, backoff.toMillis(), reason);
            delivery.settle('R', backoff.toMillis(), reason);
        }
    }

    /** Whether {@code e} or its causes is an interrupt, or this thread's interrupt flag is set. */
    private static boolean interruptedBy(Throwable e) {
        if (Thread.currentThread().isInterrupted()) {
            return true;
        }
        Throwable t = e;
        for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) { // bounded: causes can form a cycle
            if (t instanceof InterruptedException || t instanceof InterruptedIOException
                    || t instanceof ClosedByInterruptException) {
                return true;
            }
        }
        return false;
    }

    private static String describe(Throwable e) {
        String text = e.getClass().getName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        return text.length() <= MAX_TEXT ? text : text.substring(0, MAX_TEXT);
    }

    // ---- lease keeper ------------------------------------------------------------------------

    private void keepLeases() {
        try {
            long timeoutNanos = options.handlerTimeout().toNanos();
            long now = System.nanoTime();
            List<Delivery> extended = new ArrayList<>();
            List<String> fences = new ArrayList<>();
            for (Delivery delivery : running) {
                if (now - delivery.startNanos > timeoutNanos) {
                    timeOut(delivery);
                } else if (!delivery.settled.get()) {
                    extended.add(delivery);
                    fences.add(delivery.claimed.member());
                    fences.add(Integer.toString(delivery.claimed.attempt()));
                }
            }
            for (int from = 0; from < extended.size(); from += SETTLE_BATCH) {
                int to = Math.min(extended.size(), from + SETTLE_BATCH);
                boolean[] ok = ops.extend(options.visibilityTimeout().toMillis(), fences.subList(from * 2, to * 2));
                for (int i = 0; i < ok.length; i++) {
                    Delivery delivery = extended.get(from + i);
                    if (!ok[i] && !delivery.leaseLostLogged && !delivery.settled.get()) {
                        delivery.leaseLostLogged = true;
                        log.warn("Queue '{}': lease of message '{}' (attempt {}) was lost while its handler runs; "
                                + "it may be delivered again", queue, delivery.claimed.id(), delivery.claimed.attempt());
                    }
                }
            }
        } catch (Throwable e) { // a scheduled task that throws is never run again: no lease would be extended
            loopFailed(e, "Queue '{}': extending leases failed, trying again in {} ms: {}", leasePeriodMs());
        }
    }

    private long leasePeriodMs() {
        return Math.max(20, options.visibilityTimeout().toMillis() / 3);
    }

    /**
     * Logs a failure of an engine loop, which then backs off and goes on: a RuntimeException (mostly Redis
     * unreachable) at WARN in one line, anything else (an Error) at ERROR with its stack trace. Never throws:
     * a logger that fails must not end the loop either.
     */
    private void loopFailed(Throwable e, String message, Object... args) {
        try {
            Object[] all = new Object[args.length + 2];
            all[0] = queue;
            System.arraycopy(args, 0, all, 1, args.length);
            all[all.length - 1] = e.toString();
            if (e instanceof RuntimeException) {
                log.warn(message, all);
            } else {
                Object[] withTrace = Arrays.copyOf(all, all.length + 1);
                withTrace[withTrace.length - 1] = e;
                log.error(message, withTrace);
            }
        } catch (Throwable ignored) {
            // nothing left to tell it with
        }
    }

    private void timeOut(Delivery delivery) {
        if (delivery.timedOut) {
            return;
        }
        delivery.timedOut = true;
        log.warn("Queue '{}': handler for message '{}' exceeded the handler timeout of {}; interrupting it, "
                + "the message will be retried, or dead-lettered on its last attempt", queue, delivery.claimed.id(),
                options.handlerTimeout());
        failed(delivery, "handler timed out after " + options.handlerTimeout(), null);
        FutureTask<Void> task = delivery.task;
        if (task != null) {
            task.cancel(true);
        }
        delivery.finish(); // frees the slot even if the handler ignores the interrupt
    }

    // ---- settler -----------------------------------------------------------------------------

    /**
     * While settlements keep coming (the last batch found more than one queued), waits up to
     * {@value #SETTLE_LINGER_MS} ms to fill the batch: a burst then settles in a few large script calls
     * instead of many small ones, each with its own round trip and fixed Redis cost. A lone ack is
     * sent at once. Only the ack is later; handler slots are freed before it.
     */
    private void linger(List<QueueOps.Settlement> batch) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETTLE_LINGER_MS);
        while (batch.size() < SETTLE_BATCH) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            QueueOps.Settlement next = settlements.poll(left, TimeUnit.NANOSECONDS);
            if (next == null) {
                return;
            }
            batch.add(next);
            settlements.drainTo(batch, SETTLE_BATCH - batch.size());
        }
    }

    private void settleLoop() {
        List<QueueOps.Settlement> batch = new ArrayList<>(SETTLE_BATCH);
        boolean busy = false;
        long backoffMs = 0;
        while (true) {
            try {
                if (batch.isEmpty()) {
                    QueueOps.Settlement first = settlements.poll(100, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        if (settlerDone) {
                            return;
                        }
                        continue;
                    }
                    batch.add(first);
                    settlements.drainTo(batch, SETTLE_BATCH - 1);
                    boolean wasBusy = busy;
                    busy = batch.size() > 1;
                    if (wasBusy && !settlerDone) {
                        linger(batch);
                    }
                }
                settling = batch.size();
                ops.settle(batch);
                batch.clear();
                settling = 0;
                backoffMs = 0;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Throwable e) { // an Error too: the settler must not end while deliveries finish
                if (settlerDone) {
                    loopFailed(e, "Queue '{}': could not settle {} finished deliveries at shutdown; they will be "
                            + "delivered again after their lease: {}", batch.size() + settlements.size());
                    return;
                }
                backoffMs = Math.min(Math.max(100, backoffMs * 2), 5_000);
                loopFailed(e, "Queue '{}': settling {} deliveries failed, retrying in {} ms: {}", batch.size(), backoffMs);
                try {
                    Thread.sleep(backoffMs);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    // ---- stop --------------------------------------------------------------------------------

    @Override
    public synchronized CompletableFuture<Void> stopAsync() {
        if (state == State.NEW) {
            state = State.STOPPED;
            stopped.complete(null);
        }
        if (state == State.RUNNING) {
            state = State.STOPPING;
            signal(false);
            Thread stopper = Threads.named("delayqueue-stop-" + queue).newThread(this::shutdown);
            stopper.start();
        }
        return stopped;
    }

    private void shutdown() {
        try {
            long deadline = System.nanoTime() + options.shutdownTimeout().toNanos();
            unsubscribe();
            joinQuietly(poller, deadline); // no new claims from here on
            lock.lock();
            try {
                while (!running.isEmpty()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
                }
            } finally {
                lock.unlock();
            }
            if (!running.isEmpty()) {
                log.warn("Queue '{}': {} handlers still running after the shutdown timeout of {}; interrupting them, "
                        + "their messages will be delivered again after their lease", queue, running.size(),
                        options.shutdownTimeout());
            }
            for (Delivery delivery : running) {
                delivery.cutOff = true; // before the interrupt, so a handler returning because of it is not acked
            }
            workers.shutdownNow();
            keeper.shutdownNow();
            settlerDone = true;
            joinQuietly(settler, System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
            log.debug("Stopped consumer of queue '{}'", queue);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            log.warn("Queue '{}': error while stopping", queue, e);
        } finally {
            state = State.STOPPED;
            stopped.complete(null);
        }
    }

    private static void joinQuietly(Thread thread, long deadlineNanos) throws InterruptedException {
        long left = deadlineNanos - System.nanoTime();
        if (thread != null && left > 0) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        }
    }
}
