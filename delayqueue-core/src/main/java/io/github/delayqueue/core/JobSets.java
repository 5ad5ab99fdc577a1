package io.github.delayqueue.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.redisson.api.RScoredSortedSet;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.github.delayqueue.core.engine.SetForwarding;
import io.github.delayqueue.core.internal.Checks;
import io.github.delayqueue.core.protocol.Envelope;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.SetScript;
import io.github.delayqueue.core.sets.Chain;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.core.sets.SetStatus;

import org.jspecify.annotations.Nullable;

/**
 * The job sets of a {@link DelayQueueClient} ({@code io.github.delayqueue.core.sets}): sends sets and chains, reads
 * their status, and forwards the outcomes its consumers settle to their sets (as {@link SetForwarding}), sending the
 * callbacks that become due. The contract of each public entry point is on the client's method of the same name; the
 * Redis side is set.lua (the set's own keys) and includes/sets.lua (the marks in the members' partitions).
 * <p>
 * Exactly once: a member's outcome is written as a mark in the script that settles it, in its own slot; the settler
 * forwards it (set.lua's marks: a member's state changes at most once per outcome, so a mark forwarded twice counts
 * once), then sends the callbacks the set says are due under ids of their own with the set's retention as their dedup
 * window (a second sender's send of the same callback is a no-op), tells the set they were sent, and only then deletes
 * the marks. A crash anywhere in between leaves the marks, which the periodic pass of their queue finds and forwards
 * again: the set then answers with the callbacks still due, and they are sent (again a no-op where the first send got
 * through).
 */
final class JobSets implements SetForwarding {

    private static final Logger log = LoggerFactory.getLogger(JobSets.class);

    /** Members per set.lua add call. */
    static final int ADD_BATCH = 1_000;
    /** Marks per sweep read. */
    static final int SWEEP_BATCH = 500;
    /** set.lua's DEATHS: at most this many death callbacks come in one reply. */
    private static final int DEATHS = 100;
    /**
     * Separates the fields of a stored callback: a control character, never in a queue name, an id or JSON, and not
     * the opening's separator ({@link #RS}), which holds callbacks.
     */
    private static final char SEP = '\u001d';

    private final DelayQueueClient client;
    private final RedissonClient redisson;
    private final ClientOptions options;
    private final Sends sends;
    private final SetScript script;

    JobSets(DelayQueueClient client, RedissonClient redisson, ClientOptions options, Sends sends, SetScript script) {
        this.client = client;
        this.redisson = redisson;
        this.options = options;
        this.sends = sends;
        this.script = script;
    }

    // ---- sending

    PreparedSet prepare(JobSet set) {
        Checks.require(set != null, "set must not be null");
        String id = set.id() != null ? set.id() : Sends.newId();
        List<PreparedSend> batches = new ArrayList<>();
        List<String> members = new ArrayList<>();
        for (Map.Entry<String, List<SendRequest>> e : set.members().entrySet()) {
            prepareMembers(id, e.getKey(), e.getValue(), batches, members);
        }
        Checks.require(members.stream().distinct().count() == members.size(), "a set holds a message id twice on one queue");
        List<String> opening = new ArrayList<>(members.size() + 6);
        opening.add(OPENING_VERSION);
        opening.add(id);
        opening.add(Long.toString(set.retention().toMillis()));
        opening.add(callback(set.onSuccess(), id, "success", set.retention(), null, false));
        opening.add(callback(set.onComplete(), id, "complete", set.retention(), null, false));
        opening.add(callback(set.onDeath(), id, "death", set.retention(), null, false));
        opening.add(set.parent() == null ? "" : set.parent());
        opening.add(Long.toString(latestDue(batches)));
        opening.add(Integer.toString(members.size()));
        return new PreparedSet(client, id, String.join(String.valueOf(RS), opening), members, batches);
    }

    /**
     * Checks and encodes {@code requests} on {@code queue} as members of {@code set}, in batches the client's sends
     * take: adds the batches to {@code batches} and each member's name in the set ({@code <queue>:<id>}) to
     * {@code members}.
     */
    private void prepareMembers(String set, String queue, List<SendRequest> requests, List<PreparedSend> batches,
            List<String> members) {
        for (int from = 0; from < requests.size(); from += options.maxBatchSize()) {
            PreparedSend prepared = sends.prepare(queue, requests.subList(from,
                    Math.min(requests.size(), from + options.maxBatchSize())), set);
            batches.add(prepared);
            for (String member : prepared.ids()) {
                members.add(queue + ":" + member);
            }
        }
    }

