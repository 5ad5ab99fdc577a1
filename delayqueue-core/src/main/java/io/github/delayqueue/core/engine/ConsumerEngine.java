package io.github.delayqueue.core.engine;

import java.io.InterruptedIOException;
import java.lang.reflect.Type;
import java.nio.channels.ClosedByInterruptException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.github.delayqueue.core.BatchFailedException;
import io.github.delayqueue.core.BatchItem;
import io.github.delayqueue.core.BatchMessageHandler;
import io.github.delayqueue.core.BatchOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.DelayQueueListener;
import io.github.delayqueue.core.DeliveryErrorHandler;
import io.github.delayqueue.core.DeliveryInterceptor;
import io.github.delayqueue.core.DeliveryOutcome;
import io.github.delayqueue.core.FailureAction;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.MessageHandler;
import io.github.delayqueue.core.PayloadCodec;
import io.github.delayqueue.core.RetryLaterException;
import io.github.delayqueue.core.SlowDownException;
import io.github.delayqueue.core.protocol.Envelope;
import io.github.delayqueue.core.protocol.HistoryRecord;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.QueueRoute;
import io.github.delayqueue.core.protocol.Unreadable;

/**
 * The consumer of one queue: its lifecycle, its handler slots and the handler call with the retry
 * decision. The roles around it have files of their own: {@link Poller} claims and dispatches,
 * {@link LeaseKeeper} extends the leases of running handlers (and gives up on hung ones), {@link Settler}
 * sends acks, retries and dead letters in batches, {@link WakeUps} listens for sooner messages, and
 * {@link Delivery} is one claimed message. The lease keeper and settler run on threads shared by all
 * consumers of one client ({@link SharedThreads}).
 */
public final class ConsumerEngine<T> implements DelayQueueConsumer, Delivery.Owner {

    private static final Logger log = LoggerFactory.getLogger(DelayQueueConsumer.class);
    private static final int MAX_TEXT = 4_000;
    private static final Duration SETTLE_AT_STOP = Duration.ofSeconds(5);

    private enum State { NEW, RUNNING, STOPPING, STOPPED }

    private final Function<String, ExecutorService> executors;
    private final RedissonClient redisson;
    private final SharedThreads shared;
    private final QueueOps ops;
    private final PayloadCodec codec;
    private final Type payloadType;
    /** The handler of one message at a time; null for a batch consumer. */
    private final @Nullable MessageHandler<T> handler;
    /** The batch handler and how it is fed; both null unless this is a batch consumer. */
    private final @Nullable BatchMessageHandler<T> batchHandler;
    private final @Nullable BatchOptions batch;
    private final ConsumerOptions options;
    private final String queue;
    /** {@link DelayQueueListener#NONE} when nobody listens: then nothing is measured for it. */
    private final DelayQueueListener listener;

    /** The handler slots; shared with the engines of the other partitions of a partitioned queue. */
    private final Slots slots;
    /** Checks the queue's partition count against Redis ({@link QueueRoute#check}) before the first claim. */
    private final Runnable partitionCheck;
    /** The queue, and the partition when there are several: for thread names. */
    private final String label;
    /** By identity, not member: a lease lost while a handler runs can bring the same member back as a second delivery. */
    private final Set<Delivery> running = ConcurrentHashMap.newKeySet();
    /** Signalled when a delivery finishes while stopping. */
    private final ReentrantLock stopLock = new ReentrantLock();
    private final Condition finishedWhileStopping = stopLock.newCondition();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();

    private volatile State state = State.NEW;
    /** What a {@link SlowDownException} holds: this partition, or every partition of the queue. */
    private volatile List<QueueOps> holdParts;
    private volatile @Nullable Throwable failure;
    private @Nullable Thread pollerThread;
    private volatile @Nullable Poller poller;
    private @Nullable Settler settler;
    private @Nullable LeaseKeeper keeper;
    private @Nullable WakeUps wakeUps;
    private @Nullable ExecutorService workers;

    public ConsumerEngine(RedissonClient redisson, SharedThreads shared, QueueOps ops, PayloadCodec codec, Type payloadType,
            MessageHandler<T> handler, ConsumerOptions options) {
        this(redisson, shared, ops, codec, payloadType, handler, options,
                name -> Threads.handlerExecutor(name, options.virtualThreads()));
    }

    public ConsumerEngine(RedissonClient redisson, SharedThreads shared, QueueOps ops, PayloadCodec codec, Type payloadType,
            MessageHandler<T> handler, ConsumerOptions options, Function<String, ExecutorService> executors) {
        this(redisson, shared, ops, codec, payloadType, handler, options, executors, DelayQueueListener.NONE);
    }

