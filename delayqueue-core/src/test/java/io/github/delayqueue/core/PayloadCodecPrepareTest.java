package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

import java.lang.reflect.Type;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.junit.jupiter.api.Test;

/**
 * {@link PayloadCodec#prepare}, which the starter's warm-up calls for every handler's payload type: it never throws,
 * whatever the type, and leaves encoding and decoding as they were.
 */
class PayloadCodecPrepareTest {

    record Line(String sku, int quantity) {
    }

    record Order(String id, long cents, List<Line> lines, Instant placedAt) {
    }

    /** Refuses the value {@code {}} binds to: its constructor throws. */
    record Strict(String id) {
        Strict {
            Objects.requireNonNull(id, "id");
        }
    }

    interface NoImplementation {
    }

    static final class NoConstructor {
        private final String id;

        private NoConstructor(String id, int unused) {
            this.id = id;
        }
    }

    record Cycle(String name, Cycle next) {
    }

    private final JacksonPayloadCodec codec = new JacksonPayloadCodec();

    @Test
    void preparingNeverThrowsWhateverTheType() throws Exception {
        Type listOfOrders = PayloadCodecPrepareTest.class.getDeclaredField("orders").getGenericType();
        for (Type type : List.of(Order.class, Strict.class, NoImplementation.class, NoConstructor.class, Cycle.class,
                String.class, int.class, Map.class, listOfOrders)) {
            assertThatNoException().as(type.getTypeName()).isThrownBy(() -> codec.prepare(type));
        }
    }

    @SuppressWarnings("unused")
    private List<Order> orders;

    @Test
    void encodingAndDecodingAreAsBeforeOnceTheTypeIsPrepared() {
        codec.prepare(Order.class);
        Order order = new Order("o-1", 1250, List.of(new Line("sku-1", 2)), Instant.parse("2026-11-26T12:00:00Z"));
        String json = codec.encode(order);
        assertThat(json).isEqualTo("{\"id\":\"o-1\",\"cents\":1250,\"lines\":[{\"sku\":\"sku-1\",\"quantity\":2}],"
                + "\"placedAt\":\"2026-11-26T12:00:00Z\"}");
        assertThat(codec.decode(json, Order.class)).isEqualTo(order);
        // a missing primitive still fails decoding: preparing relaxed nothing for real messages
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> codec.decode("{\"id\":\"o-2\"}", Order.class)))
                .isNotNull();
    }

    @Test
    void aCodecWithoutPrepareAcceptsTheCallAndDoesNothing() {
        PayloadCodec plain = new PayloadCodec() {
            @Override
            public String encode(Object payload) {
                return "{}";
            }

            @Override
            public Object decode(String json, Type type) {
                return null;
            }
        };
        assertThatNoException().isThrownBy(() -> plain.prepare(Order.class));
    }
}
