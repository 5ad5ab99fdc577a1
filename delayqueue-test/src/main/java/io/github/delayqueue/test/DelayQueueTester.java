package io.github.delayqueue.test;

import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.core.ResolvableType;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.GroupStats;
import io.github.delayqueue.core.MessagePage;
import io.github.delayqueue.core.PayloadCodec;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.core.sets.SetStatus;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueConsumerRegistry;

/**
 * Tests an application's delayed jobs against the real Redis, consumers and handlers, in seconds rather than
 * at their due times: look at what was sent, make time pass for it, and read what ended in the dead letters.
 * Every Spring test context with {@code delayqueue-test} on its classpath has one as a bean; inject it:
 *
 * <pre>{@code
 * // an @Autowired field: DelayQueueTester delayQueue
 * orders.create("alice", 4200);
 * ScheduledMessage<PaymentTimeout> timeout = delayQueue.pending(ORDER_PAYMENT_TIMEOUT, PaymentTimeout.class).get(0);
 * assertThat(timeout.dueIn()).isCloseTo(Duration.ofMinutes(15), Duration.ofSeconds(10));
 * delayQueue.run(ORDER_PAYMENT_TIMEOUT, timeout.id());     // due now; returns once the handler has succeeded
 * }</pre>
 *
 * <p>Running a message reschedules it to "now" by the Redis clock (and again after each failed attempt, so retries
 * do not wait out their back-off), lets the queue's consumer claim it and call the handler, and waits until it is
 * settled: handled (its handler returned), or dead (which fails the call, with the reason). The wait fails after
 * {@link #timeout()} (30 s unless {@link #withTimeout changed}), listing what is still pending or in flight. Due
 * times are read from the Redis server's clock, never the test machine's. Messages that handlers send while a run
 * is under way are not part of it: run them with another call.
 *
 * <p>Bad input throws {@link IllegalArgumentException}: a {@code null} or undeclared code, a {@code null} or blank
 * id, a {@code null} or negative duration, a {@code null} type. A test failure (a message that died, is missing, or
 * did not settle in time) throws {@link AssertionError}. Instances are immutable and thread-safe.
 */
public final class DelayQueueTester {

    /** How long a run or wait lasts before it fails, unless {@link #withTimeout} says otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    /** At most this many messages of one queue are listed or run by one call. */
    public static final int MAX_MESSAGES = 10_000;

    private static final int PAGE = 1000;
    /**
     * The groups index's member in delayed (includes/format.lua GROUPS_MARK): never a message. A copy, held equal to
     * the script's by GroupsMarkTests.
     */
    static final String GROUPS_MARK = "|--------\u001f";

    private static final Duration POLL = Duration.ofMillis(20);

    private final DelayQueueAdmin admin;
    private final DelayQueueConsumerRegistry registry;
    private final PayloadCodec codec;
    private final Duration timeout;
    private final ResetScope resetScope;
    /** The context's Redis client, for reset() to delete remembered ids (dedup windows); null if it has none. */
    private final Supplier<@Nullable RedissonClient> redisson;

    DelayQueueTester(DelayQueueAdmin admin, DelayQueueConsumerRegistry registry, PayloadCodec codec, Duration timeout,
            ResetScope resetScope, Supplier<@Nullable RedissonClient> redisson) {
        this.admin = admin;
        this.registry = registry;
        this.codec = codec;
        this.timeout = timeout;
        this.resetScope = resetScope;
        this.redisson = redisson;
    }

    /** How long runs and waits of this tester last before they fail. */
    public Duration timeout() {
        return this.timeout;
    }

    /** A tester whose runs and waits fail after {@code timeout} (positive) instead. */
    public DelayQueueTester withTimeout(Duration timeout) {
        require(timeout != null && !timeout.isNegative() && !timeout.isZero(), "timeout must be positive, was " + timeout);
        return new DelayQueueTester(this.admin, this.registry, this.codec, timeout, this.resetScope, this.redisson);
    }

    // ---- what was sent

