package io.github.delayqueue.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/** The Redis operations of one queue; each is one script call. Arguments are already validated. */
final class QueueOps {

    /** One claimed delivery. {@code member} is the delayed/in-flight set member, {@code attempt} its fence. */
    record Claimed(String member, String id, int attempt, long dueMs, String envelope) {
    }

    /** What a claim returned; {@code nextEventMs} is -1 when nothing is pending or in flight. */
    record ClaimResult(long serverNowMs, long nextEventMs, List<Claimed> messages) {
    }

    /** One finished delivery to settle: {@code op} is A(ck), R(etry) or D(ead). */
    record Settlement(char op, String member, int attempt, long delayMs, String text) {
    }

    /** Most single sends combined into one script call (as {@code DelayQueueClient.SCRIPT_BATCH}). */
    static final int COMBINED = 500;

    private final Scripts scripts;
    private final QueueKeys keys;
    private final Combiner keeping = new Combiner(false);
    private final Combiner replacing = new Combiner(true);

    QueueOps(Scripts scripts, QueueKeys keys) {
        this.scripts = scripts;
        this.keys = keys;
    }

    QueueKeys keys() {
        return keys;
    }

    /**
     * Writes messages; {@code triples} holds id, due spec, body per message. Returns a written flag per message.
     * Single-message sends from concurrent threads are combined into one script call (see {@link Combiner}).
     */
    List<Object> enqueue(boolean replace, List<String> triples) {
        if (triples.size() == 3) {
            return (replace ? replacing : keeping).send(triples);
        }
        return enqueueNow(replace, triples);
    }

    private List<Object> enqueueNow(boolean replace, List<String> triples) {
        Object[] args = new Object[2 + triples.size()];
        args[0] = keys.wakeChannel();
        args[1] = replace ? "1" : "0";
        for (int i = 0; i < triples.size(); i++) {
            args[2 + i] = triples.get(i);
        }
        return scripts.list(Scripts.Name.ENQUEUE, keys.keys(), args);
    }

    ClaimResult claim(int limit, long leaseMs, int maxAttempts, int reapLimit) {
        List<Object> out = scripts.list(Scripts.Name.CLAIM, keys.keys(), keys.wakeChannel(), Integer.toString(limit),
                Long.toString(leaseMs), Integer.toString(maxAttempts), Integer.toString(reapLimit));
        long now = Long.parseLong(out.get(0).toString());
        String next = out.get(1).toString();
        List<Claimed> claimed = new ArrayList<>((out.size() - 2) / 4);
        for (int i = 2; i + 3 < out.size(); i += 4) {
            String member = out.get(i).toString();
            claimed.add(new Claimed(member, Envelope.idOf(member), Integer.parseInt(out.get(i + 1).toString()),
                    Long.parseLong(out.get(i + 2).toString()), out.get(i + 3).toString()));
        }
        return new ClaimResult(now, next.isEmpty() ? -1 : Long.parseLong(next), claimed);
    }

    /** Returns an applied flag per settlement (false: a newer delivery owns the message, or it is gone). */
    boolean[] settle(List<Settlement> settlements) {
        Object[] args = new Object[1 + settlements.size() * 5];
        args[0] = keys.wakeChannel();
        int i = 1;
        for (Settlement s : settlements) {
            args[i++] = String.valueOf(s.op());
            args[i++] = s.member();
            args[i++] = Integer.toString(s.attempt());
            args[i++] = Long.toString(s.delayMs());
            args[i++] = s.text() == null ? "" : s.text();
        }
        return flags(scripts.list(Scripts.Name.SETTLE, keys.keys(), args));
    }

    /** {@code fences} holds member, attempt pairs. Returns an extended flag per pair. */
    boolean[] extend(long leaseMs, List<String> fences) {
        Object[] args = new Object[2 + fences.size()];
        args[0] = keys.wakeChannel();
        args[1] = Long.toString(leaseMs);
        for (int i = 0; i < fences.size(); i++) {
            args[2 + i] = fences.get(i);
        }
        return flags(scripts.list(Scripts.Name.EXTEND, keys.keys(), args));
    }

    boolean cancel(String id) {
        return scripts.number(Scripts.Name.CANCEL, keys.keys(), keys.wakeChannel(), id) == 1;
    }

    boolean reschedule(String id, String dueSpec) {
        return scripts.number(Scripts.Name.RESCHEDULE, keys.keys(), keys.wakeChannel(), id, dueSpec) == 1;
    }

    QueueStats stats() {
        List<Object> out = scripts.list(Scripts.Name.STATS, keys.keys(), keys.wakeChannel());
        String next = out.get(5).toString();
        return new QueueStats(keys.queue(), number(out.get(1)), number(out.get(2)), number(out.get(3)),
                number(out.get(4)), next.isEmpty() ? null : Instant.ofEpochMilli(Long.parseLong(next)),
                Instant.ofEpochMilli(Long.parseLong(out.get(0).toString())));
    }

