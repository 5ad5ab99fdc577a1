package io.github.delayqueue.core.protocol;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Where the partitions of a partitioned queue live, and which partition holds an id. Both rules are part of the
 * Redis layout (docs/internals/redis-layout.md): every client of a queue must compute the same, in every release.
 *
 * <ul>
 *   <li>A message with id {@code id} lives in partition {@code CRC-32(UTF-8 bytes of id) mod N}.</li>
 *   <li>Partition {@code p} of {@code N} has the hash tag {@code <queue>#<p>}, or {@code <queue>#<p>.<k>} for the
 *       smallest {@code k >= 1} that puts it in the {@code p}-th of {@code N} equal ranges of the 16,384 cluster
 *       slots. A cluster whose masters hold equal contiguous slot ranges (what {@code redis-cli --cluster create}
 *       makes) so holds the same number of partitions on each master when {@code N} is a multiple of the masters;
 *       plain hashing would pile them up by chance (six tags on three masters land two on each only one time in
 *       eight).</li>
 * </ul>
 */
public final class Partitions {

    /** Most partitions a queue may have: each is a claiming loop in every consumer of the queue. */
    public static final int MAX = 64;

    private static final int SLOTS = 16384;

    private Partitions() {
    }

    /** The partition of {@code id} among {@code count}. */
    public static int of(String id, int count) {
        if (count == 1) {
            return 0;
        }
        CRC32 crc = new CRC32();
        crc.update(id.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % count);
    }

    /** The hash tag of partition {@code partition} of {@code count} of {@code queue} (for {@code count > 1}). */
    public static String tag(String queue, int partition, int count) {
        int from = (int) ((long) partition * SLOTS / count);
        int to = (int) ((long) (partition + 1) * SLOTS / count);
        String base = queue + "#" + partition; // no queue name holds '#': these tags are only partitions'
        for (int k = 0; ; k++) {
            String tag = k == 0 ? base : base + "." + k;
            int slot = slot(tag);
            if (slot >= from && slot < to) {
                return tag;
            }
        }
    }

    /** The Redis Cluster slot of a key whose hash tag is {@code tag}: CRC-16/XMODEM of its UTF-8 bytes mod 16384. */
    public static int slot(String tag) {
        int crc = 0;
        for (byte b : tag.getBytes(StandardCharsets.UTF_8)) {
            crc ^= (b & 0xff) << 8;
            for (int i = 0; i < 8; i++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xffff;
        }
        return crc & (SLOTS - 1);
    }
}
