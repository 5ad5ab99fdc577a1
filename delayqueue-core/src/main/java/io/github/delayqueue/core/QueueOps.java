package io.github.delayqueue.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

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

    private final Scripts scripts;
    private final QueueKeys keys;

    QueueOps(Scripts scripts, QueueKeys keys) {
        this.scripts = scripts;
        this.keys = keys;
    }

    QueueKeys keys() {
        return keys;
    }

    /** Writes messages; {@code triples} holds id, due spec, body per message. Returns a written flag per message. */
    List<Object> enqueue(boolean replace, List<String> triples) {
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
            claimed.add(new Claimed(member, member.substring(12), Integer.parseInt(out.get(i + 1).toString()),
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
