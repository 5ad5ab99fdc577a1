package io.github.delayqueue.core;

import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

import io.github.delayqueue.core.activity.ActivityMinute;
import io.github.delayqueue.core.engine.ActivityTally;
import io.github.delayqueue.core.engine.ConsumerEngine;
import io.github.delayqueue.core.engine.PartitionedConsumer;
import io.github.delayqueue.core.engine.SafeListener;
import io.github.delayqueue.core.engine.SharedThreads;
import io.github.delayqueue.core.engine.Slots;
import io.github.delayqueue.core.engine.Threads;
import io.github.delayqueue.core.internal.Checks;
import io.github.delayqueue.core.internal.ClientAccess;
import io.github.delayqueue.core.protocol.ActivityScript;
import io.github.delayqueue.core.protocol.ClaimLimits;
import io.github.delayqueue.core.protocol.GroupLimits;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.QueueRoute;
import io.github.delayqueue.core.protocol.Scripts;
import io.github.delayqueue.core.protocol.SetScript;
import io.github.delayqueue.core.protocol.WatchRegistry;
import io.github.delayqueue.core.history.HistoryPage;
import io.github.delayqueue.core.history.MessageStatus;
import io.github.delayqueue.core.sets.Chain;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.core.sets.SetStatus;

/**
 * Entry point of the engine: sends, cancels and reschedules messages, reads queue statistics,
 * administers dead letters, and creates consumers. Thread-safe; create one per application and
 * share it.
 *
 * <p>Every method validates its arguments before touching Redis: bad input throws
 * {@link IllegalArgumentException} and writes nothing. Redis failures throw
 * {@link DelayQueueException}. Due times are computed on the Redis server's clock, so producers and
 * consumers with skewed clocks still agree.
 *
 * <p>The one entry point, and a facade: its sends, reads and dead-letter administration are done by small
 * package-private classes behind it ({@code Sends}, {@code Reads}, {@code DeadLetterAdmin}, sharing
 * {@code ClientQueues}), as {@code RedisTemplate} hands out its {@code opsFor…}; the contract is documented here.
 */
public final class DelayQueueClient {

    static {
        ClientAccess.lend(new ClientAccess.Lender() { // for the feature packages (schedules); not API
            public QueueRoute route(DelayQueueClient client, String queue) {
                return client.queues.route(queue);
            }

            public Scripts scripts(DelayQueueClient client) {
                return client.scripts;
            }
        });
    }

    /** Longest delay or furthest due instant accepted. */
    public static final Duration MAX_DELAY = Checks.MAX_DELAY;

    /** Messages per script call in {@link #sendAll}: bounds the time one call holds Redis. */
    static final int SCRIPT_BATCH = 500;

    /** Dead letters per script call in requeue/purge/list. */
    static final int DEAD_BATCH = 1_000;

    private final RedissonClient redisson;
    private final ClientOptions options;
    private final Scripts scripts;
    /**
     * What the consumers report to: the application's listener (through {@code SafeListener}) behind the activity
     * counts, or that listener alone without them ({@link DelayQueueListener#NONE} when nobody listens: then no clock
     * is read for it). Sends report to the application's listener only.
     */
    private final DelayQueueListener listener;
    /** The activity counts of this client's consumers, or null with {@link ClientOptions#activity()} off. */
    private final @Nullable ActivityTally activity;
    private final ClientQueues queues;
    private final Sends sends;
    private final Reads reads;
    private final DeadLetterAdmin deadLetters;
    private final JobSets sets;
    /** The lease keeper and settler threads, shared by this client's consumers. */
    private final SharedThreads shared;