    /**
     * The queue's pending messages in due order (those already due first), {@code SendOptions.group grouped} ones
     * included ({@link ScheduledMessage#group()} names their group), payloads decoded with the payload type of the
     * queue's {@code @DelayHandler}. Empty when nothing is pending, for example after a send inside a transaction
     * that rolled back. A snapshot; in-flight messages are not included.
     *
     * <p>Grouped messages wait in their group's set, not on the queue's pending pages
     * ({@code DelayQueueClient.pending} lists ungrouped ones only), so this reads the queue's pages (1000 messages
     * each), then the groups index and each group's pending messages ({@code DelayQueueClient.pendingInGroup}), and
     * merges them by due time: a queue that never used groups costs one read of its (empty) groups index more, a
     * grouped one a read per group. Both are bounded by what a test may hold: at most {@value #MAX_MESSAGES}
     * messages, and fewer than 1000 groups with pending messages (more throw rather than list a part).
     *
     * @throws IllegalArgumentException if the queue has no {@code @DelayHandler} in this application, so no payload
     *                                  type is declared: use {@link #pending(DelayQueueCode, Class)}
     * @throws IllegalStateException    if the queue holds more than {@value #MAX_MESSAGES} pending messages, or
     *                                  pending messages in 1000 groups or more
     * @throws AssertionError           if a payload does not decode
     */
    public List<ScheduledMessage<Object>> pending(DelayQueueCode code) {
        Queue queue = queue(code);
        Type type = declaredType(queue).orElseThrow(() -> new IllegalArgumentException("Queue " + queue.name()
                + " has no @DelayHandler in this application, so its payload type is unknown: call pending("
                + queue.name() + ", PayloadType.class)"));
        return read(queue, type, Object.class);
    }

    /**
     * Like {@link #pending(DelayQueueCode)}, typed: the payloads are decoded with the type the queue's
     * {@code @DelayHandler} declares, which must be a {@code payloadType}, or with {@code payloadType} when the
     * queue has no handler in this application (a queue it only sends to).
     *
     * @throws IllegalArgumentException if the handler's payload type is not a {@code payloadType}
     */
    public <T> List<ScheduledMessage<T>> pending(DelayQueueCode code, Class<T> payloadType) {
        Queue queue = queue(code);
        require(payloadType != null, "payloadType must not be null");
        Optional<Type> declared = declaredType(queue);
        if (declared.isPresent()) {
            Class<?> raw = ResolvableType.forType(declared.get()).toClass();
            require(payloadType.isAssignableFrom(raw), "Queue " + queue.name() + " is handled with payloads of type "
                    + declared.get().getTypeName() + ", which is not a " + payloadType.getName());
        }
        return read(queue, declared.orElse(payloadType), payloadType);
    }

    // ---- make time pass

    /**
     * Runs one pending or in-flight message now, through the queue's consumer and handler, and waits until its
     * handler has succeeded.
     *
     * @throws AssertionError        if no live message has this id (already handled or dead, cancelled, never sent,
     *                               or sent in a transaction that has not committed), if it ends in the dead
     *                               letters, or if it is not handled within the timeout
     * @throws IllegalStateException if no consumer of the queue runs in this application
     */
    public void run(DelayQueueCode code, String id) {
        Run.Target target = live(code, id);
        new Run(List.of(target), POLL).await(this.timeout).requireAllHandled("Running " + target.describe());
    }

    /**
     * Runs every pending and in-flight message of the queue now, and waits until all have been handled. Returns
     * their ids, in the order they were handled. The pending ones are made due the highest {@code SendOptions.priority}
     * first, then in due order, as a claim takes them once all are due: a consumer that runs one message at a time
     * handles them in that order.
     *
     * @throws AssertionError        if one ends in the dead letters or is not handled within the timeout (listing
     *                               them all)
     * @throws IllegalStateException if no consumer of the queue runs, or it holds more than {@value #MAX_MESSAGES}
     *                               pending messages, or pending messages in 1000 groups or more
     */
    public List<String> runAll(DelayQueueCode code) {
        Queue queue = queue(code);
        requireConsumer(queue);
        return run(targets(queue, null), "Running every message of " + queue.name());
    }

    /**
     * Runs, now, every message of the queue that is due within {@code duration} (by the Redis clock; messages
     * already due and in flight included), as if that much time passed, and waits until all have been handled.
     * Messages due later stay as they are. Returns the ids run, in the order they were handled; they are made due as
     * {@link #runAll} makes them, the highest priority first.
     *
     * @throws AssertionError        if one ends in the dead letters or is not handled within the timeout
     * @throws IllegalStateException if no consumer of the queue runs in this application, or the queue holds more
     *                               than {@value #MAX_MESSAGES} pending messages, or pending messages in 1000 groups
     *                               or more
     */
    public List<String> runDueWithin(DelayQueueCode code, Duration duration) {
        Queue queue = queue(code);
        requireDuration(duration);
        requireConsumer(queue);
        return run(targets(queue, duration), "Running the messages of " + queue.name() + " due within " + duration);
    }

