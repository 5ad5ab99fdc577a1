package io.github.delayqueue.core.protocol;

import java.util.ArrayList;
import java.util.List;


/**
 * Runs set.lua, the script of a job set's own keys ({@code io.github.delayqueue.core.sets}):
 * {@code <prefix>:set:{<set id>}:state}, {@code :dead} and {@code :deaths}, under the set's hash tag. Its ops and
 * replies are described in the script's header; the marks of a queue's side are {@code includes/sets.lua}'s.
 */
public final class SetScript {

    /** The marks key of a queue partition ({@code includes/sets.lua}). */
    public static String marksKey(QueueKeys keys) {
        return keys.sibling("set-marks");
    }

    /**
     * One member's outcome.
     *
     * @param kind 'A' acknowledged, 'D' dead, 'C' cancelled
     * @param set  the set's id
     * @param id   the message's id
     */
    public record Mark(char kind, String set, String id) {
    }

    /** A mark as includes/sets.lua writes it for one member: {@code <kind><set id>\u001f<id>}. */
    public static String mark(char kind, String set, String id) {
        return kind + set + '\u001f' + id;
    }

    /**
     * The marks a settle wrote for {@code marks} (in its ops' order), as includes/sets.lua writes them: the acks of one
     * set in one mark, {@code A<set id>\u001f<id>\u001f<id>...}, in the order of their sets' first acks; a dead letter
     * one of its own.
     */
    public static List<String> entriesOf(List<Mark> marks) {
        java.util.Map<String, StringBuilder> acks = new java.util.LinkedHashMap<>();
        List<String> entries = new ArrayList<>();
        for (Mark m : marks) {
            if (m.kind() == 'A') {
                StringBuilder entry = acks.get(m.set());
                if (entry == null) {
                    acks.put(m.set(), new StringBuilder(mark('A', m.set(), m.id())));
                } else {
                    entry.append('\u001f').append(m.id());
                }
            } else {
                entries.add(mark(m.kind(), m.set(), m.id()));
            }
        }
        List<String> all = new ArrayList<>(acks.size() + entries.size());
        acks.values().forEach(entry -> all.add(entry.toString()));
        all.addAll(entries);
        return all;
    }

    /**
     * The members' outcomes a mark holds ({@link #entriesOf}); empty for a value of another shape (written by
     * something other than delayqueue).
     */
    public static List<Mark> readMarks(String entry) {
        int sep = entry.indexOf('\u001f');
        if (sep < 2 || "ADC".indexOf(entry.charAt(0)) < 0 || sep == entry.length() - 1) {
            return List.of();
        }
        char kind = entry.charAt(0);
        String set = entry.substring(1, sep);
        List<Mark> marks = new ArrayList<>();
        for (String id : entry.substring(sep + 1).split("\u001f", -1)) {
            if (id.isEmpty()) {
                return List.of();
            }
            marks.add(new Mark(kind, set, id));
        }
        return marks;
    }

    private final Scripts scripts;
    private final String prefix;
    private final int replicas;
    private final java.time.Duration replicaTimeout;

    /**
     * {@code replicas}: how many replicas of the set's master must acknowledge each write (Redis {@code WAIT} after
     * the script, on the same connection) before it counts, within {@code replicaTimeout}; 0: none. A set's write
     * that a failover loses is not written again (its marks are deleted once it returned), so a client that waits
     * for replicas on its sends, and requires them, waits on its sets' writes too, and a write fewer replicas
     * acknowledged fails (its marks stay, and are forwarded again). Without the requirement it does not wait: a
     * master without a replica would make every set's write wait the timeout.
     */
    public SetScript(Scripts scripts, String prefix, int replicas, java.time.Duration replicaTimeout) {
        this.scripts = scripts;
        this.prefix = prefix;
        this.replicas = replicas;
        this.replicaTimeout = replicaTimeout;
    }

    /** The three keys of a set, in set.lua's order. */
    public List<Object> keys(String set) {
        String base = prefix + ":set:{" + set + "}:";
        return List.of(base + "state", base + "dead", base + "deaths");
    }

    /**
     * Runs op {@code op} with {@code args} on set {@code set}: the reply of every op but read, 1 or 0 (the set exists)
     * then the due callbacks as token, value pairs.
     */
    public List<Object> run(String set, String op, List<String> args) {
        List<Object> all = new ArrayList<>(args.size() + 1);
        all.add(op);
        all.addAll(args);
        if (replicas == 0 || op.equals("read")) {
            return scripts.list(Scripts.Name.SET, keys(set), all.toArray());
        }
        Scripts.Synced synced;
        try {
            synced = scripts.listSyncedAsync(Scripts.Name.SET, keys(set), replicas, replicaTimeout, all.toArray())
                    .toCompletableFuture().join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
        if (synced.replicas() < replicas) {
            throw new io.github.delayqueue.core.NotReplicatedException("job set '" + set + "' written on the Redis "
                    + "master, but " + synced.replicas() + " of " + replicas + " replicas acknowledged it within "
                    + replicaTimeout.toMillis() + " ms", replicas, synced.replicas());
        }
        return synced.result();
    }
}