    /** {@code executors} makes the handler executor from its thread name prefix (tests give one that rejects). */
    public ConsumerEngine(RedissonClient redisson, SharedThreads shared, QueueOps ops, PayloadCodec codec, Type payloadType,
            MessageHandler<T> handler, ConsumerOptions options, Function<String, ExecutorService> executors,
            DelayQueueListener listener) {
        this(redisson, shared, ops, codec, payloadType, handler, options, executors, listener,
                new Slots(options.concurrency()), () -> { });
    }

    /** {@code slots} may be shared by the engines of a partitioned queue's partitions ({@link PartitionedConsumer}). */
    public ConsumerEngine(RedissonClient redisson, SharedThreads shared, QueueOps ops, PayloadCodec codec, Type payloadType,
            MessageHandler<T> handler, ConsumerOptions options, Function<String, ExecutorService> executors,
            DelayQueueListener listener, Slots slots, Runnable partitionCheck) {
        this(redisson, shared, ops, codec, payloadType, handler, null, null, options, executors, listener, slots,
                partitionCheck);
    }

    /**
     * A batch consumer: hands up to {@code batch.size()} claimed messages at a time to {@code handler}; {@code slots}
     * count messages ({@code concurrency × batch size} for the whole consumer).
     */
    public static <T> ConsumerEngine<T> batch(RedissonClient redisson, SharedThreads shared, QueueOps ops,
            PayloadCodec codec, Type payloadType, BatchMessageHandler<T> handler, BatchOptions batch,
            ConsumerOptions options, Function<String, ExecutorService> executors, DelayQueueListener listener,
            Slots slots, Runnable partitionCheck) {
        // each claim fills one batch: the poller claims at most batch.size() messages at once
        ConsumerOptions claiming = options.toBuilder().batchSize(batch.size()).build();
        return new ConsumerEngine<>(redisson, shared, ops, codec, payloadType, null, handler, batch, claiming, executors,
                listener, slots, partitionCheck);
    }