    /**
     * {@link #runDueWithin(DelayQueueCode, Duration)} for every declared queue whose consumer runs in this
     * application (queues it only sends to are left alone), in one wait.
     */
    public List<String> runDueWithin(Duration duration) {
        requireDuration(duration);
        List<Run.Target> targets = new ArrayList<>();
        for (DelayQueueCode code : this.admin.codes()) {
            if (this.registry.consumer(code).isPresent()) {
                targets.addAll(targets(queue(code), duration));
            }
        }
        return run(targets, "Running the messages due within " + duration);
    }

    /**
     * Waits until every declared queue is idle: no message due and waiting for a consumer ({@link QueueStats#ready()}
     * is 0) and none in flight. Pending messages due later, retries waiting out their back-off included, do not count:
     * run them first if the test needs them handled.
     *
     * @throws AssertionError if a queue is still busy after the timeout, naming it, its counts and whether a consumer
     *                        runs for it
     */
    public void awaitIdle() {
        long deadline = System.nanoTime() + this.timeout.toNanos();
        while (true) {
            List<QueueStats> busy = this.admin.codes().stream().map(this::queue)
                    .map(queue -> queue.client().stats(queue.name()))
                    .filter(stats -> stats.ready() > 0 || stats.inFlight() > 0).toList();
            if (busy.isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                StringBuilder text = new StringBuilder("Queues still busy after ").append(this.timeout).append(':');
                for (QueueStats stats : busy) {
                    boolean consumed = this.registry.consumer(this.admin.find(stats.queue()).orElseThrow())
                            .isPresent();
                    text.append("\n  - ").append(stats.queue()).append(": ").append(stats.ready()).append(" due, ")
                            .append(stats.inFlight()).append(" in flight, ").append(stats.dead()).append(" dead")
                            .append(consumed ? "" : " (no consumer of this queue runs in this application)");
                }
                throw new AssertionError(text.toString());
            }
            pause(POLL);
        }
    }

    /**
     * Waits until the job set is complete (every member acknowledged, dead or cancelled) and every callback it made due
     * has been sent, so that the test may then run the callbacks' queue (its callbacks are sent right after the
     * settle of the member that made them due, on the instance that settled it: a {@code runAll} of the members'
     * queue can return just before). Returns the set's status.
     *
     * @throws AssertionError if the set does not exist, or is not complete within the timeout (with its counts)
     */
    public SetStatus awaitSet(String setId) {
        require(!this.admin.codes().isEmpty(), "no queue is declared, so there is no client to read the set with");
        DelayQueueClient client = this.admin.client(this.admin.codes().iterator().next());
        long deadline = System.nanoTime() + this.timeout.toNanos();
        while (true) {
            Optional<SetStatus> status = client.setStatus(setId);
            if (status.isEmpty()) {
                throw new AssertionError("No job set '" + setId + "' (never sent, or past its retention)");
            }
            if (status.get().settled()) {
                return status.get();
            }
            if (System.nanoTime() - deadline > 0) {
                SetStatus s = status.get();
                throw new AssertionError("Job set '" + setId + "' is not complete after " + this.timeout + ": "
                        + s.pending() + " of " + s.total() + " members pending, " + s.acknowledged() + " acknowledged, "
                        + s.dead() + " dead, " + s.cancelled() + " cancelled" + (s.sealed() ? "" : ", not sealed")
                        + (s.callbacksDue() > 0 ? ", " + s.callbacksDue() + " callbacks not yet sent" : ""));
            }
            pause(POLL);
        }
    }

    // ---- dead letters

    /**
     * The queue's dead letters, oldest first (at most 1000), payloads decoded with the queue's declared payload
     * type when they can be.
     */
    public List<DeadMessage> deadLetters(DelayQueueCode code) {
        Queue queue = queue(code);
        Optional<Type> type = declaredType(queue);
        return queue.client().deadLetters(queue.name(), Run.DEAD_LIMIT).stream()
                .map(letter -> deadMessage(letter, type.orElse(null))).toList();
    }

