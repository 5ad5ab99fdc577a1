package io.github.delayqueue.core;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

import io.github.delayqueue.core.engine.ConsumerEngine;
import io.github.delayqueue.core.engine.PartitionedConsumer;
import io.github.delayqueue.core.engine.SafeListener;
import io.github.delayqueue.core.engine.SharedThreads;
import io.github.delayqueue.core.engine.Slots;
import io.github.delayqueue.core.engine.Threads;
import io.github.delayqueue.core.flow.ClaimLimits;
import io.github.delayqueue.core.internal.Checks;
import io.github.delayqueue.core.protocol.DeadLetterKeys;
import io.github.delayqueue.core.protocol.Due;
import io.github.delayqueue.core.protocol.Envelope;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.QueueRoute;
import io.github.delayqueue.core.protocol.Scripts;

/**
 * Entry point of the engine: sends, cancels and reschedules messages, reads queue statistics,
 * administers dead letters, and creates consumers. Thread-safe; create one per application and
 * share it.
 *
 * <p>Every method validates its arguments before touching Redis: bad input throws
 * {@link IllegalArgumentException} and writes nothing. Redis failures throw
 * {@link DelayQueueException}. Due times are computed on the Redis server's clock, so producers and
 * consumers with skewed clocks still agree.
 */
public final class DelayQueueClient {

    /** Longest delay or furthest due instant accepted. */
    public static final Duration MAX_DELAY = Duration.ofDays(3650);

    /** Messages per script call in {@link #sendAll}: bounds the time one call holds Redis. */
    static final int SCRIPT_BATCH = 500;

    /** Dead letters per script call in requeue/purge/list. */
    static final int DEAD_BATCH = 1_000;

    private final RedissonClient redisson;
    private final ClientOptions options;
    private final Scripts scripts;
    /** {@link DelayQueueListener#NONE} when nobody listens: then no clock is read for it. */
    private final DelayQueueListener listener;
    private final Map<String, QueueRoute> queues = new ConcurrentHashMap<>();
    /** The lease keeper and settler threads, shared by this client's consumers. */
    private final SharedThreads shared = new SharedThreads();

    private DelayQueueClient(RedissonClient redisson, ClientOptions options) {
        this.redisson = Checks.notNull(redisson, "redisson");
        this.options = Checks.notNull(options, "options");
        this.scripts = new Scripts(redisson);
        this.listener = SafeListener.of(options.listener());
    }

    /** A client with the default {@link ClientOptions}. */
    public static DelayQueueClient create(RedissonClient redisson) {
        return new DelayQueueClient(redisson, ClientOptions.builder().build());
    }

    public static DelayQueueClient create(RedissonClient redisson, ClientOptions options) {
        return new DelayQueueClient(redisson, options);
    }

    public ClientOptions options() {
        return options;
    }

    /** The Redis client, for tools of this package that read other structures ({@link RDelayedQueueImporter}). */
    RedissonClient redisson() {
        return redisson;
    }

    /** The operations of a queue (of its first partition), validating its name. */
    QueueOps queueOps(String queue) {
        return route(queue).part(0);
    }

    /** A queue's partitions, validating its name; see {@link QueueRoute}. */
    QueueRoute queueRoute(String queue) {
        return route(queue);
    }

    /** Sends a message due after {@code delay}; returns its generated id. */
    public String send(String queue, Object payload, Duration delay) {
        return send(queue, payload, delay, SendOptions.none());
    }

    /**
     * Sends a message due after {@code delay} (measured on the Redis clock). Returns the message id:
     * the one in {@code options}, or a generated one. With an id that is still live and
     * {@link SendMode#IF_ABSENT}, nothing changes and the id is returned.
     */
    public String send(String queue, Object payload, Duration delay, SendOptions options) {
        return sendAll(queue, List.of(SendRequest.of(payload, delay, options))).get(0);
    }

    /** Sends a message due at {@code dueAt}; a past instant is delivered at once. */
    public String sendAt(String queue, Object payload, Instant dueAt) {
        return sendAt(queue, payload, dueAt, SendOptions.none());
    }

    /** Sends a message due at {@code dueAt} with options; a past instant is delivered at once. */
    public String sendAt(String queue, Object payload, Instant dueAt, SendOptions options) {
        return sendAll(queue, List.of(SendRequest.at(payload, dueAt, options))).get(0);
    }