    private ConsumerEngine(RedissonClient redisson, SharedThreads shared, QueueOps ops, PayloadCodec codec,
            Type payloadType, @Nullable MessageHandler<T> handler, @Nullable BatchMessageHandler<T> batchHandler,
            @Nullable BatchOptions batch, ConsumerOptions options, Function<String, ExecutorService> executors,
            DelayQueueListener listener, Slots slots, Runnable partitionCheck) {
        this.batchHandler = batchHandler;
        this.batch = batch;
        this.executors = executors;
        this.listener = SafeListener.of(listener);
        this.redisson = redisson;
        this.shared = shared;
        this.ops = ops;
        this.codec = codec;
        this.payloadType = payloadType;
        this.handler = handler;
        this.options = options;
        this.queue = ops.keys().queue();
        this.label = ops.keys().label();
        this.slots = slots;
        this.partitionCheck = partitionCheck;
        this.holdParts = List.of(ops);
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
        shared.acquire();
        workers = executors.apply("delayqueue-handler-" + label);
        settler = new Settler(queue, ops, shared.settler(), () -> poller.settleProgress(), listener, shared.sets(),
                shared.forwarder());
        keeper = new LeaseKeeper(queue, ops, options, running, this::timeOut, this::goneWhileRunning);
        keeper.start(shared.keeper());
        wakeUps = new WakeUps(redisson, ops.keys(), options.maxPollInterval(), due -> poller.signal(true, due),
                this::cancelRunning);
        Watch watch = shared.watch();
        WakeUps subscription = wakeUps;
        poller = new Poller(queue, ops, options, slots, settler, wakeUps, this::isRunning, this::dispatch, listener,
                partitionCheck, batch == null ? null : this::dispatchBatch, batch == null ? 0 : batch.maxWait().toNanos(),
                () -> watch != null && watch.covers() && subscription.listening());
        slots.register(poller);
        if (watch != null) {
            watch.register(ops.keys(), poller);
        }
        pollerThread = Threads.named("delayqueue-poller-" + label).newThread(this::poll);
        pollerThread.start();
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

    @Override
    public @Nullable Throwable failure() {
        return failure;
    }

    /**
     * Whether this consumer's poller sleeps until at least {@code serverMs} (server clock), waiting for a wake-up:
     * tests wait for this state instead of sleeping a fixed time and hoping.
     */
    public boolean sleepsPast(long serverMs) {
        Poller current = poller;
        return current != null && current.sleepingUntilServerMs() >= serverMs;
    }

    /**
     * The poller thread: the claiming loop, and what ended it if that was not a stop. The loop itself survives
     * every failure of its work; what reaches here escaped it (an Error before the loop, an interrupt from
     * another thread), and is kept as {@link #failure()} for health checks rather than lost with the thread.
     */
    private void poll() {
        Throwable escaped = null;
        try {
            poller.run();
        } catch (Throwable e) {
            escaped = e;
        } finally {
            leaveTurns(); // a poller that ended (stopped or failed) takes no more turns at checking its queue
            if (state == State.RUNNING) {
                Throwable cause = escaped != null ? escaped : new IllegalStateException(
                        "the poller thread of queue '" + queue + "' ended without a stop"
                                + (Thread.currentThread().isInterrupted() ? " (interrupted by another thread)" : ""));
                failure = cause;
                try {
                    log.error("Queue '{}': the consumer stopped claiming messages for good: {}. Stop it and start a "
                            + "new one (in Spring Boot: restart the application)", queue, cause.toString(), cause);
                } catch (Throwable ignored) {
                    // failure() still tells it
                }
            }
        }
    }

    // ---- deliveries --------------------------------------------------------------------------

    /** Hands a claimed message to a handler thread; returns why the executor refused it, or null. */
    private @Nullable Throwable dispatch(QueueOps.Claimed claimed) {
        // its slot was taken by the poller before the claim; the delivery gives it back when it finishes
        Delivery delivery = new Delivery(claimed, this);
        FutureTask<Void> task = new FutureTask<>(() -> handle(delivery), null) {
            @Override
            protected void done() {
                if (isCancelled()) { // interrupted for a cancel or a timeout, maybe before it ever ran handle()
                    delivery.finishIfNeverStarted();
                }
            }
        };
        delivery.runOn(task);
        running.add(delivery);
        try {
            workers.execute(task);
            return null;
        } catch (Throwable e) { // RejectedExecutionException, or an Error such as "unable to create native thread"
            delivery.neverRun(); // handed back by the poller; the lease keeper must not extend it
            delivery.finish();
            return e;
        }
    }

    /**
     * Hands one claim's messages to a handler thread as one batch, each its own {@link Delivery} (so the lease keeper
     * extends every lease and each settles on its own); returns why the executor refused it, or null.
     */
    private @Nullable Throwable dispatchBatch(List<QueueOps.Claimed> claimed) {
        List<Delivery> deliveries = new ArrayList<>(claimed.size());
        for (QueueOps.Claimed message : claimed) {
            deliveries.add(new Delivery(message, this));
        }
        FutureTask<Void> task = new FutureTask<>(() -> handleBatch(deliveries), null);
        for (Delivery delivery : deliveries) {
            delivery.runOn(task);
        }
        running.addAll(deliveries);
        try {
            workers.execute(task);
            return null;
        } catch (Throwable e) { // as in dispatch: every message is handed back by the poller
            for (Delivery delivery : deliveries) {
                delivery.neverRun();
                delivery.finish();
            }
            return e;
        }
    }

    /** What {@link #read} returns for a handler of {@code Void}: it is given null. */
    private static final Object NO_PAYLOAD = new Object();

    /**
     * The one place a {@link MessageContext} is built: from the claimed member and, once it is parsed, its envelope
     * (null: not parsed or unreadable, so no enqueue time and no headers).
     */
    private MessageContext contextOf(Delivery delivery, @Nullable Envelope envelope) {
        QueueOps.Claimed claimed = delivery.claimed;
        return new MessageContext(queue, claimed.id(), claimed.attempt(), Instant.ofEpochMilli(claimed.dueMs()),
                envelope == null ? null : envelope.enqueuedAt(), envelope == null ? Map.of() : envelope.headers(),
                Envelope.groupOf(claimed.member()), delivery);
    }

    /**
     * The message {@code id} was cancelled while in flight (cancel.lua's wake-up, or a lease extension that found it
     * gone): a delivery of it running here settles nothing more, and its handler is interrupted (a batch's is not: the
     * other messages of the batch go on; the cancelled one's outcome is not settled).
     */
    /** This consumer's poller leaves the client's turns at checking idle queues (idempotent). */
    private void leaveTurns() {
        Watch watch = shared.watch();
        if (watch != null && poller != null) {
            watch.unregister(ops.keys(), poller);
        }
    }

    private void cancelRunning(String member) {
        for (Delivery delivery : running) {
            if (delivery.claimed.member().equals(member)) { // this send of the id: not one sent again since
                stopRunning(delivery, "was cancelled");
            }
        }
    }

    /** A lease extension found the message of this running delivery gone: cancelled, or settled by another delivery. */
    private void goneWhileRunning(Delivery delivery) {
        stopRunning(delivery, "is gone (cancelled, or settled by a later delivery)");
    }

    private void stopRunning(Delivery delivery, String why) {
        if (delivery.cancel()) {
            log.info("Queue '{}': message '{}' (attempt {}) {} while its handler ran; {}", queue, delivery.claimed.id(),
                    delivery.claimed.attempt(), why, batch == null ? "interrupting it" : "its outcome will not be settled");
            if (batch == null) {
                delivery.interrupt();
            }
        }
    }

    /**
     * Reads a claimed message, the same for a single and a batch delivery: its context (set on the delivery) and its
     * payload. Null when it cannot be read: then it went to the dead letters, after the interceptors were told
     * ({@link DeliveryInterceptor#undecodable}: a schedule's tick writes its next one), or, when one of them failed,
     * it was failed as a handler's exception would fail it (retried, so that write is tried again).
     */
    private @Nullable Object read(Delivery delivery) {
        QueueOps.Claimed claimed = delivery.claimed;
        Envelope envelope;
        try {
            envelope = Envelope.parse(claimed.envelope());
        } catch (RuntimeException e) { // Envelope's messages name the part, never the stored text
            undecodable(delivery, e, e instanceof IllegalArgumentException ? e.getMessage() : Unreadable.describe(e));
            return null;
        }
        MessageContext context = contextOf(delivery, envelope);
        if (payloadType == Void.class) { // a handler that takes no payload: nothing to decode, nothing to fail
            delivery.context = context;
            return NO_PAYLOAD;
        }
        Object payload;
        RuntimeException error;
        String why;
        try {
            payload = codec.decode(envelope.payload(), payloadType);
            if (payload != null) {
                delivery.context = context;
                return payload;
            }
            // no producer sends null; a handler must never see one
            error = new IllegalArgumentException("payload is JSON null");
            why = "payload is JSON null";
        } catch (RuntimeException e) { // a codec's message may quote the payload: only type, path and position
            error = e;
            why = Unreadable.describe(e);
        }
        try {
            beforeUndecodable(context);
        } catch (RuntimeException e) {
            log.warn("Queue '{}': an interceptor failed on undecodable message '{}'; failing it so that it is tried "
                    + "again: {}", queue, claimed.id(), e.toString());
            if (!delivery.timedOut()) {
                failed(delivery, context, e);
            }
            return null;
        }
        undecodable(delivery, error, why);
        return null;
    }

    /**
     * One batch on its handler thread: undecodable messages are dead-lettered and left out; the handler's return
     * acknowledges the rest, a {@link BatchFailedException} fails only the messages it names, any other exception
     * every message (each by the retry policy, its own attempt).
     */
    @SuppressWarnings("unchecked")
    private void handleBatch(List<Delivery> deliveries) {
        List<Delivery> handed = new ArrayList<>(deliveries.size());
        List<BatchItem<T>> items = new ArrayList<>(deliveries.size());
        try {
            for (Delivery delivery : deliveries) {
                Object payload = read(delivery);
                if (payload == null) {
                    delivery.finish();
                    continue;
                }
                MessageContext context = delivery.context;
                if (listener != DelayQueueListener.NONE) {
                    long startNanos = System.nanoTime();
                    delivery.handlerStartNanos = startNanos;
                    listener.handlerStarted(context, Duration.ofNanos(Math.max(0, startNanos - delivery.claimed.dueNanos())));
                }
                boolean admitted;
                try {
                    admitted = admitted(context, payload);
                } catch (Throwable e) { // an interceptor failed this message: it alone is retried or dead-lettered
                    if (e instanceof SlowDownException slowDown) { // holds the queue (or group), as for a single message
                        holdQueue(delivery.claimed, slowDown, Envelope.groupOf(delivery.claimed.member()));
                    }
                    failedInBatch(delivery, e);
                    delivery.finish();
                    continue;
                }
                if (!admitted) { // an interceptor left it out: acknowledged without the handler
                    acknowledge(delivery);
                    delivery.finish();
                    continue;
                }
                handed.add(delivery);
                items.add(new BatchItem<>((T) payload, context));
            }
            if (items.isEmpty()) {
                return;
            }
            try {
                batchHandler.handle(List.copyOf(items));
                if (anyCutOff(handed)) {
                    for (Delivery delivery : handed) {
                        afterDelivery(delivery, delivery.context, DeliveryOutcome.ABANDONED, null);
                    }
                    return;
                }
                for (Delivery delivery : handed) {
                    acknowledge(delivery);
                }
            } catch (Throwable e) {
                if (anyCutOff(handed) || (state != State.RUNNING && interruptedBy(e))) {
                    for (Delivery delivery : handed) {
                        if (!delivery.timedOut()) {
                            afterDelivery(delivery, delivery.context, DeliveryOutcome.ABANDONED, e);
                        }
                    }
                    return;
                }
                if (e instanceof BatchFailedException failure) {
                    Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
                    for (Delivery delivery : handed) {
                        if (failure.failedIds().contains(delivery.claimed.id())) {
                            failedInBatch(delivery, cause);
                        } else {
                            acknowledge(delivery);
                        }
                    }
                    return;
                }
                if (e instanceof SlowDownException slowDown) {
                    // a batch of one group's messages holds that group; of several groups (or ungrouped), the queue
                    String group = Envelope.groupOf(handed.get(0).claimed.member());
                    for (Delivery delivery : handed) {
                        if (group != null && !group.equals(Envelope.groupOf(delivery.claimed.member()))) {
                            group = null;
                        }
                    }
                    holdQueue(handed.get(0).claimed, slowDown, group);
                }
                for (Delivery delivery : handed) {
                    failedInBatch(delivery, e);
                }
                if (e instanceof Error && !(e instanceof AssertionError)) {
                    throw (Error) e;
                }
            }
        } finally {
            for (Delivery delivery : deliveries) {
                delivery.finish(); // frees each slot once; later calls do nothing but leave the running set
            }
        }
    }

    private static boolean anyCutOff(List<Delivery> deliveries) {
        for (Delivery delivery : deliveries) {
            if (delivery.isCutOff()) {
                return true;
            }
        }
        return false;
    }

    private void acknowledge(Delivery delivery) {
        if (delivery.timedOut()) {
            return; // the lease keeper settled it already
        }
        delivery.settle(QueueOps.SettleOp.ACK, 0, null);
        afterDelivery(delivery, delivery.context, DeliveryOutcome.ACKNOWLEDGED, null);
    }

    /** One message of a batch failed with {@code e}: retried later, retried or dead-lettered as a single message is. */
    private void failedInBatch(Delivery delivery, Throwable e) {
        if (delivery.timedOut()) {
            return;
        }
        if (e instanceof RetryLaterException later) {
            delivery.settle(QueueOps.SettleOp.LATER, later.delay().toMillis(), null);
            afterDelivery(delivery, delivery.context, DeliveryOutcome.RETRY_LATER, e);
            return;
        }
        failed(delivery, delivery.context, e);
    }

    /**
     * Runs the interceptors' {@code aroundHandle} of one message of a batch, before the batch call: their innermost
     * {@code proceed} admits the message to the batch. Returns false when an interceptor left it out (it is then
     * acknowledged without the handler, as a single message is); what they throw fails that message alone. Not nested
     * around the batch call: one interceptor leaving one message out must not leave out the batch, and a thousand
     * nested calls would risk the handler thread's stack.
     */
    private boolean admitted(MessageContext context, Object payload) throws Exception {
        List<DeliveryInterceptor> interceptors = options.interceptors();
        if (interceptors.isEmpty()) {
            return true;
        }
        boolean[] proceeded = {false};
        aroundOne(interceptors, context, payload, 0, proceeded);
        return proceeded[0];
    }

    private static void aroundOne(List<DeliveryInterceptor> interceptors, MessageContext context, Object payload,
            int index, boolean[] proceeded) throws Exception {
        if (index == interceptors.size()) {
            proceeded[0] = true;
        } else {
            interceptors.get(index).aroundHandle(context, payload,
                    () -> aroundOne(interceptors, context, payload, index + 1, proceeded));
        }
    }

    @Override
    public void settle(QueueOps.Settlement settlement) {
        settler.add(settlement);
    }

    @Override
    public int historyKeep() {
        if (!options.keepsHistory()) {
            return -1;
        }
        int partitions = ops.keys().partitions(); // each partition keeps its share, as of dead letters
        return options.historyMaxCount() == 0 ? 0 : (options.historyMaxCount() + partitions - 1) / partitions;
    }

    @Override
    public String encodeResult(Object value) {
        String json;
        try {
            json = codec.encode(value);
        } catch (RuntimeException e) {
            // the codec's message may quote the value: only its type goes into the error (and a dead letter's reason)
            throw new IllegalArgumentException("Queue '" + queue + "': a progress or result value of type "
                    + value.getClass().getName() + " could not be encoded (" + e.getClass().getSimpleName() + ")", e);
        }
        if (!HistoryRecord.isJson(json)) {
            json = HistoryRecord.quoted(json); // a codec for another format: kept as a JSON string
        }
        int bytes = json.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MessageContext.MAX_RESULT_BYTES) {
            throw new IllegalArgumentException("Queue '" + queue + "': a progress or result value takes " + bytes
                    + " bytes of JSON; at most " + MessageContext.MAX_RESULT_BYTES + " are kept");
        }
        return json;
    }