    /**
     * The newest dead letter of the message with this id.
     *
     * @throws AssertionError if the queue has no dead letter with this id, saying where the message is instead
     */
    public DeadMessage deadLetter(DelayQueueCode code, String id) {
        Queue queue = queue(code);
        requireId(id);
        Optional<DeadMessage> dead = newestDead(queue, id);
        if (dead.isPresent()) {
            return dead.get();
        }
        String where = queue.client().message(queue.name(), id).map(DelayQueueTester::describe)
                .orElse("no live message has this id either");
        throw new AssertionError("Queue " + queue.name() + " has no dead letter '" + id + "': " + where);
    }

    /**
     * Runs one live message now, as {@link #run} does, expecting it to end in the dead letters (its retries run at
     * once), and returns its dead letter. A message already dead is returned as it is.
     *
     * @throws AssertionError if its handler succeeds, if no message has this id, or if it is still live after the
     *                        timeout
     */
    public DeadMessage runExpectingDeadLetter(DelayQueueCode code, String id) {
        Queue queue = queue(code);
        requireId(id);
        if (queue.client().message(queue.name(), id).isEmpty()) {
            return deadLetter(code, id);
        }
        Run.Target target = live(code, id);
        Run.Result result = new Run(List.of(target), POLL).await(this.timeout);
        DeadLetter letter = result.dead().get(target);
        if (letter != null) {
            return deadMessage(letter, declaredType(queue).orElse(null));
        }
        StringBuilder text = new StringBuilder("Expected ").append(target.describe()).append(" to end in the dead letters");
        text.append(result.handled().isEmpty() ? ", but it is still live after " + this.timeout + "."
                : ", but its handler succeeded.");
        result.describe(text);
        throw new AssertionError(text.toString());
    }

    /**
     * Deletes every live message (grouped ones included) and dead letter of every declared queue, the ids remembered
     * after delivery ({@code SendOptions.withDedupWindow}) and the flow state of the queue and its groups (rates and
     * holds), for a test that starts afresh in a
     * context it shares with other tests. Handlers already running are not stopped (their results are ignored,
     * since their messages are gone): call {@link #awaitIdle()} first. Each queue's key prefix of this test context
     * is deleted anyway when the context closes.
     *
     * <p>It deletes only what the test context owns: queues under the key prefix the context generated, or any
     * queue when the context runs on the embedded Redis it started. A queue whose prefix comes from the
     * configuration ({@code delayqueue.key-prefix} in the application's {@code application.yml}, say) on a Redis
     * the test did not start may hold the application's real messages; then nothing is deleted and the call throws,
     * unless the test sets {@code delayqueue.test.reset-configured-prefix=true} to say that Redis holds test data
     * only.
     *
     * @throws IllegalStateException if a queue's key prefix is not the context's own (nothing is deleted then), or
     *                               a queue still has live messages after 11 rounds of deleting up to 2000 of them
     *                               (handlers that keep sending, or a queue larger than a test's)
     */
    public void reset() {
        List<String> foreign = new ArrayList<>();
        for (DelayQueueCode code : this.admin.codes()) {
            Queue queue = queue(code);
            String prefix = queue.client().options().keyPrefix();
            if (!this.resetScope.owns(prefix)) {
                foreign.add(queue.name() + " (prefix '" + prefix + "')");
            }
        }
        if (!foreign.isEmpty()) {
            throw new IllegalStateException(this.resetScope.refusal(foreign));
        }
        for (DelayQueueCode code : this.admin.codes()) {
            Queue queue = queue(code);
            boolean empty = false;
            for (int round = 0; round <= MAX_MESSAGES / PAGE && !empty; round++) {
                List<QueuedMessage> messages = new ArrayList<>(queue.client().pending(queue.name(), 0, PAGE).messages());
                messages.addAll(queue.client().inFlight(queue.name(), 0, PAGE).messages());
                messages.addAll(grouped(queue, PAGE, false));
                messages.forEach(message -> queue.client().cancel(queue.name(), message.id()));
                empty = messages.isEmpty();
            }
            if (!empty) {
                throw new IllegalStateException("Queue " + queue.name() + " still holds live messages after "
                        + (MAX_MESSAGES / PAGE + 1) + " rounds of deleting up to " + 2 * PAGE + " of them: handlers keep "
                        + "sending to it (call awaitIdle() first), or it holds more than DelayQueueTester handles");
            }
            queue.client().purgeAllDeadLetters(queue.name());
            forgetState(prefix(queue), queue.name());
        }
    }

    private static String prefix(Queue queue) {
        return queue.client().options().keyPrefix();
    }