    private DelayQueueClient(RedissonClient redisson, ClientOptions options) {
        this.redisson = Checks.notNull(redisson, "redisson");
        this.options = Checks.notNull(options, "options");
        this.scripts = new Scripts(redisson);
        DelayQueueListener application = SafeListener.of(options.listener());
        this.queues = new ClientQueues(scripts, options);
        this.activity = options.activity() ? new ActivityTally(application,
                (queue, minutes) -> ActivityScript.flush(scripts, ActivityScript.base(queues.route(queue)), minutes)) : null;
        this.listener = activity != null ? activity : application;
        this.sends = new Sends(this, options, queues, application);
        this.reads = new Reads(queues);
        this.deadLetters = new DeadLetterAdmin(queues);
        this.sets = new JobSets(this, redisson, options, sends, new SetScript(scripts, options.keyPrefix(),
                options.replicasRequired() ? options.waitForReplicas() : 0, options.replicaTimeout()));
        this.shared = new SharedThreads(options.sharedIdlePolling()
                ? new WatchRegistry(redisson, scripts, options.keyPrefix()) : null, activity, sets);
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
        return queues.route(queue).part(0);
    }

    /** A queue's partitions, validating its name; see {@link QueueRoute}. */
    QueueRoute queueRoute(String queue) {
        return queues.route(queue);
    }

    /** Sends a message due after {@code delay}; returns its generated id. */
    public String send(String queue, Object payload, Duration delay) {
        return send(queue, payload, delay, SendOptions.none());
    }

    /**
     * Sends a message due after {@code delay} (measured on the Redis clock). Returns the message id:
     * the one in {@code options}, or a generated one. With an id that is still live and
     * {@link SendMode#IF_ABSENT}, nothing changes and the id is returned; the same for an id remembered after delivery
     * when the send carries a {@link SendOptions#withDedupWindow dedup window}.
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
        return sends.prepare(queue, requests);
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
        return sends.restore(queue, messages);
    }

    /**
     * Runs every check of {@link #applyVersioned} on {@code intents} without writing anything: to refuse bad input
     * before it is stored elsewhere (a transactional outbox's row).
     *
     * @throws IllegalArgumentException on an intent {@link #applyVersioned} would reject
     */
    public void checkVersioned(String queue, List<VersionedIntent> intents) {
        sends.checkVersioned(queue, intents);
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
        return sends.applyVersioned(queue, intents, keepVersions);
    }

    /**
     * Writes what {@link #prepare} checked. Returns the ids in order.
     *
     * @throws IllegalArgumentException if {@code prepared} came from another client
     * @throws DelayQueueException if Redis fails (earlier script calls of a large batch stay written)
     */
    public List<String> send(PreparedSend prepared) {
        return sends.send(prepared);
    }

    /**
     * Sends a job set: its members, on their queues, each carrying the set's id ({@link JobSet#SET_HEADER}), and its
     * callbacks, sent once their condition holds ({@link JobSet} says which and when; docs/guides/job-sets.md). The set
     * is created and its members added before any is sent, and it is sealed once all are: no callback is sent before.
     * Returns the set's id (the one given, or a generated one). A send that fails half-way leaves the set unsealed, so
     * nothing fires; sending the same set again (same set id and member ids) completes it, nothing counted twice.
     *
     * @throws IllegalArgumentException on an invalid member (as {@link #sendAll} checks them), two members with one id
     *                                  on one queue, or a parent set that does not exist; nothing is written
     * @throws IllegalStateException    if its parent set is complete
     * @throws DelayQueueException      if Redis fails
     */
    public String sendSet(JobSet set) {
        return sets.send(sets.prepare(set));
    }

    /**
     * Checks and encodes a job set without writing anything ({@link PreparedSet}): what an outbox keeps until its
     * transaction commits. {@link #send(PreparedSet)} then writes it, or an outbox replays its steps with
     * {@link #openSet}, {@link #restore} and {@link #send(PreparedSend)}, and {@link #sealSet}.
     *
     * @throws IllegalArgumentException as {@link #sendSet}, for what can be checked without Redis
     */
    public PreparedSet prepareSet(JobSet set) {
        return sets.prepare(set);
    }

    /**
     * Writes what {@link #prepareSet} checked, as {@link #sendSet} does. Returns the set's id.
     *
     * @throws IllegalArgumentException if {@code prepared} came from another client, or its parent does not exist
     * @throws IllegalStateException    if its parent set is complete
     */
    public String send(PreparedSet prepared) {
        return sets.send(prepared);
    }

