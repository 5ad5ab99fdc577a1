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

    /** A mark as includes/sets.lua writes it: {@code <kind><set id>\u001f<id>}. */
    public static String mark(char kind, String set, String id) {
        return kind + set + '\u001f' + id;
    }

    /** Reads {@link #mark}; null for a value of another shape (written by something other than delayqueue). */
    public static io.github.delayqueue.core.engine.SetForwarding.@org.jspecify.annotations.Nullable Mark readMark(
            String entry) {
        int sep = entry.indexOf('\u001f');
        if (sep < 2 || "ADC".indexOf(entry.charAt(0)) < 0) {
            return null;
        }
        return new io.github.delayqueue.core.engine.SetForwarding.Mark(entry.charAt(0), entry.substring(1, sep),
                entry.substring(sep + 1));
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