    List<DeadLetter> listDead(int limit) {
        List<Object> out = scripts.list(Scripts.Name.DEAD, keys.keys(), keys.wakeChannel(), "list", Integer.toString(limit));
        List<DeadLetter> letters = new ArrayList<>(out.size() / 5);
        for (int i = 0; i + 4 < out.size(); i += 5) {
            letters.add(deadLetter(out.get(i).toString(), out.get(i + 1).toString(), out.get(i + 2).toString(),
                    out.get(i + 3).toString()));
        }
        return letters;
    }

    /** {@code op} is "requeue" or "purge"; no ids means the oldest {@code limit}. Returns how many were moved. */
    long moveDead(String op, int limit, Collection<String> ids) {
        Object[] args = new Object[3 + ids.size()];
        args[0] = keys.wakeChannel();
        args[1] = op;
        args[2] = Integer.toString(limit);
        int i = 3;
        for (String id : ids) {
            args[i++] = id;
        }
        return scripts.number(Scripts.Name.DEAD, keys.keys(), args);
    }

    private static DeadLetter deadLetter(String id, String deadAt, String reason, String stored) {
        int colon = reason.indexOf(':');
        int attempts = colon > 0 ? parseIntOr(reason.substring(0, colon), 0) : 0;
        String text = colon >= 0 ? reason.substring(colon + 1) : reason;
        Instant died = Instant.ofEpochMilli((long) Double.parseDouble(deadAt));
        try {
            Envelope envelope = Envelope.parse(stored);
            return new DeadLetter(id, envelope.payload(), envelope.headers(), attempts, text, died, envelope.enqueuedAt());
        } catch (IllegalArgumentException e) {
            return new DeadLetter(id, stored, java.util.Map.of(), attempts, text, died, null);
        }
    }

    /** One single-message send waiting to be written by {@link Combiner}. */
    private static final class Single {
        final List<String> triple;
        final Thread thread = Thread.currentThread();
        volatile boolean done;
        Object flag;
        RuntimeException error;

        Single(List<String> triple) {
            this.triple = triple;
        }
    }

    /**
     * Group commit for single-message sends: a sender that finds no write of this queue (and mode) in
     * progress writes its own message together with every single send queued meanwhile, in one script
     * call of up to {@value #COMBINED} messages; the others wait for that call. A lone sender pays
     * nothing extra; N concurrent senders share round trips and script calls instead of paying N of
     * each (the Redis cost of a script call is mostly per call, not per message).
     */
    private final class Combiner {
        private final boolean replace;
        private final ConcurrentLinkedQueue<Single> waiting = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean writing = new AtomicBoolean();

        Combiner(boolean replace) {
            this.replace = replace;
        }

        List<Object> send(List<String> triple) {
            Single me = new Single(triple);
            waiting.add(me);
            boolean interrupted = false;
            try {
                while (!me.done) {
                    if (writing.compareAndSet(false, true)) {
                        try {
                            writeQueued();
                        } finally {
                            writing.set(false);
                        }
                        // whoever is next in line writes the rest (it may have parked while we wrote)
                        Single next = waiting.peek();
                        if (next != null) {
                            LockSupport.unpark(next.thread);
                        }
                    } else {
                        LockSupport.park(this);
                        interrupted |= Thread.interrupted(); // the message may be written by now: wait for the outcome
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            if (me.error != null) {
                throw me.error;
            }
            return List.of(me.flag);
        }

        /**
         * Only the one sender holding {@code writing} peeks and polls {@code waiting}, so the element it
         * polls is the one it peeked. (Two writers at once would break that: a tried variant with two lost
         * a queued send and parked its sender for ever.)
         */
        private void writeQueued() {
            List<Single> batch = new ArrayList<>();
            Set<String> ids = new HashSet<>();
            List<String> triples = new ArrayList<>();
            for (Single s = waiting.peek(); s != null && batch.size() < COMBINED; s = waiting.peek()) {
                if (!ids.add(s.triple.get(0))) {
                    break; // the same id twice: the later send goes in the next call, after the earlier one
                }
                waiting.poll();
                batch.add(s);
                triples.addAll(s.triple);
            }
            if (batch.isEmpty()) {
                return;
            }
            try {
                List<Object> flags = enqueueNow(replace, triples);
                for (int i = 0; i < batch.size(); i++) {
                    batch.get(i).flag = flags.get(i);
                }
            } catch (RuntimeException e) {
                batch.forEach(s -> s.error = e);
            } finally {
                for (Single s : batch) {
                    s.done = true;
                    LockSupport.unpark(s.thread);
                }
            }
        }
    }

    private static int parseIntOr(String s, int fallback) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    private static long number(Object o) {
        return Long.parseLong(o.toString());
    }

    private static boolean[] flags(List<Object> out) {
        boolean[] flags = new boolean[out.size()];
        for (int i = 0; i < flags.length; i++) {
            flags[i] = "1".equals(out.get(i).toString());
        }
        return flags;
    }
}