    @Override
    public void progressChanged(Delivery delivery) {
        if (!delivery.progressWriting.compareAndSet(false, true)) {
            return; // the write scheduled or under way picks the latest value, or schedules the next when it ends
        }
        long last = delivery.progressWrittenNanos;
        long wait = last == 0 ? 0
                : Math.max(0, last + TimeUnit.MILLISECONDS.toNanos(MessageContext.PROGRESS_INTERVAL_MS) - System.nanoTime());
        try {
            shared.keeper().schedule(() -> writeProgress(delivery), wait, TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) { // stopping: the record of its settle keeps the last value
            delivery.progressWriting.set(false);
        }
    }

    /** Writes the latest progress of a delivery still under way, then the next one if it changed meanwhile. */
    private void writeProgress(Delivery delivery) {
        String json = delivery.progressJson;
        if (json == null || delivery.isSettled()) {
            delivery.progressWriting.set(false);
            return;
        }
        delivery.progressWrittenNanos = Math.max(1, System.nanoTime());
        QueueOps.Claimed claimed = delivery.claimed;
        ops.runningAsync(claimed.id(), claimed.member(), claimed.attempt(), delivery.runningRecord(), json)
                .whenComplete((kept, e) -> {
                    if (Boolean.TRUE.equals(kept)) {
                        delivery.runningWritten = true;
                    }
                    if (e != null) {
                        // progress is for people looking: a failed write never fails the handler; the record keeps it
                        log.debug("Queue '{}': could not write the progress of message '{}': {}", queue, claimed.id(),
                                e.toString());
                    }
                    delivery.progressWriting.set(false);
                    if (delivery.progressJson != json && !delivery.isSettled()) {
                        progressChanged(delivery);
                    }
                });
    }

    @Override
    public void finished(Delivery delivery, boolean slotReleased) {
        running.remove(delivery);
        if (slotReleased) {
            slots.giveBack(1);
        }
        if (state != State.RUNNING) {
            stopLock.lock();
            try {
                finishedWhileStopping.signalAll();
            } finally {
                stopLock.unlock();
            }
        }
    }

    private void handle(Delivery delivery) {
        QueueOps.Claimed claimed = delivery.claimed;
        try {
            if (!delivery.begin()) {
                // cancelled (or timed out) before its handler started: the task's done() finished it, or will
                return;
            }
            Object payload = read(delivery);
            if (payload == null) {
                return;
            }
            if (payload == NO_PAYLOAD) {
                payload = null;
            }
            MessageContext context = delivery.context;
            if (listener != DelayQueueListener.NONE) {
                long startNanos = System.nanoTime();
                delivery.handlerStartNanos = startNanos;
                listener.handlerStarted(context, Duration.ofNanos(Math.max(0, startNanos - claimed.dueNanos())));
            }
            try {
                invoke(context, payload, 0);
                if (delivery.timedOut()) {
                    return; // returned past its timeout: the lease keeper settled and reported it already
                }
                if (delivery.isCancelled()) {
                    afterDelivery(delivery, context, DeliveryOutcome.CANCELLED, null); // the message is gone
                    return;
                }
                if (delivery.isCutOff()) {
                    // returned after shutdown interrupted it (catch, restore the flag, return): the work was
                    // abandoned, so the message stays in flight and is redelivered after its lease
                    afterDelivery(delivery, context, DeliveryOutcome.ABANDONED, null);
                    return;
                }
                delivery.settle(QueueOps.SettleOp.ACK, 0, null);
                afterDelivery(delivery, context, DeliveryOutcome.ACKNOWLEDGED, null);
            } catch (Throwable e) {
                if (delivery.timedOut()) {
                    return; // the lease keeper settled it already
                }
                if (delivery.isCancelled()) {
                    afterDelivery(delivery, context, DeliveryOutcome.CANCELLED, e); // interrupted for the cancel
                    return;
                }
                if (delivery.isCutOff() || (state != State.RUNNING && interruptedBy(e))) {
                    // failed because the application is stopping (even with the interrupt wrapped in another
                    // exception): stays in flight, no attempt spent, redelivered after its lease
                    afterDelivery(delivery, context, DeliveryOutcome.ABANDONED, e);
                    return;
                }
                if (e instanceof SlowDownException slowDown) {
                    holdQueue(claimed, slowDown, Envelope.groupOf(claimed.member()));
                }
                if (e instanceof RetryLaterException later) {
                    log.debug("Queue '{}': message '{}' asked to be retried in {} ms (attempt {} not counted): {}", queue,
                            claimed.id(), later.delay().toMillis(), claimed.attempt(), later.getMessage());
                    delivery.settle(QueueOps.SettleOp.LATER, later.delay().toMillis(), null);
                    afterDelivery(delivery, context, DeliveryOutcome.RETRY_LATER, e);
                    return;
                }
                failed(delivery, context, e);
                if (e instanceof Error && !(e instanceof AssertionError)) {
                    throw (Error) e;
                }
            }
        } finally {
            delivery.finish();
        }
    }

    /**
     * Holds the claims of the queue (every partition), or of the message's group only, for the exception's delay, before the message is settled:
     * a claim anywhere after that sees the hold. If Redis refuses, the message is still retried later.
     */
    private void holdQueue(QueueOps.Claimed claimed, SlowDownException slowDown, @Nullable String group) {
        long delayMs = slowDown.delay().toMillis();
        log.debug("Queue '{}': message '{}' asked to slow down: claims{} hold for {} ms on every instance", queue,
                claimed.id(), group == null ? "" : " of group '" + group + "'", delayMs);
        for (QueueOps part : holdParts) {
            try {
                if (group != null) { // a grouped message holds its group only (includes/groups.lua)
                    part.holdGroup(delayMs, group);
                } else {
                    part.hold(delayMs);
                }
            } catch (RuntimeException e) {
                log.warn("Queue '{}': could not hold claims for {} ms after a slow-down: {}", part.keys().label(),
                        delayMs, e.toString());
            }
        }
    }

    /** The partitions a slow-down holds: every one of the queue ({@code DelayQueueClient.newConsumer}). */
    public void holdsWith(List<QueueOps> parts) {
        this.holdParts = List.copyOf(parts);
    }

    /** Runs interceptor {@code index} (the handler after the last) around the rest. */
    @SuppressWarnings("unchecked")
    private void invoke(MessageContext context, Object payload, int index) throws Exception {
        List<DeliveryInterceptor> interceptors = options.interceptors();
        if (index == interceptors.size()) {
            handler.handle((T) payload, context);
        } else {
            interceptors.get(index).aroundHandle(context, payload, () -> invoke(context, payload, index + 1));
        }
    }

    /** The default rule for a failure: dead letter for a noRetryFor exception or on the last attempt, else retry. */
    private FailureAction proposed(int attempt, Throwable error) {
        if (attempt >= options.retry().maxAttempts() || noRetryFor(error)) {
            return FailureAction.deadLetter();
        }
        return FailureAction.retryAfter(options.retry().backoffAfter(attempt));
    }

    private boolean noRetryFor(Throwable error) {
        if (options.noRetryFor().isEmpty()) {
            return false;
        }
        Throwable t = error;
        for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) { // bounded: causes can form a cycle
            for (Class<? extends Throwable> type : options.noRetryFor()) {
                if (type.isInstance(t)) {
                    return true;
                }
            }
        }
        return false;
    }