    /**
     * Creates a job set and adds its members, from the {@link PreparedSet#opening()} text an outbox kept: the first of
     * the three steps of {@link #send(PreparedSet)}. Idempotent: a set that exists keeps its state, and members
     * already there keep theirs. Returns the set's id.
     *
     * @throws IllegalArgumentException if the text is not an opening this release writes, or its parent does not exist
     * @throws IllegalStateException    if its parent set is complete
     */
    public String openSet(String opening) {
        return sets.open(opening);
    }

    /**
     * Seals a job set once all its first members are sent: the last of the three steps of {@link #send(PreparedSet)};
     * its callbacks may be sent from then on. Idempotent; a set that does not exist (or expired) is left alone.
     *
     * @throws IllegalArgumentException on an invalid set id
     */
    public void sealSet(String setId) {
        sets.seal(setId);
    }

    /**
     * Adds members to a job set that exists: what a running member does to grow its own set (with
     * {@link JobSet#setOf} of its context) before it returns; the set cannot complete in between, since the running
     * member is itself still pending. Members are added before they are sent. Returns their ids. Give them ids derived
     * from the running member's, so that a retried handler adds the same members again rather than new ones.
     *
     * @throws IllegalArgumentException on an invalid request, or a set that does not exist (never sent, or past its
     *                                  retention); nothing is written
     * @throws IllegalStateException    if the set is complete (its complete callback was sent)
     */
    public List<String> addToSet(String setId, String queue, List<SendRequest> requests) {
        return sets.addTo(setId, queue, requests);
    }

    /**
     * Sends a chain: its first step now, each next one once the one before is acknowledged, exactly once
     * ({@link Chain}). Returns the steps' message ids, in order.
     *
     * @throws IllegalArgumentException on an invalid step, or two steps with one id; nothing is written
     */
    public List<String> sendChain(Chain chain) {
        return sets.send(chain);
    }

    /** A cancelled member's mark, forwarded to its set ({@link JobSets#forward}; never throws). */
    void forwardCancel(QueueOps part, String set, String id) {
        sets.forward(part.keys(), List.of(SetScript.mark('C', set, id)));
    }

    /** A job set's status, with up to 100 of its dead members; empty for a set that does not exist (or expired). */
    public Optional<SetStatus> setStatus(String setId) {
        return sets.status(setId, 100);
    }

    /**
     * A job set's status, with up to {@code deadLimit} of its dead members (0 to 10,000).
     *
     * @throws IllegalArgumentException on an invalid set id or limit
     */
    public Optional<SetStatus> setStatus(String setId, int deadLimit) {
        return sets.status(setId, deadLimit);
    }

    /**
     * Removes a pending or in-flight message. Returns false if no live message has this id (delivered, dead-lettered
     * or never sent: a cancel that races the acknowledgement leaves one outcome, whichever Redis applied first). A
     * message in flight is cancelled for its delivery too: the consumer running it, on whichever instance, interrupts
     * its handler and sets {@link MessageContext#cancelled()} at once through the queue's wake-up channel (at its next
     * lease extension should that be lost), and settles nothing of that delivery ({@link DeliveryOutcome#CANCELLED}).
     */
    public boolean cancel(String queue, String id) {
        return sends.cancel(queue, id);
    }

    /**
     * Moves a pending message to a new due time, {@code delay} from now (Redis clock). Returns false if
     * no pending message has this id (already delivered, in flight, or never sent).
     */
    public boolean reschedule(String queue, String id, Duration delay) {
        return sends.reschedule(queue, id, delay);
    }