    /**
     * Deletes what outlives the queue's messages, in the queue's keys and those of its partitions (tagged
     * {@code {<queue>#...}}), by SCAN (fine for a test's Redis; the engine never scans): the ids remembered after
     * delivery ({@code remembered:<id>}), the flow state of the queue ({@code flow}: its rate, its hold) and of its
     * groups ({@code group-flow}, {@code group-idle}), the groups' marker in {@code delayed} (includes/groups.lua), and
     * the priorities' markers there whose sets are empty ({@link #FORGET_PRIORITY_MARKS}).
     */
    private void forgetState(String prefix, String queue) {
        RedissonClient client = this.redisson.get();
        if (client == null) {
            return;
        }
        String escaped = prefix.replaceAll("([*?\\[\\]\\\\])", "\\\\$1"); // a queue name holds no glob character
        for (String tag : List.of("{" + queue + "}", "{" + queue + "#*}")) {
            String base = escaped + ":" + tag + ":";
            client.getKeys().unlinkByPattern(base + "remembered:*");
            client.getKeys().unlinkByPattern(base + "group-*"); // group-flow, group-idle
            client.getKeys().unlinkByPattern(base + "flow");
            client.getKeys().getKeysStreamByPattern(base + "delayed").forEach(delayed -> {
                client.getScoredSortedSet(delayed, StringCodec.INSTANCE).remove(GROUPS_MARK);
                forgetPriorityMarks(client, delayed);
            });
        }
    }

    /**
     * A priority's marker in delayed: {@code ^<digit>} scored -inf, while the set {@code <base>priority:<digit>} may
     * hold members (delayqueue-core's includes/priorities.lua; held equal to the scripts' by PriorityMarksTests).
     */
    static final char PRIORITY_MARK = '^';

    /** The set a priority's messages pend in, after the queue's (or partition's) key base {@code <prefix>:{<tag>}:}. */
    static final String PRIORITY_SET = "priority:";

    /**
     * Deletes from delayed (KEYS[1]) each priority's marker whose set (KEYS[2 + digit]) holds nothing, in one script:
     * a send between a look and a delete would otherwise leave a message in its priority's set without the marker the
     * claim finds it by. A marker of a set that still holds messages stays. Returns how many were deleted.
     */
    static final String FORGET_PRIORITY_MARKS = """
            local removed = 0
            for _, mark in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '-inf')) do
              local level = #mark == 2 and string.sub(mark, 1, 1) == '^' and tonumber(string.sub(mark, 2, 2))
              if level and redis.call('EXISTS', KEYS[level + 2]) == 0 then
                redis.call('ZREM', KEYS[1], mark)
                removed = removed + 1
              end
            end
            return removed
            """;

    private static void forgetPriorityMarks(RedissonClient client, String delayed) {
        String base = delayed.substring(0, delayed.length() - "delayed".length());
        List<Object> keys = new ArrayList<>(11);
        keys.add(delayed);
        for (int level = 0; level <= 9; level++) {
            keys.add(base + PRIORITY_SET + level);
        }
        client.getScript(StringCodec.INSTANCE).eval(delayed, RScript.Mode.READ_WRITE, FORGET_PRIORITY_MARKS,
                RScript.ReturnType.LONG, keys);
    }

    // ---- internals

    private List<String> run(List<Run.Target> targets, String what) {
        if (targets.isEmpty()) {
            return List.of();
        }
        Run.Result result = new Run(targets, POLL).await(this.timeout);
        result.requireAllHandled(what);
        return result.handledIds();
    }

    /** The live message with this id, as a run target, after checking that the queue is consumed. */
    private Run.Target live(DelayQueueCode code, String id) {
        Queue queue = queue(code);
        requireId(id);
        requireConsumer(queue);
        Optional<QueuedMessage> message = queue.client().message(queue.name(), id);
        if (message.isEmpty()) {
            String fate = newestDead(queue, id).map(dead -> "it is already dead: " + dead.reason())
                    .orElse("it was handled, cancelled or never sent (a send inside a transaction is written when "
                            + "the transaction commits)");
            throw new AssertionError("No pending or in-flight message '" + id + "' in queue " + queue.name() + ": "
                    + fate);
        }
        return new Run.Target(queue, id, message.get().enqueuedAt());
    }