    /** The first field of an opening text: its format, so that a later release reads what an outbox kept. */
    private static final String OPENING_VERSION = "set1";
    /** Separates the fields of an opening: a control character, never in an id, a queue name or JSON. */
    static final char RS = '\u001e';

    /** The set created, its parent told, and its members added, from a {@link PreparedSet#opening()} text. */
    String open(String opening) {
        Checks.require(opening != null, "opening must not be null");
        String[] f = opening.split(String.valueOf(RS), -1);
        Checks.require(f.length >= 9 && OPENING_VERSION.equals(f[0]), "not the opening of a job set this release writes");
        int count;
        try {
            count = Integer.parseInt(f[8]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the opening of a job set holds no member count", e);
        }
        Checks.require(count > 0, "the opening of a job set counts no member");
        String id = JobSet.checkId(f[1]);
        Duration retention;
        try {
            retention = Duration.ofMillis(Long.parseLong(f[2]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the opening of job set '" + id + "' holds no retention", e);
        }
        String parent = f[6].isEmpty() ? null : JobSet.checkId(f[6]);
        for (int i = 3; i <= 5; i++) {
            Checks.require(f[i].isEmpty() || f[i].split(String.valueOf(SEP), -1).length == 5,
                    "the opening of job set '" + id + "' holds a callback this release cannot read");
        }
        long until;
        try {
            until = Long.parseLong(f[7]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the opening of job set '" + id + "' holds no latest due time", e);
        }
        List<String> members = List.of(f).subList(9, f.length);
        Checks.require(members.size() <= count, "the opening of job set '" + id + "' lists more members than it counts");
        for (String member : members) {
            int colon = member.indexOf(':');
            Checks.require(colon > 0 && colon < member.length() - 1, "the opening of job set '" + id
                    + "' holds a member that is not <queue>:<id>");
        }
        if (parent != null) {
            run(parent, "add", List.of("", new SetStatus.Member(null, id).key()));
        }
        if (!open(id, retention, f[3], f[4], f[5], parent, until, count)) {
            add(id, "reopen", until, members); // sent again: those dead or cancelled are pending again
        }
        return id;
    }

    /**
     * The set sealed: its callbacks may be due from now on, and those already due are sent. A callback that cannot be
     * sent fails the seal: when every member settled before it, nothing else would send it (no mark is left), so the
     * caller (the sender, an outbox relay) seals again.
     */
    void seal(String set) {
        JobSet.checkId(set);
        if (!fire(set, run(set, "seal", List.of()))) {
            throw new DelayQueueException("job set '" + set + "' is sealed, but a callback it made due could not be "
                    + "sent: seal it again (sendSet, send(PreparedSet) or sealSet with the same set) to send it", null);
        }
    }

    String send(PreparedSet prepared) {
        Checks.require(prepared != null, "prepared must not be null");
        Checks.require(prepared.client == client, "the set was prepared by another client");
        open(prepared.opening());
        for (PreparedSend batch : prepared.sends()) {
            client.send(batch); // a failure leaves the set unsealed: no callback until a send of the same id seals it
        }
        seal(prepared.id());
        return prepared.id();
    }

    List<String> addTo(String set, String queue, List<SendRequest> requests) {
        JobSet.checkId(set);
        Checks.require(requests != null && !requests.isEmpty(), "requests must not be null or empty");
        List<PreparedSend> batches = new ArrayList<>();
        List<String> members = new ArrayList<>();
        prepareMembers(set, queue, requests, batches, members);
        add(set, "add", latestDue(batches), members);
        List<String> ids = new ArrayList<>(members.size());
        for (PreparedSend prepared : batches) {
            ids.addAll(client.send(prepared));
        }
        return ids;
    }

    List<String> send(Chain chain) {
        Checks.require(chain != null, "chain must not be null");
        String id = chain.id() != null ? chain.id() : Sends.newId();
        List<Chain.Step> steps = chain.steps();
        int n = steps.size();
        List<String> ids = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            String given = steps.get(k).message().options().id();
            ids.add(given != null ? ClientQueues.validateId(given, " (step " + k + ")") : id + ":" + k);
        }
        Checks.require(ids.stream().distinct().count() == n, "two steps of a chain have the same id");
        // step k is the only member of set <id>:k, whose success callback is step k + 1 (itself a member of the next
        // set, but for the last step): the sets are opened last first, so that each callback's set exists
        for (int k = n - 2; k >= 0; k--) {
            Chain.Step next = steps.get(k + 1);
            String nextSet = k + 1 <= n - 2 ? id + ":" + (k + 1) : null;
            String success = callback(new JobSet.Callback(next.queue(), next.message().withOptions(
                    next.message().options().withId(ids.get(k + 1)))), id + ":" + k, "success", chain.retention(),
                    nextSet, true);
            // the step's set is kept until the retention after the step is due at the earliest (the delays before it
            // added up): a chain whose steps run later than that is told by its status, and by the docs
            long until = System.currentTimeMillis() + delaysUpTo(steps, k);
            if (!open(id + ":" + k, chain.retention(), success, "", "", null, until, 1)) {
                add(id + ":" + k, "reopen", until, List.of(steps.get(k).queue() + ":" + ids.get(k)));
            }
            fire(id + ":" + k, run(id + ":" + k, "seal", List.of()));
        }
        Chain.Step first = steps.get(0);
        // as every later step, if absent and remembered for the retention: the same chain sent again runs it once
        client.send(sends.prepare(first.queue(), List.of(first.message().withOptions(first.message().options()
                .withId(ids.get(0)).withMode(SendMode.IF_ABSENT).withDedupWindow(chain.retention()))),
                n > 1 ? id + ":0" : null));
        return ids;
    }

    Optional<SetStatus> status(String set, int deadLimit) {
        JobSet.checkId(set);
        Checks.require(deadLimit >= 0 && deadLimit <= 10_000, "deadLimit must be from 0 to 10000, was " + deadLimit);
        List<Object> out = script.run(set, "read", List.of(Integer.toString(deadLimit)));
        if (out.isEmpty() || "0".equals(out.get(0).toString())) {
            return Optional.empty();
        }
        long total = number(out, 1);
        long acked = number(out, 2);
        long dead = number(out, 3);
        long cancelled = number(out, 4);
        String fired = out.get(10).toString();
        List<SetStatus.Member> deadMembers = new ArrayList<>();
        for (int i = 12; i < out.size(); i++) {
            deadMembers.add(SetStatus.Member.of(out.get(i).toString()));
        }
        String parent = out.get(9).toString();
        return Optional.of(new SetStatus(set, total, Math.max(0, total - acked - dead - cancelled), acked, dead,
                cancelled, "1".equals(out.get(5).toString()), Instant.ofEpochMilli(number(out, 6)),
                Instant.ofEpochMilli(number(out, 8) + number(out, 7)), parent.isEmpty() ? null : parent,
                fired.contains("s"), fired.contains("c"), (int) number(out, 11), deadMembers));
    }

    private static long number(List<Object> out, int i) {
        String value = out.get(i).toString();
        return value.isEmpty() ? 0 : Long.parseLong(value);
    }

    /**
     * Creates the set with its {@code count} first members counted pending (their fields are written at their
     * outcomes: no per-member write at the send). Returns false if it existed (a send repeated).
     */
    private boolean open(String set, Duration retention, String success, String complete, String death,
            @Nullable String parent, long until, int count) {
        List<Object> reply = run(set, "open", List.of(Long.toString(retention.toMillis()), success, complete, death,
                parent == null ? "" : parent, Long.toString(until), Integer.toString(count)));
        return "2".equals(reply.get(0).toString());
    }

    /** set.lua's add (new members) or reopen (the first members sent again), in calls of {@link #ADD_BATCH}. */
    private void add(String set, String op, long until, List<String> members) {
        for (int from = 0; from < members.size(); from += ADD_BATCH) {
            List<String> args = new ArrayList<>(ADD_BATCH + 1);
            args.add(Long.toString(until));
            args.addAll(members.subList(from, Math.min(members.size(), from + ADD_BATCH)));
            run(set, op, args);
        }
    }

    /** The latest due time of these messages (ms since the epoch, this machine's clock), for the set's keys' life. */
    private static long latestDue(List<PreparedSend> batches) {
        long now = System.currentTimeMillis();
        long latest = now;
        for (PreparedSend batch : batches) {
            for (PreparedSend.Message m : batch.messages()) {
                long due = m.delay() != null ? now + m.delay().toMillis() : m.dueAt().toEpochMilli();
                latest = Math.max(latest, due);
            }
        }
        return latest;
    }

    /** The delays of steps 0 to k added up (an instant counts from now), ms. */
    private static long delaysUpTo(List<Chain.Step> steps, int k) {
        long total = 0;
        long now = System.currentTimeMillis();
        for (int i = 0; i <= k; i++) {
            io.github.delayqueue.core.protocol.Due due = steps.get(i).message().due();
            total += due instanceof io.github.delayqueue.core.protocol.Due.After after ? after.delay().toMillis()
                    : Math.max(0, ((io.github.delayqueue.core.protocol.Due.At) due).instant().toEpochMilli() - now);
        }
        return total;
    }

    /**
     * set.lua's errors as the exceptions of the API: an unknown or complete set is the caller's mistake; Redis failing
     * is a {@link DelayQueueException}, as for sends.
     */
    private List<Object> run(String set, String op, List<String> args) {
        try {
            return script.run(set, op, args);
        } catch (RedisException e) {
            String message = String.valueOf(e.getMessage());
            if (message.contains("no such set")) {
                throw new IllegalArgumentException("no job set '" + set + "' (never sent, or past its retention)", e);
            }
            if (message.contains("set complete")) {
                throw new IllegalStateException("job set '" + set + "' is complete (its complete callback was sent): "
                        + "it takes no more members", e);
            }
            throw new DelayQueueException("could not " + op + " job set '" + set + "': " + e, e);
        } catch (DelayQueueException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new DelayQueueException("could not " + op + " job set '" + set + "': " + e, e);
        }
    }

    /**
     * A callback as the set keeps it: queue, delay ms ('' for an instant), instant ms ('' for a delay), message id,
     * body; its body carries the set's retention as its dedup window and, for a chain's step, the next set.
     */
    private String callback(JobSet.@Nullable Callback callback, String set, String event, Duration retention,
            @Nullable String memberOf, boolean exactId) {
        if (callback == null) {
            return "";
        }
        SendOptions o = callback.message().options();
        // a set's own, even when the builder named it: two sets calling back under one id would make one message
        // (a chain's next step keeps its id, which the next set counts)
        String id = exactId ? o.id() : set + ":" + (o.id() != null ? o.id() : event);
        Map<String, String> headers = new LinkedHashMap<>(o.headers());
        headers.put(JobSet.SET_ID_HEADER, set);
        headers.put(JobSet.EVENT_HEADER, event);
        SendRequest request = callback.message().withOptions(o.withId(id).withMode(SendMode.IF_ABSENT)
                .withHeaders(headers).withDedupWindow(retention));
        PreparedSend.Message m = sends.prepare(callback.queue(), List.of(request), memberOf).messages().get(0);
        return callback.queue() + SEP + (m.delay() == null ? "" : Long.toString(m.delay().toMillis())) + SEP
                + (m.dueAt() == null ? "" : Long.toString(m.dueAt().toEpochMilli())) + SEP + m.id() + SEP + m.body();
    }

    /** Sends a stored callback; a death's carries its member in its id and in {@link JobSet#MEMBER_HEADER}. */
    private void sendCallback(String set, String stored, @Nullable String member) {
        String[] parts = stored.split(String.valueOf(SEP), 5);
        String queue = parts[0];
        String id = parts[3];
        String body = parts[4];
        if (member != null) {
            id = id + ":" + member;
            if (id.length() > ClientOptions.MAX_ID_LENGTH) { // a set id is at most 100 characters: this fits
                id = set + ":death:" + sha256(id);
            }
            body = withHeader(body, JobSet.MEMBER_HEADER, member);
        }
        PreparedSend.Message message = new PreparedSend.Message(id, SendMode.IF_ABSENT,
                parts[1].isEmpty() ? null : Duration.ofMillis(Long.parseLong(parts[1])),
                parts[2].isEmpty() ? null : Instant.ofEpochMilli(Long.parseLong(parts[2])), body);
        client.send(sends.restore(queue, List.of(message)));
    }

    /** {@code body} ({@code <length>:{headers}<payload>}, with headers: the dedup window) with one header more, last. */
    static String withHeader(String body, String name, String value) {
        int colon = body.indexOf(':');
        int length = Integer.parseInt(body, 0, colon, 10);
        String headers = body.substring(colon + 1, colon + 1 + length);
        String added = Envelope.body(Map.of(name, value), "");
        String one = added.substring(added.indexOf(':') + 2, added.length() - 1); // "name":"value"
        String json = headers.substring(0, headers.length() - 1) + "," + one + "}";
        return json.length() + ":" + json + body.substring(colon + 1 + length);
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Sends the callbacks a set.lua reply says are due, then tells the set which were sent. Returns whether every due
     * one was (false: one failed and stays due, so the marks that made it due must stay for a sweep).
     */
    private boolean fire(String set, List<Object> reply) {
        boolean all = true;
        for (int round = 0; reply.size() > 1; round++) {
            List<String> sent = new ArrayList<>();
            int deaths = 0;
            for (int i = 1; i + 1 < reply.size(); i += 2) {
                String token = reply.get(i).toString();
                String value = reply.get(i + 1).toString();
                try {
                    switch (token) {
                        case "s", "c" -> sendCallback(set, value, null);
                        case "ps", "pd" -> {
                            String child = new SetStatus.Member(null, set).key();
                            if (!fire(value, script.run(value, "marks", List.of((token.equals("ps") ? "A" : "D") + child)))) {
                                all = false;
                                continue;
                            }
                        }
                        default -> {
                            deaths++;
                            sendCallback(set, value, token.substring(1));
                        }
                    }
                    sent.add(token);
                } catch (RuntimeException e) {
                    all = false;
                    log.warn("Job set '{}': its {} callback could not be sent now; it stays due and is sent by the next "
                            + "forward or sweep: {}", set, token, e.toString());
                }
            }
            if (sent.isEmpty()) {
                return false;
            }
            reply = script.run(set, "fired", sent);
            if (deaths < DEATHS || !all || round > 1_000) {
                break; // more deaths than one reply holds come in the next reply: sent in the next round
            }
        }
        return all;
    }

    // ---- forwarding (the engine's side)

    @Override
    public void forward(QueueKeys keys, List<String> entries) {
        forwardCounted(keys, entries);
    }

    /** {@link #forward}; returns how many marks stay (their set's forward or callbacks failed, or they are unreadable). */
    private int forwardCounted(QueueKeys keys, Collection<String> entries) {
        Map<String, List<String>> entriesBySet = new LinkedHashMap<>();
        Map<String, List<String>> outcomesBySet = new LinkedHashMap<>();
        List<String> done = new ArrayList<>(entries.size());
        for (String entry : entries) {
            List<SetScript.Mark> marks = SetScript.readMarks(entry);
            if (marks.isEmpty()) {
                done.add(entry); // written by something other than delayqueue: nothing to forward
                continue;
            }
            String set = marks.get(0).set();
            entriesBySet.computeIfAbsent(set, s -> new ArrayList<>()).add(entry);
            List<String> outcomes = outcomesBySet.computeIfAbsent(set, s -> new ArrayList<>());
            for (SetScript.Mark mark : marks) {
                outcomes.add(mark.kind() + keys.queue() + ":" + mark.id());
            }
        }
        for (Map.Entry<String, List<String>> e : outcomesBySet.entrySet()) {
            String set = e.getKey();
            try {
                if (fire(set, script.run(set, "marks", e.getValue()))) {
                    done.addAll(entriesBySet.get(set));
                }
            } catch (RuntimeException ex) {
                log.warn("Queue '{}': {} outcomes of job set '{}' could not be forwarded now; the queue's periodic pass "
                        + "forwards them later: {}", keys.label(), e.getValue().size(), set, ex.toString());
            }
        }
        if (!done.isEmpty()) {
            try {
                marks(keys).removeAll(done);
            } catch (RuntimeException ex) {
                log.debug("Queue '{}': forwarded job-set marks not deleted (forwarded again later, counted once): {}",
                        keys.label(), ex.toString());
            }
        }
        return entries.size() - done.size();
    }

    @Override
    public void sweep(QueueKeys keys) {
        try {
            int skip = 0; // marks whose forward failed stay, oldest first: read past them, so newer ones get their turn
            for (int round = 0; round < 20; round++) {
                Collection<String> oldest = marks(keys).valueRange(skip, skip + SWEEP_BATCH - 1);
                skip += forwardCounted(keys, oldest);
                if (oldest.size() < SWEEP_BATCH) {
                    return;
                }
            }
        } catch (RuntimeException e) {
            log.warn("Queue '{}': job-set marks could not be swept now; the next periodic pass tries again: {}",
                    keys.label(), e.toString());
        }
    }

    private RScoredSortedSet<String> marks(QueueKeys keys) {
        return redisson.getScoredSortedSet(SetScript.marksKey(keys), StringCodec.INSTANCE);
    }
}