    private void failed(Delivery delivery, MessageContext context, Throwable error) {
        QueueOps.Claimed claimed = delivery.claimed;
        int maxAttempts = options.retry().maxAttempts();
        String reason = describe(error);
        FailureAction proposed = proposed(claimed.attempt(), error);
        FailureAction action = proposed;
        DeliveryErrorHandler errorHandler = options.errorHandler();
        if (errorHandler != null) {
            try {
                action = Objects.requireNonNull(errorHandler.onFailure(context, error, proposed),
                        "the error handler returned null");
            } catch (RuntimeException e) {
                log.warn("Queue '{}': the error handler failed on message '{}'; doing what it was offered ({}): {}", queue,
                        claimed.id(), proposed, e.toString());
                action = proposed;
            }
        }
        switch (action.kind()) {
            case DEAD_LETTER -> {
                log.warn("Queue '{}': message '{}' failed on attempt {} of {}{}; moved to dead letters", queue,
                        claimed.id(), claimed.attempt(), maxAttempts, action == proposed && claimed.attempt() < maxAttempts
                                && errorHandler == null ? " (an exception that is never retried)" : "", error);
                delivery.settle(QueueOps.SettleOp.DEAD, 0, reason);
                afterDelivery(delivery, context, DeliveryOutcome.DEAD_LETTERED, error);
            }
            case ACKNOWLEDGE -> {
                log.info("Queue '{}': message '{}' failed on attempt {}; acknowledged by the error handler: {}", queue,
                        claimed.id(), claimed.attempt(), reason);
                delivery.settle(QueueOps.SettleOp.ACK, 0, null);
                afterDelivery(delivery, context, DeliveryOutcome.ACKNOWLEDGED, error);
            }
            default -> {
                log.info("Queue '{}': message '{}' failed on attempt {} of {}, retrying in {} ms: {}", queue,
                        claimed.id(), claimed.attempt(), maxAttempts, action.delay().toMillis(), reason);
                delivery.settle(QueueOps.SettleOp.RETRY, action.delay().toMillis(), reason);
                afterDelivery(delivery, context, DeliveryOutcome.RETRIED, error);
            }
        }
    }