    /**
     * The queue's in-flight messages, then its pending ones (due within {@code within}, or all) in the order a claim
     * takes them once all are due: the highest priority first ({@code SendOptions.priority}), and within one priority
     * in due order. The run makes them due now in this order, so a consumer that takes one at a time is handed the
     * highest first even while the later ones are still being made due (each made due after it is of a lower or equal
     * priority, and due later).
     */
    private List<Run.Target> targets(Queue queue, @Nullable Duration within) {
        List<Run.Target> targets = new ArrayList<>();
        for (QueuedMessage message : inFlight(queue)) {
            targets.add(new Run.Target(queue, message.id(), message.enqueuedAt()));
        }
        Instant horizon = within == null ? null : queue.client().stats(queue.name()).serverTime().plus(within);
        List<QueuedMessage> pending = new ArrayList<>();
        for (QueuedMessage message : allPending(queue).messages()) {
            if (horizon != null && message.dueAt() != null && message.dueAt().isAfter(horizon)) {
                break;
            }
            pending.add(message);
        }
        pending.sort(Comparator.comparingInt(QueuedMessage::priority).reversed()); // stable: due order within one
        for (QueuedMessage message : pending) {
            targets.add(new Run.Target(queue, message.id(), message.enqueuedAt()));
        }
        return targets;
    }

    /** A queue's pending messages, grouped ones included, in due order; {@code serverTime} the Redis clock's. */
    private record Pending(List<QueuedMessage> messages, Instant serverTime) {
    }

    /**
     * Every pending message of the queue, ungrouped (its pending pages) and grouped (its groups' pages), in due order
     * (equal due times: the ungrouped first, each set in its own order).
     *
     * @throws IllegalStateException if they are more than {@value #MAX_MESSAGES}, or in {@value #PAGE} groups or more
     */
    private static Pending allPending(Queue queue) {
        List<QueuedMessage> messages = new ArrayList<>();
        Instant serverTime = null;
        long offset = 0;
        while (true) {
            MessagePage page = queue.client().pending(queue.name(), offset, PAGE);
            serverTime = serverTime == null ? page.serverTime() : serverTime;
            if (page.total() > MAX_MESSAGES) {
                throw tooMany(queue);
            }
            messages.addAll(page.messages());
            if (page.messages().size() < PAGE) {
                break;
            }
            offset += page.messages().size();
        }
        messages.addAll(grouped(queue, MAX_MESSAGES + 1 - messages.size(), true));
        if (messages.size() > MAX_MESSAGES) {
            throw tooMany(queue);
        }
        messages.sort(Comparator.comparing(QueuedMessage::dueAt, Comparator.nullsFirst(Comparator.naturalOrder())));
        return new Pending(messages, serverTime);
    }

    private static IllegalStateException tooMany(Queue queue) {
        return new IllegalStateException("Queue " + queue.name() + " holds more than " + MAX_MESSAGES
                + " pending messages; DelayQueueTester reads at most " + MAX_MESSAGES + " at once");
    }

    /**
     * The queue's pending {@code SendOptions.group grouped} messages (not on the pending pages), at most {@code most}
     * (at least 1). The groups are listed by {@code DelayQueueClient.groups}, at most {@value #PAGE} per partition:
     * with {@code all}, a listing that may have left groups out throws; without, those of the groups listed (for
     * reset, which deletes them and lists again).
     */
    private static List<QueuedMessage> grouped(Queue queue, int most, boolean all) {
        List<QueuedMessage> messages = new ArrayList<>();
        List<GroupStats> groups = queue.client().groups(queue.name(), PAGE);
        if (all && groups.size() >= PAGE) {
            throw new IllegalStateException("Queue " + queue.name() + " holds pending messages in " + groups.size()
                    + " groups or more; DelayQueueTester reads the messages of at most " + (PAGE - 1) + " groups");
        }
        for (GroupStats group : groups) {
            for (long offset = 0; offset < group.pending() && messages.size() < most; offset += PAGE) { // most: a bound
                List<QueuedMessage> page = queue.client().pendingInGroup(queue.name(), group.group(), offset, PAGE).messages();
                messages.addAll(page);
                if (page.size() < PAGE) {
                    break;
                }
            }
            if (messages.size() >= most) {
                break;
            }
        }
        return messages.size() > most ? messages.subList(0, most) : messages;
    }

