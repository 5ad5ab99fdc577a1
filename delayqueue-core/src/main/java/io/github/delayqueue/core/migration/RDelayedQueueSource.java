package io.github.delayqueue.core.migration;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;


/**
 * The Redis structures of one Redisson {@code RDelayedQueue}, as Redisson 3.x and 4.x lay them out (read from
 * {@code org.redisson.RedissonDelayedQueue} 4.7.0), for {@code RDelayedQueueImporter}:
 *
 * <ul>
 *   <li>{@code redisson_delay_queue_timeout:{name}}: ZSET, packed entry → due time (epoch ms, the offering
 *       JVM's clock);</li>
 *   <li>{@code redisson_delay_queue:{name}}: LIST of the same packed entries in offer order;</li>
 *   <li>{@code name}: the destination queue, a LIST of encoded values (no random id) that Redisson's transfer
 *       task moved there when they were due, waiting for {@code take()}/{@code poll()}.</li>
 * </ul>
 *
 * <p>A packed entry is {@code struct.pack('Bc0Lc0', 8, randomId, len(value), value)}: one byte 8, 8 random
 * bytes, the value's length as a native unsigned long, then the value encoded by the application's codec.
 * Older Redisson 3.x releases packed {@code struct.pack('dLc0', randomNumber, len(value), value)}; both are
 * read (an entry is taken in a format only if that format consumes it exactly). The scripts unpack with Redis's
 * own {@code struct}, as Redisson does. A name containing '{' is used as
 * is ({@code redisson_delay_queue:name}), as Redisson's {@code prefixName} does; otherwise all three keys
 * share the hash tag {@code {name}}, so every script here is legal on a cluster.
 *
 * <p>Values travel as bytes ({@link ByteArrayCodec}): they are whatever the application's codec wrote.
 */
public final class RDelayedQueueSource {

    /** Due times and packed entries of a page of the offer-ordered list, read at one instant. */
    public record Page(long redisNowMs, List<Entry> entries) {
    }

    /**
     * One packed entry. {@code value} is null when the entry does not unpack; {@code dueMs} is null when the
     * entry is in the list but not in the timeout set.
     */
    public record Entry(byte[] packed, byte @Nullable [] value, @Nullable Long dueMs) {
    }

    private static final String READ = """
            local t = redis.call('TIME')
            local out = { string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)) }
            local items = redis.call('LRANGE', KEYS[1], ARGV[1], ARGV[2])
            local function unpack_entry(v)
              if string.byte(v, 1) == 8 then
                local ok, rid, value, after = pcall(struct.unpack, 'Bc0Lc0', v)
                if ok and type(value) == 'string' and after == #v + 1 then return value end
              end
              local ok, rid, value, after = pcall(struct.unpack, 'dLc0', v)
              if ok and type(value) == 'string' and after == #v + 1 then return value end
              return false
            end
            for _, v in ipairs(items) do
              out[#out + 1] = v
              out[#out + 1] = unpack_entry(v)
              out[#out + 1] = redis.call('ZSCORE', KEYS[2], v)
            end
            return out
            """;

    /** Moves values out of the destination list back into the delayed structures, due now (see {@link #moveReady}). */
    private static final String MOVE_READY = """
            if redis.replicate_commands then redis.replicate_commands() end
            local t = redis.call('TIME')
            local now = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
            local packed = {}
            for i = 1, #ARGV do
              local v = redis.call('LPOP', KEYS[1])
              if not v then break end
              local p = struct.pack('Bc0Lc0', string.len(ARGV[i]), ARGV[i], string.len(v), v)
              redis.call('ZADD', KEYS[2], now, p)
              packed[#packed + 1] = p
            end
            for i = #packed, 1, -1 do redis.call('LPUSH', KEYS[3], packed[i]) end
            return #packed
            """;