    /** Like {@link #reschedule(String, String, Duration)} with an absolute due instant. */
    public boolean rescheduleAt(String queue, String id, Instant dueAt) {
        return sends.rescheduleAt(queue, id, dueAt);
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
        QueueRoute route = queues.route(queue);
        ClientQueues.redis(route, "pause queue '" + queue + "'", () -> {
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
        QueueRoute route = queues.route(queue);
        ClientQueues.redis(route, "resume queue '" + queue + "'", () -> {
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
        QueueRoute route = queues.route(queue);
        return ClientQueues.redis(route, "read the pause of queue '" + queue + "'", () -> {
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
        return reads.stats(queue);
    }

    /**
     * A page of the queue's pending messages in due order (equal due times in send order), those already due
     * first: {@code limit} (1 to 1000) messages from rank {@code offset} (0 is the next to be claimed). One
     * bounded read, O(log N + limit); past the end the page is empty.
     */
    public MessagePage pending(String queue, long offset, int limit) {
        return reads.pending(queue, offset, limit);
    }

    /**
     * A page of the queue's in-flight messages, the earliest lease deadline first: {@code limit} (1 to 1000)
     * messages from rank {@code offset}. One bounded read, O(log N + limit).
     */
    public MessagePage inFlight(String queue, long offset, int limit) {
        return reads.inFlight(queue, offset, limit);
    }

    /**
     * The groups of the queue's {@link SendOptions#group grouped} messages furthest behind, the oldest due message
     * first (a group with nothing pending is not listed). Read from the groups index, the earliest next claim time
     * first, at most {@code limit} (1 to 1000) groups per partition: with more groups waiting than that, those read
     * are the next to be claimed, not always the oldest. On a partitioned queue a group's figures are summed over the
     * partitions where it is among those {@code limit}: with more groups than that, a group's counts may leave out its
     * messages in the other partitions. One bounded read per partition, O(limit x log N).
     */
    public List<GroupStats> groups(String queue, int limit) {
        return reads.groups(queue, limit);
    }

    /**
     * A page of one {@link SendOptions#group group}'s pending messages in due order: {@code limit} (1 to 1000) from rank
     * {@code offset}. Grouped messages are not on the {@link #pending} pages. One bounded read per partition.
     */
    public MessagePage pendingInGroup(String queue, String group, long offset, int limit) {
        return reads.pendingInGroup(queue, group, offset, limit);
    }

    /** The live (pending or in-flight) message with this id, or empty. Dead letters are not live: see {@link #deadLetters}. */
    public Optional<QueuedMessage> message(String queue, String id) {
        return reads.message(queue, id);
    }

    /**
     * Where the message {@code id} stands: pending or in flight (with the message, as {@link #message} reads it),
     * acknowledged or dead-lettered (with its record, while the queue's history keeps it: see
     * {@link ConsumerOptions.Builder#keepHistory}), or unknown. One script call on the id's partition.
     *
     * @throws IllegalArgumentException if the queue name or the id is invalid
     */
    public MessageStatus status(String queue, String id) {
        return reads.status(queue, id);
    }

    /**
     * The queue's history, the latest settled message first: its {@code limit} (1 to 1000) newest records. As
     * {@link #history(String, long, int)} from offset 0.
     *
     * @throws IllegalArgumentException if the queue name is invalid or {@code limit} is out of range (nothing is read)
     */
    public HistoryPage history(String queue, int limit) {
        return reads.history(queue, 0, limit);
    }

    /**
     * A page of the queue's history: the records of the messages its consumers acknowledged or dead-lettered, kept
     * while the queue keeps its history ({@link ConsumerOptions.Builder#keepHistory}) and until they are trimmed; the
     * latest settled first, {@code limit} (1 to 1000) from rank {@code offset} (0 or more; 0 is the latest). Empty for
     * a queue that keeps no history. One bounded read per partition, O(log N + limit); a partitioned queue's page is
     * merged from each partition's first {@code offset + limit} records, which may be at most 10,000. A message sent
     * again under an id it had keeps one record, of its latest settle.
     *
     * @throws IllegalArgumentException if the queue name is invalid, {@code offset} is negative, {@code limit} is out of
     *                                  range, or {@code offset + limit} is over 10,000 on a partitioned queue (nothing
     *                                  is read)
     */
    public HistoryPage history(String queue, long offset, int limit) {
        return reads.history(queue, offset, limit);
    }

    /** Minutes {@link #activity} reads: the last hour. */
    static final int ACTIVITY_MINUTES = 60;

    /**
     * What the consumers of the queue did in each of the last 60 minutes of the Redis clock, the oldest first, the
     * current (unfinished) minute last: messages handled, retried and dead-lettered, and the lateness of the handlers
     * started, summed over every instance that counts them ({@link ClientOptions.Builder#activity}). One entry per
     * minute, with zeros where nothing happened. Each instance adds its counts about once a minute, so the last minute
     * or two are still growing. One script call on the queue's first partition.
     *
     * @throws IllegalArgumentException if the queue name is invalid
     * @throws DelayQueueException if Redis fails
     */
    public List<ActivityMinute> activity(String queue) {
        QueueRoute route = queues.route(queue);
        long[] values = ClientQueues.redis(route, "read the activity of queue '" + queue + "'",
                () -> ActivityScript.read(scripts, ActivityScript.base(route), ACTIVITY_MINUTES));
        long now = values[0];
        long first = Math.floorDiv(now, 60_000L) - ACTIVITY_MINUTES + 1;
        List<ActivityMinute> minutes = new ArrayList<>(ACTIVITY_MINUTES);
        for (int i = 0; i < ACTIVITY_MINUTES; i++) {
            int at = 1 + i * ActivityScript.FIELDS;
            minutes.add(new ActivityMinute(Instant.ofEpochMilli((first + i) * 60_000L), values[at], values[at + 1],
                    values[at + 2], values[at + 3], Duration.ofMillis(values[at + 4]), Duration.ofMillis(values[at + 5])));
        }
        return List.copyOf(minutes);
    }

    /**
     * Adds the activity counts this client's consumers kept in memory to Redis now, on the caller's thread, rather than
     * at the next minute or when the last consumer stops (one script call per queue with something to add); for tests
     * and tools that read {@link #activity} at once. Never throws: a write that fails is logged and its counts kept for
     * the next. Does nothing with {@link ClientOptions#activity()} off.
     */
    public void flushActivity() {
        if (activity != null) {
            activity.flush();
        }
    }

    /** The oldest dead letters, at most {@code limit} (1 to 1000). */
    public List<DeadLetter> deadLetters(String queue, int limit) {
        return deadLetters.deadLetters(queue, limit);
    }

    /**
     * A page of the dead letters, the oldest first: at most {@code limit} (1 to 1000) from position {@code offset}
     * (0 or more; 0 is the oldest). One bounded read, O(log N + limit); past the end the list is empty.
     */
    public List<DeadLetter> deadLetters(String queue, long offset, int limit) {
        return deadLetters.deadLetters(queue, offset, limit);
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
        return deadLetters.requeueDeadLetters(queue, keys);
    }

    /**
     * Requeues every dead letter, in bounded batches, except those whose id has a live message again
     * (they stay dead letters). Returns how many were requeued.
     */
    public long requeueAllDeadLetters(String queue) {
        return deadLetters.requeueAllDeadLetters(queue);
    }

    /**
     * Deletes the given dead letters, named by their {@link DeadLetter#key()}s. Returns how many existed.
     *
     * @throws IllegalArgumentException if a key is not of the form {@link DeadLetter#key()} gives
     */
    public long purgeDeadLetters(String queue, Collection<String> keys) {
        return deadLetters.purgeDeadLetters(queue, keys);
    }

    /** Deletes every dead letter, in bounded batches. Returns how many were deleted. */
    public long purgeAllDeadLetters(String queue) {
        return deadLetters.purgeAllDeadLetters(queue);
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
        QueueRoute route = queues.route(queue);
        ClientQueues.redis("warm up the connection to Redis for queue '" + queue + "'", () -> {
            for (QueueOps part : route.parts()) {
                scripts.loadAll(part.keys().keys());
            }
            route.check();
            route.part(0).warmUp(); // a read-only script call, made as a lone send's is
            route.parts().forEach(QueueOps::probeReplicasIfDue); // scripts loaded: the probe blocks nothing
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
     * passes it to {@code handler}. Several consumers, in one JVM or many, may share a queue. With
     * {@code Void.class} the payload is not decoded at all and the handler is given {@code null}: a handler that
     * needs only the {@link MessageContext}, such as a recurring job's.
     */
    public <T> DelayQueueConsumer newConsumer(String queue, Type payloadType, MessageHandler<T> handler,
            ConsumerOptions consumerOptions) {
        QueueRoute route = queues.route(queue);
        Checks.notNull(payloadType, "payloadType");
        Checks.notNull(handler, "handler");
        Checks.notNull(consumerOptions, "consumerOptions");
        if (payloadType != Void.class) {
            options.codec().checkDecodable(payloadType);
        }
        ClaimLimits.of(consumerOptions.rateLimit(), consumerOptions.maxInFlight(), 0, route.count()); // throws if unfit
        GroupLimits.of(consumerOptions.groupRateLimit(), consumerOptions.groupMaxInFlight(), 0, route.count());
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

    /**
     * Creates (does not start) a batch consumer: hands up to {@code batch.size()} due messages at a time, as soon as
     * they are claimed, to {@code handler} (see {@link BatchMessageHandler} for the outcome of each message).
     * {@code consumerOptions.concurrency()} batches run at once; its {@code batchSize} (the claim size) is replaced by
     * the batch size. Declared explicitly: a {@link MessageHandler} of a {@code List} payload stays a handler of
     * single messages.
     *
     * @throws IllegalArgumentException when {@code batch.maxWait()} is not shorter than half the visibility timeout
     */
    public <T> DelayQueueConsumer newBatchConsumer(String queue, Type payloadType, BatchMessageHandler<T> handler,
            BatchOptions batch, ConsumerOptions consumerOptions) {
        QueueRoute route = queues.route(queue);
        Checks.notNull(payloadType, "payloadType");
        Checks.notNull(handler, "handler");
        Checks.notNull(batch, "batch");
        Checks.notNull(consumerOptions, "consumerOptions");
        Checks.require(payloadType != Void.class, "a batch handler takes payloads: Void is for single handlers only");
        Checks.require(batch.maxWait().multipliedBy(2).compareTo(consumerOptions.visibilityTimeout()) < 0,
                "batch wait (" + batch.maxWait() + ") must be shorter than half the visibility timeout ("
                        + consumerOptions.visibilityTimeout() + "): the first messages of a batch hold their lease meanwhile");
        options.codec().checkDecodable(payloadType);
        ClaimLimits.of(consumerOptions.rateLimit(), consumerOptions.maxInFlight(), 0, route.count()); // throws if unfit
        GroupLimits.of(consumerOptions.groupRateLimit(), consumerOptions.groupMaxInFlight(), 0, route.count());
        Function<String, ExecutorService> executors = name -> Threads.handlerExecutor(name, consumerOptions.virtualThreads());
        // slots count messages: concurrency batches of batch.size() each
        Slots slots = new Slots(Math.multiplyExact(consumerOptions.concurrency(), batch.size()));
        List<ConsumerEngine<T>> engines = new ArrayList<>(route.count());
        for (QueueOps part : route.parts()) {
            ConsumerEngine<T> engine = ConsumerEngine.batch(redisson, shared, part, options.codec(), payloadType, handler,
                    batch, consumerOptions, executors, listener, slots, route::check);
            engine.holdsWith(route.parts());
            engines.add(engine);
        }
        return engines.size() == 1 ? engines.get(0) : new PartitionedConsumer(queue, engines);
    }

    /** Typed convenience for {@link #newBatchConsumer(String, Type, BatchMessageHandler, BatchOptions, ConsumerOptions)}. */
    public <T> DelayQueueConsumer newBatchConsumer(String queue, Class<T> payloadType, BatchMessageHandler<T> handler,
            BatchOptions batch, ConsumerOptions consumerOptions) {
        return newBatchConsumer(queue, (Type) payloadType, handler, batch, consumerOptions);
    }

    /** Typed convenience for {@link #newConsumer(String, Type, MessageHandler, ConsumerOptions)}. */
    public <T> DelayQueueConsumer newConsumer(String queue, Class<T> payloadType, MessageHandler<T> handler,
            ConsumerOptions consumerOptions) {
        return newConsumer(queue, (Type) payloadType, handler, consumerOptions);
    }

}
