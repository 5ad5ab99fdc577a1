package io.github.delayqueue.core.protocol;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs activity.lua, the script of a queue's activity per minute ({@code io.github.delayqueue.core.activity}): one
 * hash per minute of the Redis clock, {@code <prefix>:{<tag of partition 0>}:activity:<minute>}, summed over the
 * instances that flush into it and expiring {@link #KEEP} after its minute ends. Its KEYS and ops are described in the
 * script's header.
 */
public final class ActivityScript {

    /** How long a minute's hash is kept after the minute ends. */
    public static final Duration KEEP = Duration.ofHours(2);

    /** The fields of one minute, in the order of {@link #flush}'s groups and {@link #read}'s reply. */
    public static final int FIELDS = 6;

    private ActivityScript() {
    }

    /** The activity base of a queue: a sibling of its first partition's keys, so in that partition's hash slot. */
    public static String base(QueueRoute route) {
        return route.part(0).keys().sibling("activity");
    }

    /**
     * Adds {@code minutes} (each: the minute's number since the epoch, then its {@link #FIELDS} fields: handled,
     * retried, dead, started, late_sum ms, late_max ms) to the queue's minute hashes, in one script call. Returns the
     * Redis clock (ms).
     */
    public static long flush(Scripts scripts, String base, List<long[]> minutes) {
        List<Object> args = new ArrayList<>(2 + minutes.size() * (FIELDS + 1));
        args.add("flush");
        args.add(Long.toString(KEEP.toMillis()));
        for (long[] minute : minutes) {
            for (long value : minute) {
                args.add(Long.toString(value));
            }
        }
        List<Object> out = scripts.list(Scripts.Name.ACTIVITY, List.of(base), args.toArray());
        return Long.parseLong(out.get(0).toString());
    }

    /**
     * The last {@code count} minutes of the queue, the current one last: the Redis clock (ms) first, then
     * {@link #FIELDS} values per minute ({@code 0} where nothing was recorded).
     */
    public static long[] read(Scripts scripts, String base, int count) {
        List<Object> out = scripts.list(Scripts.Name.ACTIVITY, List.of(base), "read", Integer.toString(count));
        long[] values = new long[out.size()];
        for (int i = 0; i < values.length; i++) {
            String value = out.get(i).toString();
            values[i] = value.isEmpty() ? 0 : Long.parseLong(value);
        }
        return values;
    }
}
