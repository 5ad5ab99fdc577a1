package io.github.delayqueue.migration.marshalling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InvalidClassException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RDelayedQueue;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.handler.State;

import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.ImportReport;
import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.core.RDelayedQueueImporter;
import io.github.delayqueue.migration.marshalling.legacy.LegacyOrderTimeout;
import io.github.delayqueue.migration.other.NotAllowed;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;
import io.netty.buffer.Unpooled;

/**
 * Issue 32: values written by a real Redisson 3.x {@code MarshallingCodec} ({@link Redisson3Writer}) are read by
 * {@link LegacyMarshallingCodec} and imported from an {@code RDelayedQueue} into a delayqueue queue, each at its
 * Redisson due time; a value of a class outside the allowed packages is reported and left in Redisson.
 */
@ExtendWith(RedisExtension.class)
@SuppressWarnings("deprecation") // RDelayedQueue: what the migrated application used
class LegacyMarshallingCodecTest {

    private static final String LEGACY = "io.github.delayqueue.migration.marshalling.legacy";

    private static Redisson3Writer redisson3;

    @BeforeAll
    static void loadRedisson3() throws Exception {
        redisson3 = new Redisson3Writer();
    }

    @AfterAll
    static void closeRedisson3() throws Exception {
        redisson3.close();
    }

    @Test
    void theWriterIsRedisson3sOwnMarshallingCodec() {
        assertThat(redisson3.codecSource().getPath()).endsWith("redisson-" + System.getProperty("redisson3.writer.version")
                + ".jar").contains("/redisson-3.");
    }

    @Test
    void readsWhatRedisson3sMarshallingCodecWrote() throws Exception {
        LegacyMarshallingCodec codec = LegacyMarshallingCodec.allowing(LEGACY);
        Instant placedAt = Instant.parse("2022-11-10T08:55:00Z");
        LegacyOrderTimeout timeout = (LegacyOrderTimeout) decode(codec,
                redisson3.encode(new LegacyOrderTimeout(42, "unpaid", new ArrayList<>(List.of("book", "pen")), placedAt)));
        assertThat(timeout.orderId()).isEqualTo(42);
        assertThat(timeout.reason()).isEqualTo("unpaid");
        assertThat(timeout.items()).containsExactly("book", "pen");
        assertThat(timeout.placedAt()).isEqualTo(placedAt);
        assertThat(decode(codec, redisson3.encode(7L))).isEqualTo(7L);
        assertThat(decode(codec, redisson3.encode("{\"orderId\":9}"))).isEqualTo("{\"orderId\":9}");
        Map<String, Object> map = new HashMap<>(Map.of("orderId", 5L, "tags", new ArrayList<>(List.of("a"))));
        assertThat(decode(codec, redisson3.encode(map))).isEqualTo(map);
    }

    @Test
    void aClassOutsideTheAllowedPackagesIsNotInstantiated() throws Exception {
        byte[] bytes = redisson3.encode(new NotAllowed());
        assertThatThrownBy(() -> decode(LegacyMarshallingCodec.allowing(LEGACY), bytes))
                .isInstanceOf(InvalidClassException.class).hasMessageContaining(NotAllowed.class.getName())
                .hasMessageContaining("allowing(...)");
        // the application's own value, without its package allowed, fails too
        byte[] own = redisson3.encode(new LegacyOrderTimeout(1, "r", new ArrayList<>(), Instant.EPOCH));
        assertThatThrownBy(() -> decode(LegacyMarshallingCodec.allowing(), own)).isInstanceOf(InvalidClassException.class)
                .hasMessageContaining(LegacyOrderTimeout.class.getName());
    }

    @Test
    void anRDelayedQueueWrittenWithRedisson3sMarshallingCodecIsImportedAtItsDueTimes(RedisContext redis)
            throws Exception {
        String name = redis.prefix() + "-marshalling";
        String queue = "marshalling-target";
        // what the Redisson 3.x application stored: its MarshallingCodec's bytes, offered to an RDelayedQueue (the
        // delayed-queue layout is Redisson 4.7's, which the importer reads for 3.x as well)
        RDelayedQueue<byte[]> delayed = redis.redisson().getDelayedQueue(redis.redisson().getBlockingQueue(name,
                ByteArrayCodec.INSTANCE));
        delayed.offer(redisson3.encode(new LegacyOrderTimeout(42, "unpaid", new ArrayList<>(List.of("book")),
                Instant.EPOCH)), 10, TimeUnit.MINUTES);
        delayed.offer(redisson3.encode(43L), 20, TimeUnit.MINUTES);
        delayed.offer(redisson3.encode(new NotAllowed()), 30, TimeUnit.MINUTES);
        delayed.destroy();
        DelayQueueClient client = redis.client();

        ImportReport report = RDelayedQueueImporter.builder(client).from(name, LegacyMarshallingCodec.allowing(LEGACY))
                .to(queue)
                .mapping(value -> value instanceof LegacyOrderTimeout t ? Map.of("orderId", t.orderId())
                        : Map.of("orderId", value))
                .ids(value -> "order-" + (value instanceof LegacyOrderTimeout t ? t.orderId() : value))
                .build().run();

        assertThat(report.found()).isEqualTo(3);
        assertThat(report.imported()).isEqualTo(2);
        assertThat(report.failed()).isEqualTo(1);
        assertThat(report.remaining()).as("the entry that failed stays in Redisson").isEqualTo(1);
        assertThat(report.failures().get(0).reason()).contains(NotAllowed.class.getName());
        List<QueuedMessage> pending = client.pending(queue, 0, 10).messages();
        assertThat(pending).extracting(QueuedMessage::id).containsExactly("order-42", "order-43");
        assertThat(pending).extracting(QueuedMessage::payload).containsExactly("{\"orderId\":42}", "{\"orderId\":43}");
        Instant now = client.stats(queue).serverTime();
        assertThat(Duration.between(now, pending.get(0).dueAt())).isBetween(Duration.ofMinutes(9), Duration.ofMinutes(10));
        assertThat(Duration.between(now, pending.get(1).dueAt())).isBetween(Duration.ofMinutes(19), Duration.ofMinutes(20));
        redis.redisson().getKeys().delete(name, "redisson_delay_queue:{" + name + "}",
                "redisson_delay_queue_timeout:{" + name + "}");
    }

    @Test
    void badArgumentsAreRejectedAndItDoesNotWrite() {
        assertThatIllegalArgumentException().isThrownBy(() -> new LegacyMarshallingCodec(null, List.of()));
        assertThatIllegalArgumentException().isThrownBy(() -> new LegacyMarshallingCodec(getClass().getClassLoader(), null));
        assertThatIllegalArgumentException().isThrownBy(() -> LegacyMarshallingCodec.allowing(" "))
                .withMessageContaining("com.acme.orders");
        assertThatIllegalArgumentException().isThrownBy(() -> LegacyMarshallingCodec.allowing("com.acme."));
        assertThatThrownBy(() -> LegacyMarshallingCodec.allowing(LEGACY).getValueEncoder().encode("x"))
                .isInstanceOf(IOException.class).hasMessageContaining("only reads");
    }

    private static Object decode(LegacyMarshallingCodec codec, byte[] bytes) throws IOException {
        return codec.getValueDecoder().decode(Unpooled.wrappedBuffer(bytes), new State());
    }
}