    /** Removes exact packed entries from the timeout set and the list; counts those that were there. */
    private static final String REMOVE = """
            local removed = 0
            for i = 1, #ARGV do
              local z = redis.call('ZREM', KEYS[1], ARGV[i])
              local l = redis.call('LREM', KEYS[2], 1, ARGV[i])
              if z + l > 0 then removed = removed + 1 end
            end
            return removed
            """;

    private final RedissonClient redisson;
    private final RScript script;
    private final String name;
    private final String timeoutSet;
    private final String list;

    public RDelayedQueueSource(RedissonClient redisson, String name) {
        this.redisson = redisson;
        this.script = redisson.getScript(ByteArrayCodec.INSTANCE);
        this.name = name;
        this.timeoutSet = prefixName("redisson_delay_queue_timeout", name);
        this.list = prefixName("redisson_delay_queue", name);
    }

    /** Redisson's {@code RedissonObject.prefixName}. */
    public static String prefixName(String prefix, String name) {
        return name.contains("{") ? prefix + ":" + name : prefix + ":{" + name + "}";
    }

    public String name() {
        return name;
    }

    /** Entries waiting in the offer-ordered list (not yet due, or due and not yet transferred). */
    public long delayedSize() {
        return redisson.getList(list, ByteArrayCodec.INSTANCE).size();
    }

    /** Values Redisson already transferred to the destination queue. */
    public long readySize() {
        return redisson.getList(name, ByteArrayCodec.INSTANCE).size();
    }

    /** Values in the destination queue from {@code offset}, at most {@code count}, without changing anything. */
    public List<byte[]> readReady(long offset, int count) {
        return redisson.<byte[]>getList(name, ByteArrayCodec.INSTANCE).range((int) offset, (int) (offset + count - 1));
    }

    /** The packed entries of the list from {@code offset}, at most {@code count}, with their due times. */
    public Page read(long offset, int count) {
        List<Object> reply = run(READ, List.of(list, timeoutSet), ascii(offset), ascii(offset + count - 1));
        long now = Long.parseLong(text(reply.get(0)));
        List<Entry> entries = new ArrayList<>((reply.size() - 1) / 3);
        for (int i = 1; i + 2 < reply.size(); i += 3) {
            Object score = reply.get(i + 2);
            entries.add(new Entry((byte[]) reply.get(i), (byte[]) reply.get(i + 1),
                    score == null ? null : (long) Double.parseDouble(text(score))));
        }
        return new Page(now, entries);
    }

    /**
     * Moves up to {@code randomIds.size()} values from the head of the destination queue back into the delayed
     * structures, packed with the given random ids (8 bytes each) as Redisson packs them, due at the Redis clock's
     * now, at the head of the list. One atomic script: a value is in exactly one place before and after. Returns
     * how many moved.
     */
    public long moveReady(List<byte[]> randomIds) {
        List<Object> keys = List.of(name, timeoutSet, list);
        Long moved = script.eval(name, RScript.Mode.READ_WRITE, MOVE_READY, RScript.ReturnType.LONG, keys,
                randomIds.toArray());
        return moved == null ? 0 : moved;
    }

    /** Removes these exact packed entries from the timeout set and the list, atomically. Returns how many were there. */
    public long remove(List<byte[]> packed) {
        Long removed = script.eval(name, RScript.Mode.READ_WRITE, REMOVE, RScript.ReturnType.LONG,
                List.of(timeoutSet, list), packed.toArray());
        return removed == null ? 0 : removed;
    }

    private List<Object> run(String source, List<Object> keys, Object... args) {
        List<Object> reply = script.eval(name, RScript.Mode.READ_WRITE, source, RScript.ReturnType.LIST, keys, args);
        return reply == null ? List.of() : reply;
    }

    private static byte[] ascii(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    private static String text(Object reply) {
        return reply instanceof byte[] bytes ? new String(bytes, StandardCharsets.US_ASCII) : String.valueOf(reply);
    }
}
