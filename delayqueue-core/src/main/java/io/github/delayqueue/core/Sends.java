package io.github.delayqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import io.github.delayqueue.core.internal.Checks;
import io.github.delayqueue.core.protocol.Due;
import io.github.delayqueue.core.protocol.Envelope;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.QueueRoute;

import org.jspecify.annotations.Nullable;

/**
 * The writes of a {@link DelayQueueClient}: sends (checked and encoded by {@code prepare}, or restored from what
 * an outbox stored, then written in bounded script calls per partition), versioned intents, cancels and
 * reschedules. The contract of each method is on the client's method of the same name.
 */
final class Sends {

    private final DelayQueueClient client;
    private final ClientOptions options;
    private final ClientQueues queues;
    /** {@link DelayQueueListener#NONE} when nobody listens: then no clock is read for it. */
    private final DelayQueueListener listener;

    Sends(DelayQueueClient client, ClientOptions options, ClientQueues queues, DelayQueueListener listener) {
        this.client = client;
        this.options = options;
        this.queues = queues;
        this.listener = listener;
    }

    PreparedSend prepare(String queue, List<SendRequest> requests) {
        return prepare(queue, requests, null);
    }

    /** {@link #prepare(String, List)}, every message a member of the job set {@code set} (null: none). */
    PreparedSend prepare(String queue, List<SendRequest> requests, @Nullable String set) {
        queues.route(queue);
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
            String id = o.id() == null ? newId() : ClientQueues.validateId(o.id(), where);
            Checks.require(seen.add(id), "duplicate id '" + id + "' in one batch" + where);
            Due due = queues.checked(r.due(), where);
            validateHeaders(o.headers(), where);
            Checks.require(o.dedupWindow() == null || o.id() != null, "a dedup window needs an id (SendOptions.id)" + where);
            String body = Envelope.body(withReserved(o, expiry(o, due, where), priority(queue, o), set),
                    encode(r.payload(), where));
            messages.add(due instanceof Due.After after ? new PreparedSend.Message(id, o.mode(), after.delay(), null, body)
                    : new PreparedSend.Message(id, o.mode(), null, ((Due.At) due).instant(), body));
            costs.add(checkedBytes(id, body, where));
        }
        return new PreparedSend(client, queue, messages, costs);
    }

    PreparedSend restore(String queue, List<PreparedSend.Message> messages) {
        queues.route(queue);
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
        return new PreparedSend(client, queue, messages, costs);
    }

    /** The checks of {@link #restore} on one message; returns what it costs a script call, but for its due spec. */
    private int checkedStored(PreparedSend.Message m, String where) {
        ClientQueues.validateId(m.id(), where);
        int surrogate = Checks.loneSurrogate(m.body());
        Checks.require(surrogate < 0, "body holds a lone surrogate at index " + surrogate + where);
        try {
            Envelope.parse(RESTORE_PREFIX + m.body());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("body is not a message body this release writes" + where + ": " + e.getMessage(), e);
        }
        Envelope.Reserved reserved;
        try {
            reserved = Envelope.reservedOf(m.body());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("body holds " + e.getMessage() + where, e);
        }
        if (reserved.dedupWindowMs() != null) {
            long ms = reserved.dedupWindowMs();
            Checks.require(ms >= 1 && ms <= SendOptions.MAX_DEDUP_WINDOW.toMillis(), "body holds a dedup window that is "
                    + "not a whole number of milliseconds from 1 to " + SendOptions.MAX_DEDUP_WINDOW.toMillis() + where);
        }
        if (reserved.group() != null) {
            SendOptions.checkGroup(reserved.group(), " (group header of the body)" + where);
        }
        String priority = reserved.priority();
        if (priority != null) {
            Checks.require(priority.length() == 1 && priority.charAt(0) >= '0' && priority.charAt(0) <= '9',
                    "body holds a priority header that is not one digit from 0 to 9: '" + priority + "'" + where);
            Checks.require(reserved.group() == null, "body holds both a group and a priority: a message takes one" + where);
        }
        queues.checked(m.due(), where);
        return checkedBytes(m.id(), m.body(), where);
    }

    void checkVersioned(String queue, List<VersionedIntent> intents) {
        queues.route(queue);
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
                    ClientQueues.validateId(intent.id(), where);
                    args.add(queues.checked(intent.due(), where).scriptArg());
                }
                case CANCEL -> ClientQueues.validateId(intent.id(), where);
            }
            sizes.add(bytes);
        }
    }

    List<VersionedIntent.Outcome> applyVersioned(String queue, List<VersionedIntent> intents, Duration keepVersions) {
        QueueRoute route = queues.route(queue);
        Checks.require(keepVersions != null && keepVersions.toMillis() > 0, "keepVersions must be positive");
        List<String> args = new ArrayList<>(intents == null ? 0 : intents.size() * 6);
        List<Integer> starts = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        versionedArgs(intents, args, starts, sizes);
        VersionedIntent.Outcome[] outcomes = new VersionedIntent.Outcome[intents.size()];
        ClientQueues.redis(route, "apply versioned intents to queue '" + queue + "'", () -> {
            List<List<Integer>> groups = route.byPartition(intents.stream().map(VersionedIntent::id).toList());
            for (int p = 0; p < groups.size(); p++) {
                List<Integer> group = groups.get(p);
                int from = 0;
                while (from < group.size()) {
                    int to = from;
                    long bytes = 0;
                    while (to < group.size() && to - from < DelayQueueClient.SCRIPT_BATCH
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

    List<String> send(PreparedSend prepared) {
        Checks.require(prepared != null, "prepared must not be null");
        Checks.require(prepared.client == client, "prepared by another DelayQueueClient: send it with that one");
        QueueRoute route = queues.route(prepared.queue());
        boolean listening = listener != DelayQueueListener.NONE;
        boolean batch = prepared.ids().size() > 1;
        for (PreparedSend.Run run : prepared.runs) {
            long start = listening ? System.nanoTime() : 0;
            try {
                ClientQueues.redis(route, "send to queue '" + prepared.queue() + "'", () -> {
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
     * One script call per {@value DelayQueueClient#SCRIPT_BATCH} messages or {@value QueueOps#SCRIPT_BYTES} bytes, whichever
     * comes first (a larger message goes alone): a call holds Redis while it runs.
     */
    private static void write(QueueOps ops, SendMode mode, List<String> triples, List<Integer> sizes) {
        int from = 0;
        while (from < sizes.size()) {
            int to = from;
            long bytes = 0;
            while (to < sizes.size() && to - from < DelayQueueClient.SCRIPT_BATCH
                    && (to == from || bytes + sizes.get(to) <= QueueOps.SCRIPT_BYTES)) {
                bytes += sizes.get(to);
                to++;
            }
            ops.enqueue(mode, triples.subList(from * 3, to * 3));
            from = to;
        }
    }

    boolean cancel(String queue, String id) {
        QueueRoute route = queues.route(queue);
        ClientQueues.validateId(id, "");
        QueueOps part = route.of(id);
        String set = ClientQueues.redis(route, "cancel '" + id + "' in queue '" + queue + "'", () -> part.cancelled(id));
        if (set != null && !set.isEmpty()) {
            client.forwardCancel(part, set, id); // the set counts it now, not at the queue's next periodic pass
        }
        return set != null;
    }

    boolean reschedule(String queue, String id, Duration delay) {
        QueueRoute route = queues.route(queue);
        ClientQueues.validateId(id, "");
        Due due = queues.checked(Due.after(delay), "");
        return ClientQueues.redis(route, "reschedule '" + id + "' in queue '" + queue + "'", () -> route.of(id).reschedule(id, due));
    }

    boolean rescheduleAt(String queue, String id, Instant dueAt) {
        QueueRoute route = queues.route(queue);
        ClientQueues.validateId(id, "");
        Due due = queues.checked(Due.at(dueAt), "");
        return ClientQueues.redis(route, "reschedule '" + id + "' in queue '" + queue + "'", () -> route.of(id).reschedule(id, due));
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

    /** The headers to store: the reserved ones the options set, in {@link Envelope#withReserved}'s order, then the caller's. */
    private static Map<String, String> withReserved(SendOptions o, @Nullable String expiry, int priority,
            @Nullable String set) {
        return Envelope.withReserved(o.dedupWindow() == null ? null : o.dedupWindow().toMillis(), expiry, o.group(),
                priority, set, o.headers());
    }

    /**
     * A send's priority: the one its options give, else its queue's default ({@link ClientOptions.Builder#defaultPriority});
     * a grouped message keeps the default (a group has its own order).
     */
    private int priority(String queue, SendOptions o) {
        Integer given = o.priority();
        if (given != null) {
            return given;
        }
        return o.group() == null ? options.defaultPriority(queue) : SendOptions.DEFAULT_PRIORITY;
    }

    /** The largest epoch millisecond a Lua number holds exactly. */
    private static final long MAX_EXPIRY_MS = 9007199254740991L;

    /**
     * The expiry header's value: epoch ms, or {@code +<ms>} after the write (a duration after a relative due time,
     * resolved by the scripts from the envelope's enqueue time on the Redis clock); null without an expiry. Refuses
     * an expiry before the due time (for a relative due time, judged by this machine's clock).
     */
    private static @Nullable String expiry(SendOptions o, Due due, String where) {
        if (o.expiresAt() == null && o.expiresAfter() == null) {
            return null;
        }
        try {
            if (due instanceof Due.After after) {
                if (o.expiresAfter() != null) {
                    return "+" + Math.addExact(after.delay().toMillis(), o.expiresAfter().toMillis());
                }
                Instant dueAt = Instant.now().plus(after.delay());
                Checks.require(!o.expiresAt().isBefore(dueAt), "expiry " + o.expiresAt() + " is before the due time "
                        + dueAt + " (now + " + after.delay() + ")" + where);
                return Long.toString(checkedExpiry(o.expiresAt().toEpochMilli(), where));
            }
            Instant dueAt = ((Due.At) due).instant();
            Instant expiresAt = o.expiresAt() != null ? o.expiresAt() : dueAt.plus(o.expiresAfter());
            Checks.require(!expiresAt.isBefore(dueAt), "expiry " + expiresAt + " is before the due time " + dueAt + where);
            return Long.toString(checkedExpiry(expiresAt.toEpochMilli(), where));
        } catch (ArithmeticException | java.time.DateTimeException e) {
            throw new IllegalArgumentException("expiry out of range" + where, e);
        }
    }

    private static long checkedExpiry(long ms, String where) {
        Checks.require(ms >= 0 && ms <= MAX_EXPIRY_MS, "expiry must be from the epoch to " + MAX_EXPIRY_MS + " ms, was "
                + ms + where);
        return ms;
    }

    private static void validateHeaders(Map<String, String> headers, String where) {
        for (Map.Entry<String, String> header : headers.entrySet()) {
            Checks.require(Checks.loneSurrogate(header.getKey()) < 0 && Checks.loneSurrogate(header.getValue()) < 0,
                    "header '" + header.getKey() + "' holds a lone surrogate (invalid UTF-16 text)" + where);
        }
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
}