    /**
     * Sends many messages in few round trips. All are validated before any is written. Returns their
     * ids in order. Messages are written in list order, so those due at the same instant are claimed in
     * list order, in chunks of {@value #SCRIPT_BATCH} consecutive messages of one {@link SendMode}, each
     * chunk atomically; if Redis fails mid-way, earlier chunks stay written (resend with ids and
     * {@link SendMode#IF_ABSENT} to make the retry idempotent).
     */
    public List<String> sendAll(String queue, List<SendRequest> requests) {
        return send(prepare(queue, requests));
    }

    /**
     * Checks and encodes messages now, to write them later with {@link #send(PreparedSend)}: every check
     * of {@link #sendAll} runs here, so bad input fails at the call and a later write can only fail in
     * Redis. Ids are fixed (generated where none was given) and payloads serialized as they are now. Used
     * by sends deferred to after a transaction commits.
     *
     * @throws IllegalArgumentException on input {@link #sendAll} would reject
     */
    public PreparedSend prepare(String queue, List<SendRequest> requests) {
        route(queue);
        Checks.require(requests != null, "requests must not be null");
        Checks.require(!requests.isEmpty(), "requests must not be empty");
        Checks.require(requests.size() <= options.maxBatchSize(),
                "too many messages in one batch: " + requests.size() + " > maxBatchSize " + options.maxBatchSize());
        List<PreparedSend.Message> messages = new ArrayList<>(requests.size());
        List<Integer> costs = new ArrayList<>(requests.size());
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < requests.size(); i++) {
            SendRequest r = requests.get(i);
            String where = requests.size() == 1 ? "" : " (message " + i + ")";
            Checks.require(r != null, "request must not be null" + where);
            SendOptions o = r.options();
            String id = o.id() == null ? newId() : validateId(o.id(), where);
            Checks.require(seen.add(id), "duplicate id '" + id + "' in one batch" + where);
            Due due = checked(r.due(), where);
            validateHeaders(o.headers(), where);
            String body = Envelope.body(o.headers(), encode(r.payload(), where));
            messages.add(due instanceof Due.After after ? new PreparedSend.Message(id, o.mode(), after.delay(), null, body)
                    : new PreparedSend.Message(id, o.mode(), null, ((Due.At) due).instant(), body));
            costs.add(checkedBytes(id, body, where));
        }
        return new PreparedSend(this, queue, messages, costs);
    }

    /**
     * Turns messages that {@link PreparedSend#messages()} gave (and that were stored elsewhere meanwhile, for
     * example in a transactional outbox table) back into a {@link PreparedSend} of this client, to write with
     * {@link #send(PreparedSend)}. Checks again all that does not need the payload object: the queue name, the
     * batch size, the ids (valid, unique in the batch), the due time (as {@link #sendAll} does), that each body
     * is one this release encodes, and its size against {@code maxPayloadBytes}. The payload's JSON is not
     * decoded here (a consumer dead-letters one that does not bind), and nothing in a message names a class.
     *
     * @throws IllegalArgumentException on a message {@link #prepare} would not have produced
     */
    public PreparedSend restore(String queue, List<PreparedSend.Message> messages) {
        route(queue);
        Checks.require(messages != null, "messages must not be null");
        Checks.require(!messages.isEmpty(), "messages must not be empty");
        Checks.require(messages.size() <= options.maxBatchSize(),
                "too many messages in one batch: " + messages.size() + " > maxBatchSize " + options.maxBatchSize());
        List<Integer> costs = new ArrayList<>(messages.size());
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < messages.size(); i++) {
            PreparedSend.Message m = messages.get(i);
            String where = messages.size() == 1 ? "" : " (message " + i + ")";
            Checks.require(m != null, "message must not be null" + where);
            Checks.require(seen.add(m.id()), "duplicate id '" + m.id() + "' in one batch" + where);
            costs.add(checkedStored(m, where));
        }
        return new PreparedSend(this, queue, messages, costs);
    }

    /** The checks of {@link #restore} on one message; returns what it costs a script call, but for its due spec. */
    private int checkedStored(PreparedSend.Message m, String where) {
        validateId(m.id(), where);
        int surrogate = Checks.loneSurrogate(m.body());
        Checks.require(surrogate < 0, "body holds a lone surrogate at index " + surrogate + where);
        try {
            Envelope.parse(RESTORE_PREFIX + m.body());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("body is not a message body this release writes" + where + ": " + e.getMessage(), e);
        }
        checked(m.due(), where);
        return checkedBytes(m.id(), m.body(), where);
    }

    /**
     * Runs every check of {@link #applyVersioned} on {@code intents} without writing anything: to refuse bad input
     * before it is stored elsewhere (a transactional outbox's row).
     *
     * @throws IllegalArgumentException on an intent {@link #applyVersioned} would reject
     */
    public void checkVersioned(String queue, List<VersionedIntent> intents) {
        route(queue);
        versionedArgs(intents, new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    }

    /** versioned.lua's arguments of {@code intents}: where each intent's start in {@code args}, and its bytes. */
    private void versionedArgs(List<VersionedIntent> intents, List<String> args, List<Integer> starts, List<Integer> sizes) {
        Checks.require(intents != null, "intents must not be null");
        for (int i = 0; i < intents.size(); i++) {
            VersionedIntent intent = intents.get(i);
            String where = intents.size() == 1 ? "" : " (intent " + i + ")";
            Checks.require(intent != null, "intent must not be null" + where);
            starts.add(args.size());
            args.add(switch (intent.kind()) {
                case SEND -> "S";
                case CANCEL -> "C";
                case RESCHEDULE -> "R";
            });
            args.add(intent.id());
            args.add(Long.toString(intent.version()));
            int bytes = intent.id().length() + 32;
            switch (intent.kind()) {
                case SEND -> {
                    PreparedSend.Message m = intent.message();
                    bytes += checkedStored(m, where);
                    args.add(QueueOps.modeArg(m.mode()));
                    args.add(m.due().scriptArg());
                    args.add(m.body());
                }
                case RESCHEDULE -> {
                    validateId(intent.id(), where);
                    args.add(checked(intent.due(), where).scriptArg());
                }
                case CANCEL -> validateId(intent.id(), where);
            }
            sizes.add(bytes);
        }
    }

    /**
     * Applies sends, cancels and reschedules that carry versions (see {@link VersionedIntent}): per message id, an
     * intent is written only if its version is above every version applied for that id in the last
     * {@code keepVersions}, so an older intent written late never overwrites a newer one and never brings back a
     * cancelled message; an intent applied again (a retry after a failed {@code WAIT}) changes nothing. Intents
     * are applied in list order (an id may appear more than once). The versions are kept in Redis beside the
     * queue, one hash field and one sorted-set entry per id, and forgotten {@code keepVersions} after the id's last
     * versioned write. A send is checked as {@link #restore} checks it. With {@link ClientOptions#waitForReplicas()},
     * each script call is followed by {@code WAIT}, as a send's is.
     *
     * @return one outcome per intent, in order
     * @throws IllegalArgumentException on an intent {@link #restore}, {@link #cancel} or {@link #reschedule} would
     *         reject, or a {@code keepVersions} that is not positive; nothing is written then
     * @throws DelayQueueException if Redis fails (earlier script calls of a large list stay written)
     */
    public List<VersionedIntent.Outcome> applyVersioned(String queue, List<VersionedIntent> intents, Duration keepVersions) {
        QueueRoute route = route(queue);
        Checks.require(keepVersions != null && keepVersions.toMillis() > 0, "keepVersions must be positive");
        List<String> args = new ArrayList<>(intents == null ? 0 : intents.size() * 6);
        List<Integer> starts = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        versionedArgs(intents, args, starts, sizes);
        VersionedIntent.Outcome[] outcomes = new VersionedIntent.Outcome[intents.size()];
        redis(route, "apply versioned intents to queue '" + queue + "'", () -> {
            List<List<Integer>> groups = route.byPartition(intents.stream().map(VersionedIntent::id).toList());
            for (int p = 0; p < groups.size(); p++) {
                List<Integer> group = groups.get(p);
                int from = 0;
                while (from < group.size()) {
                    int to = from;
                    long bytes = 0;
                    while (to < group.size() && to - from < SCRIPT_BATCH
                            && (to == from || bytes + sizes.get(group.get(to)) <= QueueOps.SCRIPT_BYTES)) {
                        bytes += sizes.get(group.get(to));
                        to++;
                    }
                    List<String> callArgs = new ArrayList<>();
                    for (int k = from; k < to; k++) {
                        int i = group.get(k);
                        int end = i + 1 < starts.size() ? starts.get(i + 1) : args.size();
                        callArgs.addAll(args.subList(starts.get(i), end));
                    }
                    List<Object> flags = route.part(p).applyVersioned(keepVersions.toMillis(), callArgs);
                    for (int k = from; k < to; k++) {
                        long flag = Long.parseLong(flags.get(k - from).toString());
                        outcomes[group.get(k)] = flag > 0 ? VersionedIntent.Outcome.APPLIED
                                : flag == 0 ? VersionedIntent.Outcome.NOTHING_TO_DO : VersionedIntent.Outcome.SUPERSEDED;
                    }
                    from = to;
                }
            }
            return null;
        });
        return List.of(outcomes);
    }

    /** A format-2 envelope prefix (version, sequence 0, enqueued at 0) to check a body with {@link Envelope#parse}. */
    private static final String RESTORE_PREFIX = "2" + "-".repeat(Envelope.PREFIX_LENGTH - 1);

    /** Checks the stored size of one message; returns what it costs a script call, but for its due spec. */
    private int checkedBytes(String id, String body, String where) {
        int bytes = storedBytes(body);
        Checks.require(bytes <= options.maxPayloadBytes() + Envelope.PREFIX_LENGTH,
                "message is " + (bytes - Envelope.PREFIX_LENGTH) + " bytes of payload and headers, over the limit of "
                        + options.maxPayloadBytes() + where);
        return bytes + id.length();
    }

    /**
     * Writes what {@link #prepare} checked. Returns the ids in order.
     *
     * @throws IllegalArgumentException if {@code prepared} came from another client
     * @throws DelayQueueException if Redis fails (earlier script calls of a large batch stay written)
     */
    public List<String> send(PreparedSend prepared) {
        Checks.require(prepared != null, "prepared must not be null");
        Checks.require(prepared.client == this, "prepared by another DelayQueueClient: send it with that one");
        QueueRoute route = route(prepared.queue());
        boolean listening = listener != DelayQueueListener.NONE;
        boolean batch = prepared.ids().size() > 1;
        for (PreparedSend.Run run : prepared.runs) {
            long start = listening ? System.nanoTime() : 0;
            try {
                redis(route, "send to queue '" + prepared.queue() + "'", () -> {
                    write(route, run);
                    return null;
                });
            } catch (RuntimeException e) {
                if (listening) {
                    listener.sendFailed(prepared.queue(), run.mode(), batch, run.bytes().size(),
                            Duration.ofNanos(System.nanoTime() - start), e);
                }
                throw e;
            }
            if (listening) {
                listener.sent(prepared.queue(), run.mode(), batch, run.bytes().size(),
                        Duration.ofNanos(System.nanoTime() - start));
            }
        }
        return prepared.ids();
    }

    /**
     * Writes a run in each partition its messages belong to (in list order within each), in that partition's
     * script calls.
     */
    private static void write(QueueRoute route, PreparedSend.Run run) {
        if (route.count() == 1) {
            write(route.part(0), run.mode(), run.triples(), run.bytes());
            return;
        }
        List<String> ids = new ArrayList<>(run.bytes().size());
        for (int i = 0; i < run.triples().size(); i += 3) {
            ids.add(run.triples().get(i));
        }
        List<List<Integer>> groups = route.byPartition(ids);
        for (int p = 0; p < groups.size(); p++) {
            List<Integer> group = groups.get(p);
            if (group.isEmpty()) {
                continue;
            }
            List<String> triples = new ArrayList<>(group.size() * 3);
            List<Integer> bytes = new ArrayList<>(group.size());
            for (int i : group) {
                triples.addAll(run.triples().subList(i * 3, i * 3 + 3));
                bytes.add(run.bytes().get(i));
            }
            write(route.part(p), run.mode(), triples, bytes);
        }
    }

    /**
     * One script call per {@value #SCRIPT_BATCH} messages or {@value QueueOps#SCRIPT_BYTES} bytes, whichever
     * comes first (a larger message goes alone): a call holds Redis while it runs.
     */
    private static void write(QueueOps ops, SendMode mode, List<String> triples, List<Integer> sizes) {
        int from = 0;
        while (from < sizes.size()) {
            int to = from;
            long bytes = 0;
            while (to < sizes.size() && to - from < SCRIPT_BATCH
                    && (to == from || bytes + sizes.get(to) <= QueueOps.SCRIPT_BYTES)) {
                bytes += sizes.get(to);
                to++;
            }
            ops.enqueue(mode, triples.subList(from * 3, to * 3));
            from = to;
        }
    }

    /** Removes a pending or in-flight message. Returns false if no live message has this id. */
    public boolean cancel(String queue, String id) {
        QueueRoute route = route(queue);
        validateId(id, "");
        return redis(route, "cancel '" + id + "' in queue '" + queue + "'", () -> route.of(id).cancel(id));
    }

    /**
     * Moves a pending message to a new due time, {@code delay} from now (Redis clock). Returns false if
     * no pending message has this id (already delivered, in flight, or never sent).
     */
    public boolean reschedule(String queue, String id, Duration delay) {
        QueueRoute route = route(queue);
        validateId(id, "");
        Due due = checked(Due.after(delay), "");
        return redis(route, "reschedule '" + id + "' in queue '" + queue + "'", () -> route.of(id).reschedule(id, due));
    }

    /** Like {@link #reschedule(String, String, Duration)} with an absolute due instant. */
    public boolean rescheduleAt(String queue, String id, Instant dueAt) {
        QueueRoute route = route(queue);
        validateId(id, "");
        Due due = checked(Due.at(dueAt), "");
        return redis(route, "reschedule '" + id + "' in queue '" + queue + "'", () -> route.of(id).reschedule(id, due));
    }

    /**
     * Pauses the queue for every consumer, in every application on this Redis and key prefix: from its next
     * claim (within its {@code maxPollInterval}) no consumer is handed a message until {@link #resume}. The mark
     * is stored in Redis, so it outlives restarts of the applications. Sends, cancels and reschedules go on as
     * usual; handlers already running finish and are acknowledged, retried or dead-lettered as usual, and their
     * leases are still extended. A lease that expires while the queue is paused returns its message to the
     * pending messages (or to the dead letters on its last attempt), where it waits for the resume. Pausing a
     * paused queue changes nothing.
     *
     * @throws IllegalArgumentException if the queue name is invalid
     * @throws DelayQueueException if Redis fails
     */
    public void pause(String queue) {
        QueueRoute route = route(queue);
        redis(route, "pause queue '" + queue + "'", () -> {
            for (QueueOps part : route.parts()) {
                part.pause(QueueOps.PauseOp.PAUSE);
            }
            return null;
        });
    }

    /**
     * Resumes a paused queue: its consumers are woken at once (through the wake-up channel; without it, within
     * their {@code maxPollInterval}) and claim what is due. Resuming a queue that is not paused changes nothing.
     *
     * @throws IllegalArgumentException if the queue name is invalid
     * @throws DelayQueueException if Redis fails
     */
    public void resume(String queue) {
        QueueRoute route = route(queue);
        redis(route, "resume queue '" + queue + "'", () -> {
            for (QueueOps part : route.parts()) {
                part.pause(QueueOps.PauseOp.RESUME);
            }
            return null;
        });
    }

    /**
     * Whether the queue is paused ({@link #pause}), as Redis says now.
     *
     * @throws IllegalArgumentException if the queue name is invalid
     * @throws DelayQueueException if Redis fails
     */
    public boolean isPaused(String queue) {
        QueueRoute route = route(queue);
        return redis(route, "read the pause of queue '" + queue + "'", () -> {
            for (QueueOps part : route.parts()) {
                if (part.pause(QueueOps.PauseOp.STATUS)) {
                    return true;
                }
            }
            return false;
        });
    }

    /** Counts of pending, due, in-flight and dead messages, read atomically in O(log N). */
    public QueueStats stats(String queue) {
        QueueRoute route = route(queue);
        return redis(route, "read stats of queue '" + queue + "'", route::stats);
    }

    /**
     * A page of the queue's pending messages in due order (equal due times in send order), those already due
     * first: {@code limit} (1 to 1000) messages from rank {@code offset} (0 is the next to be claimed). One
     * bounded read, O(log N + limit); past the end the page is empty.
     */
    public MessagePage pending(String queue, long offset, int limit) {
        return page(queue, QueueOps.PageOf.PENDING, offset, limit);
    }

    /**
     * A page of the queue's in-flight messages, the earliest lease deadline first: {@code limit} (1 to 1000)
     * messages from rank {@code offset}. One bounded read, O(log N + limit).
     */
    public MessagePage inFlight(String queue, long offset, int limit) {
        return page(queue, QueueOps.PageOf.IN_FLIGHT, offset, limit);
    }

    /** The live (pending or in-flight) message with this id, or empty. Dead letters are not live: see {@link #deadLetters}. */
    public Optional<QueuedMessage> message(String queue, String id) {
        QueueRoute route = route(queue);
        validateId(id, "");
        return redis(route, "read '" + id + "' in queue '" + queue + "'", () -> route.of(id).peek(id));
    }

    private MessagePage page(String queue, QueueOps.PageOf set, long offset, int limit) {
        QueueRoute route = route(queue);
        Checks.require(offset >= 0, "offset must not be negative, was " + offset);
        Checks.require(limit >= 1 && limit <= DEAD_BATCH, "limit must be between 1 and " + DEAD_BATCH + ", was " + limit);
        return redis(route, "read " + set.arg + " messages of queue '" + queue + "'", () -> route.page(set, offset, limit));
    }

    /** The oldest dead letters, at most {@code limit} (1 to 1000). */
    public List<DeadLetter> deadLetters(String queue, int limit) {
        return deadLetters(queue, 0, limit);
    }

    /**
     * A page of the dead letters, the oldest first: at most {@code limit} (1 to 1000) from position {@code offset}
     * (0 or more; 0 is the oldest). One bounded read, O(log N + limit); past the end the list is empty.
     */
    public List<DeadLetter> deadLetters(String queue, long offset, int limit) {
        QueueRoute route = route(queue);
        Checks.require(offset >= 0, "offset must not be negative, was " + offset);
        Checks.require(limit >= 1 && limit <= DEAD_BATCH, "limit must be between 1 and " + DEAD_BATCH + ", was " + limit);
        return redis(route, "list dead letters of queue '" + queue + "'", () -> route.listDead(offset, limit));
    }

    /**
     * Sends the given dead letters again, due now, with their attempts reset, each under its message id.
     * {@code keys} are {@link DeadLetter#key()}s: each names one dead letter, so an id that died twice
     * has two, requeued or purged one at a time. A dead letter whose id has a live message again is left
     * in the dead letters, as is a key that names no dead letter. Returns how many were requeued.
     *
     * @throws IllegalArgumentException if a key is not of the form {@link DeadLetter#key()} gives
     */
    public long requeueDeadLetters(String queue, Collection<String> keys) {
        return moveDead(queue, QueueOps.DeadOp.REQUEUE, keys);
    }

    /**
     * Requeues every dead letter, in bounded batches, except those whose id has a live message again
     * (they stay dead letters). Returns how many were requeued.
     */
    public long requeueAllDeadLetters(String queue) {
        return moveAllDead(queue, QueueOps.DeadOp.REQUEUE);
    }

    /**
     * Deletes the given dead letters, named by their {@link DeadLetter#key()}s. Returns how many existed.
     *
     * @throws IllegalArgumentException if a key is not of the form {@link DeadLetter#key()} gives
     */
    public long purgeDeadLetters(String queue, Collection<String> keys) {
        return moveDead(queue, QueueOps.DeadOp.PURGE, keys);
    }

    /** Deletes every dead letter, in bounded batches. Returns how many were deleted. */
    public long purgeAllDeadLetters(String queue) {
        return moveAllDead(queue, QueueOps.DeadOp.PURGE);
    }

    private long moveDead(String queue, QueueOps.DeadOp op, Collection<String> keys) {
        QueueRoute route = route(queue);
        Checks.require(keys != null, "keys must not be null");
        Checks.require(keys.size() <= DEAD_BATCH, "at most " + DEAD_BATCH + " keys per call, was " + keys.size());
        List<String> stored = new ArrayList<>(keys.size());
        for (String key : keys) {
            String raw = DeadLetterKeys.stored(key);
            validateId(DeadLetterKeys.id(raw), " (in dead-letter key '" + key + "')");
            stored.add(raw);
        }
        if (stored.isEmpty()) {
            return 0;
        }
        return redis(route, op.arg + " dead letters of queue '" + queue + "'", () -> route.moveDead(op, DEAD_BATCH, stored));
    }

    private long moveAllDead(String queue, QueueOps.DeadOp op) {
        QueueRoute route = route(queue);
        return redis(route, op.arg + " dead letters of queue '" + queue + "'", () -> {
            long total = 0;
            for (QueueOps ops : route.parts()) {
                total += moveAllDead(ops, op);
            }
            return total;
        });
    }

    /** Requeues or purges every dead letter of one partition, in bounded batches. */
    private static long moveAllDead(QueueOps ops, QueueOps.DeadOp op) {
        long total = 0;
        // requeue leaves an id that is live again among the dead letters: the next batch starts past those
        long skipped = 0;
        long limit = ops.stats().dead(); // bounds the loop even if requeued messages die again meanwhile
        while (total + skipped < limit) {
            int batch = (int) Math.min(DEAD_BATCH, limit - total - skipped);
            long moved = ops.moveDead(op, batch, skipped, List.of());
            total += moved;
            skipped += batch - moved; // letters deleted meanwhile (a short batch) only end the loop sooner
        }
        return total;
    }

    /**
     * Connects to Redis, checks its version, loads every script and checks the queue's partition count, then
     * takes a sample message through the checks and the codec of a send (writing nothing), so that the first send
     * or claim costs what later ones do (a client connects lazily, and a script is loaded by its first call: the
     * first send of a new JVM took hundreds of milliseconds). Blocking; call it on a background thread at startup.
     * Harmless to call again or never; the queue only picks the Redis node on a cluster.
     *
     * @throws DelayQueueException if Redis cannot be reached ({@link UnsupportedRedisException} if it is too old)
     * @throws PartitionCountException if the queue's partition count differs from the one recorded in Redis
     */
    public void warmUp(String queue) {
        QueueRoute route = route(queue);
        redis("warm up the connection to Redis for queue '" + queue + "'", () -> {
            for (QueueOps part : route.parts()) {
                scripts.loadAll(part.keys().keys());
            }
            route.check();
            route.part(0).warmUp(); // a read-only script call, made as a lone send's is
            return null;
        });
        try { // the codec's first use builds its serializer machinery: do it here rather than in the first send
            prepare(queue, List.of(SendRequest.of(WarmUp.SAMPLE, Duration.ZERO))); // checks and encodes, writes nothing
        } catch (RuntimeException e) {
            // an application codec may refuse this value; only the warm-up is lost
        }
    }

    /** A small value with the shapes payloads have (a record, text, number, list, map) to warm the codec with. */
    private record WarmUp(String text, long number, List<String> list, Map<String, Integer> map) {
        static final WarmUp SAMPLE = new WarmUp("warm-up", 1L, List.of("a"), Map.of("b", 2));
    }

    /**
     * Creates (does not start) a consumer that binds each payload's JSON to {@code payloadType} and
     * passes it to {@code handler}. Several consumers, in one JVM or many, may share a queue.
     */
    public <T> DelayQueueConsumer newConsumer(String queue, Type payloadType, MessageHandler<T> handler,
            ConsumerOptions consumerOptions) {
        QueueRoute route = route(queue);
        Checks.notNull(payloadType, "payloadType");
        Checks.notNull(handler, "handler");
        Checks.notNull(consumerOptions, "consumerOptions");
        options.codec().checkDecodable(payloadType);
        ClaimLimits.of(consumerOptions.rateLimit(), consumerOptions.maxInFlight(), 0, route.count()); // throws if unfit
        Function<String, ExecutorService> executors = name -> Threads.handlerExecutor(name, consumerOptions.virtualThreads());
        if (route.count() == 1) {
            return new ConsumerEngine<>(redisson, shared, route.part(0), options.codec(), payloadType, handler,
                    consumerOptions, executors, listener, new Slots(consumerOptions.concurrency()),
                    route::check);
        }
        Slots slots = new Slots(consumerOptions.concurrency());
        List<ConsumerEngine<T>> engines = new ArrayList<>(route.count());
        for (QueueOps part : route.parts()) {
            ConsumerEngine<T> engine = new ConsumerEngine<>(redisson, shared, part, options.codec(), payloadType, handler,
                    consumerOptions, executors, listener, slots, route::check);
            engine.holdsWith(route.parts()); // a slow-down holds the whole queue
            engines.add(engine);
        }
        return new PartitionedConsumer(queue, engines);
    }

    /** Typed convenience for {@link #newConsumer(String, Type, MessageHandler, ConsumerOptions)}. */
    public <T> DelayQueueConsumer newConsumer(String queue, Class<T> payloadType, MessageHandler<T> handler,
            ConsumerOptions consumerOptions) {
        return newConsumer(queue, (Type) payloadType, handler, consumerOptions);
    }

    private QueueRoute route(String queue) {
        QueueRoute known = queue == null ? null : queues.get(queue);
        if (known != null) {
            return known; // only validated names are ever added: no regex match per send
        }
        QueueKeys.validateName(queue);
        return queues.computeIfAbsent(queue, q -> new QueueRoute(scripts, options.keyPrefix(), q, options.partitions(q),
                options.waitForReplicas(), options.replicaTimeout()));
    }

    private String encode(Object payload, String where) {
        String json = options.codec().encode(payload);
        Checks.require(json != null, "codec returned null for the payload" + where);
        int surrogate = Checks.loneSurrogate(json);
        Checks.require(surrogate < 0, "payload JSON holds a lone surrogate at index " + surrogate
                + " (invalid UTF-16 text, which Redis would store altered)" + where);
        if (json.length() <= 2 && json.equals("{}")) {
            String fields = PayloadShape.stateFields(payload.getClass());
            Checks.require(fields.isEmpty(), "payload of " + payload.getClass().getName() + " has state (" + fields
                    + ") but the codec wrote {}: its data would be lost. Give it getters or public fields, or annotate "
                    + "its fields (@JsonProperty, @JsonAutoDetect)" + where);
        }
        return json;
    }

    /** UTF-8 bytes of the stored envelope with {@code body}; counted only when the characters could exceed the limit. */
    private int storedBytes(String body) {
        int chars = Envelope.PREFIX_LENGTH + body.length();
        return body.length() <= options.maxPayloadBytes() / 3 ? chars
                : Envelope.PREFIX_LENGTH + body.getBytes(StandardCharsets.UTF_8).length;
    }

    private static void validateHeaders(Map<String, String> headers, String where) {
        for (Map.Entry<String, String> header : headers.entrySet()) {
            Checks.require(Checks.loneSurrogate(header.getKey()) < 0 && Checks.loneSurrogate(header.getValue()) < 0,
                    "header '" + header.getKey() + "' holds a lone surrogate (invalid UTF-16 text)" + where);
        }
    }

    /** Checks {@code due} against {@link #MAX_DELAY} and the client's clock; returns it. */
    private Due checked(Due due, String where) {
        // messages are built only on failure: formatting a Duration or Instant on every send showed in profiles
        if (due instanceof Due.After after) {
            Duration delay = after.delay();
            if (delay.isNegative()) {
                Checks.require(false, "delay must not be negative, was " + delay + where);
            }
            if (delay.compareTo(MAX_DELAY) > 0) {
                Checks.require(false, "delay must be at most " + MAX_DELAY + ", was " + delay + where);
            }
        } else {
            Instant dueAt = ((Due.At) due).instant();
            if (!dueAt.isBefore(options.clock().instant().plus(MAX_DELAY))) {
                Checks.require(false, "dueAt must be within " + MAX_DELAY + " from now, was " + dueAt + where);
            }
            if (dueAt.getEpochSecond() < 0) {
                Checks.require(false, "dueAt must not be before 1970, was " + dueAt + where);
            }
        }
        return due;
    }

    private static String validateId(@Nullable String id, String where) {
        Checks.require(id != null && !id.isBlank(), "id must not be null or blank" + where);
        Checks.require(id.length() <= ClientOptions.MAX_ID_LENGTH,
                "id must be at most " + ClientOptions.MAX_ID_LENGTH + " characters, was " + id.length() + where);
        for (int i = 0; i < id.length(); i++) {
            Checks.require(!Character.isISOControl(id.charAt(i)), "id must not contain control characters" + where);
        }
        // as UTF-8 every lone surrogate becomes the same '?': two such ids would be one message in Redis
        int surrogate = Checks.loneSurrogate(id);
        Checks.require(surrogate < 0, "id must be valid UTF-16 text: a lone surrogate at index " + surrogate + where);
        return id;
    }

    /**
     * 96 random bits, URL-safe Base64: 16 characters. An id is stored twice per pending message (hash
     * field and sorted-set member); 16 rather than 22 characters keeps both in smaller allocator size
     * classes (24 bytes less per message, measured by {@code redis-bytes-per-message}), and 96 bits
     * still make a collision among a billion live messages about a 1-in-10^11 event.
     */
    static String newId() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        byte[] bytes = new byte[12];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** {@link #redis(String, Supplier)} after checking the queue's partition count (once per client and queue). */
    private static <R> R redis(QueueRoute route, String what, Supplier<R> call) {
        return redis(what, () -> {
            route.check();
            return call.get();
        });
    }

    private static <R> R redis(String what, Supplier<R> call) {
        try {
            return call.get();
        } catch (IllegalArgumentException | UnsupportedRedisException | NotReplicatedException | PartitionCountException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new DelayQueueException("could not " + what + ": " + e, e);
        }
    }
}