    /** Every in-flight message of the queue, bounded by {@link #MAX_MESSAGES}. */
    private static List<QueuedMessage> inFlight(Queue queue) {
        List<QueuedMessage> messages = new ArrayList<>();
        long offset = 0;
        while (true) {
            MessagePage page = queue.client().inFlight(queue.name(), offset, PAGE);
            if (page.total() > MAX_MESSAGES) {
                throw new IllegalStateException("Queue " + queue.name() + " holds " + page.total()
                        + " in-flight messages; DelayQueueTester reads at most " + MAX_MESSAGES + " at once");
            }
            messages.addAll(page.messages());
            if (page.messages().size() < PAGE) {
                return messages;
            }
            offset += page.messages().size();
        }
    }

    private <T> List<ScheduledMessage<T>> read(Queue queue, Type decodeAs, Class<T> as) {
        Pending pending = allPending(queue);
        List<ScheduledMessage<T>> messages = new ArrayList<>(pending.messages().size());
        for (QueuedMessage message : pending.messages()) {
            Instant dueAt = message.dueAt() != null ? message.dueAt() : pending.serverTime();
            T payload = as.cast(decode(queue, message.id(), message.payload(), decodeAs));
            messages.add(new ScheduledMessage<>(message.id(), payload, message.headers(), dueAt,
                    Duration.between(pending.serverTime(), dueAt), message.attempts(), message.lastError(),
                    message.enqueuedAt(), message.group(), message.priority()));
        }
        return messages;
    }

    private Object decode(Queue queue, String id, String json, Type type) {
        try {
            return this.codec.decode(json, type);
        } catch (RuntimeException e) {
            throw new AssertionError("Message '" + id + "' of queue " + queue.name() + " does not decode as "
                    + type.getTypeName() + ": " + e.getMessage() + "; stored payload: " + json, e);
        }
    }

    private DeadMessage deadMessage(DeadLetter letter, @Nullable Type type) {
        Object payload = null;
        if (type != null) {
            try {
                payload = this.codec.decode(letter.payload(), type);
            } catch (RuntimeException e) {
                // left null: a payload that does not decode may be why it died
            }
        }
        return new DeadMessage(letter.key(), letter.id(), payload, letter.payload(), letter.headers(), letter.attempts(),
                letter.reason(), letter.deadAt());
    }

    private Optional<DeadMessage> newestDead(Queue queue, String id) {
        Optional<Type> type = declaredType(queue);
        return queue.client().deadLetters(queue.name(), Run.DEAD_LIMIT).stream().filter(letter -> letter.id().equals(id))
                .reduce((first, second) -> second).map(letter -> deadMessage(letter, type.orElse(null)));
    }

    /** The payload type of the queue's {@code @DelayHandler} in this application, if it has one. */
    private Optional<Type> declaredType(Queue queue) {
        return this.admin.payloadType(queue.code());
    }

    /** A declared queue and the engine client that serves it; its name there is its code's {@code code()}. */
    record Queue(DelayQueueCode code, DelayQueueClient client) {

        String name() {
            return code.code();
        }
    }

    private Queue queue(DelayQueueCode code) {
        return new Queue(code, this.admin.client(code));
    }

    private void requireConsumer(Queue queue) {
        if (this.registry.consumer(queue.code()).isEmpty()) {
            throw new IllegalStateException("No consumer of queue " + queue.name() + " runs in this application, so "
                    + "nothing would handle its messages: it needs a @DelayHandler, delayqueue.consumer.enabled and "
                    + "delayqueue.queues." + queue.name() + ".consumer-enabled not false, and a started application");
        }
    }

    private static void requireId(String id) {
        require(id != null && !id.isBlank(), "id must not be null or blank");
    }

    private static void requireDuration(Duration duration) {
        require(duration != null && !duration.isNegative(), "duration must not be null or negative, was " + duration);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    static String describe(QueuedMessage message) {
        StringBuilder text = new StringBuilder();
        if (message.state() == QueuedMessage.State.IN_FLIGHT) {
            text.append("in flight, attempt ").append(message.attempts());
            if (message.leaseDeadline() != null) {
                text.append(", lease until ").append(message.leaseDeadline());
            }
        } else {
            text.append("pending");
            if (message.dueAt() != null) {
                text.append(", due at ").append(message.dueAt());
            }
            text.append(", ").append(message.attempts()).append(" attempt(s) so far");
        }
        if (message.lastError() != null) {
            text.append(", last error: ").append(message.lastError());
        }
        return text.toString();
    }

    /** Sleeps between two looks at Redis; an interrupt ends the wait (the flag kept) with an exception. */
    static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for delayed messages", e);
        }
    }
}