    /**
     * Tells the listener (when a handler ran: {@code context} is set) and the interceptors; they cannot change
     * the outcome, and what they throw is logged.
     */
    private void afterDelivery(Delivery delivery, @Nullable MessageContext context, DeliveryOutcome outcome,
            @Nullable Throwable error) {
        if (context != null && listener != DelayQueueListener.NONE) {
            long started = delivery.handlerStartNanos;
            listener.handlerFinished(context, outcome,
                    Duration.ofNanos(System.nanoTime() - (started != 0 ? started : delivery.startNanos)), error);
        }
        List<DeliveryInterceptor> interceptors = options.interceptors();
        if (interceptors.isEmpty()) {
            return;
        }
        MessageContext shown = context != null ? context : contextOf(delivery, null);
        Duration handlerTime = Duration.ofNanos(System.nanoTime() - delivery.startNanos);
        for (DeliveryInterceptor interceptor : interceptors) {
            try {
                interceptor.afterDelivery(shown, outcome, error, handlerTime);
            } catch (RuntimeException e) {
                log.warn("Queue '{}': interceptor {} failed after message '{}': {}", queue, interceptor, shown.id(),
                        e.toString());
            }
        }
    }

    /** Called by the lease keeper for a handler past the handler timeout. */
    private void timeOut(Delivery delivery) {
        if (!delivery.timeOut()) {
            return;
        }
        if (delivery.isCancelled()) { // ignored the cancel's interrupt: nothing to retry (the message is gone)
            log.warn("Queue '{}': handler for cancelled message '{}' still runs past the handler timeout of {}; "
                    + "interrupting it again and freeing its slot", queue, delivery.claimed.id(), options.handlerTimeout());
            delivery.interrupt();
            delivery.finish();
            return;
        }
        log.warn("Queue '{}': handler for message '{}' exceeded the handler timeout of {}; interrupting it, "
                + "the message will be retried, or dead-lettered on its last attempt", queue, delivery.claimed.id(),
                options.handlerTimeout());
        MessageContext context = delivery.context;
        if (context == null) { // still decoding: a context of what is known
            context = contextOf(delivery, null);
        }
        TimeoutException timeout = new TimeoutException("handler timed out after " + options.handlerTimeout());
        timeout.setStackTrace(new StackTraceElement[0]); // the lease keeper's stack says nothing about the handler
        failed(delivery, context, timeout);
        delivery.interrupt();
        delivery.finish(); // frees the slot even if the handler ignores the interrupt
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

    /**
     * Tells every interceptor of a payload that cannot be decoded (a schedule's tick writes its next one); the first
     * exception one of them throws is thrown after all were told.
     */
    private void beforeUndecodable(MessageContext context) {
        RuntimeException first = null;
        for (DeliveryInterceptor interceptor : options.interceptors()) {
            try {
                interceptor.undecodable(context);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Dead-letters a message whose envelope or payload cannot be read, saying why without quoting it. */
    private void undecodable(Delivery delivery, RuntimeException e, String why) {
        QueueOps.Claimed claimed = delivery.claimed;
        String reason = "undecodable payload for " + payloadType.getTypeName() + ": " + why;
        log.warn("Queue '{}': message '{}' moved to dead letters: {}", queue, claimed.id(), reason);
        log.debug("Queue '{}': message '{}' could not be read", queue, claimed.id(), e); // may quote the payload
        delivery.settle(QueueOps.SettleOp.UNDECODABLE, 0, reason.length() <= MAX_TEXT ? reason : reason.substring(0, MAX_TEXT));
        afterDelivery(delivery, null, DeliveryOutcome.DEAD_LETTERED, e);
    }

    private static String describe(Throwable e) {
        String text = e.getClass().getName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        return text.length() <= MAX_TEXT ? text : text.substring(0, MAX_TEXT);
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
            poller.signal(false);
            Thread stopper = Threads.named("delayqueue-stop-" + label).newThread(this::shutdown);
            stopper.start();
        }
        return stopped;
    }

    private void shutdown() {
        try {
            long deadline = System.nanoTime() + options.shutdownTimeout().toNanos();
            wakeUps.close();
            joinQuietly(pollerThread, deadline); // no new claims from here on
            stopLock.lock();
            try {
                while (!running.isEmpty()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    finishedWhileStopping.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
                }
            } finally {
                stopLock.unlock();
            }
            if (!running.isEmpty()) {
                log.warn("Queue '{}': {} handlers still running after the shutdown timeout of {}; interrupting them, "
                        + "their messages will be delivered again after their lease", queue, running.size(),
                        options.shutdownTimeout());
            }
            for (Delivery delivery : running) {
                delivery.cutOff(); // before the interrupt, so a handler returning because of it is not acked
            }
            workers.shutdownNow();
            keeper.stop();
            try {
                settler.close().get(SETTLE_AT_STOP.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                log.warn("Queue '{}': finished deliveries not settled within {} of the stop; they will be delivered "
                        + "again after their lease", queue, SETTLE_AT_STOP);
            } catch (ExecutionException e) {
                log.warn("Queue '{}': error while settling at stop: {}", queue, e.getCause().toString());
            }
            log.debug("Stopped consumer of queue '{}'", queue);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            log.warn("Queue '{}': error while stopping", queue, e);
        } finally {
            leaveTurns(); // also when the join above was interrupted
            shared.release();
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
