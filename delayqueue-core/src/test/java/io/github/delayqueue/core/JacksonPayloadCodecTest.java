package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.DefaultTyping;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsontype.BasicPolymorphicTypeValidator;

/** The default codec, with no Redis: binding to the declared type, and its per-type reader cache. */
class JacksonPayloadCodecTest {

    record Order(String id, long cents, Instant placedAt) {
    }

    private final JacksonPayloadCodec codec = new JacksonPayloadCodec();

    @Test
    void anApplicationMapperWithDefaultTypingStillLetsNoMessageNameAClass() {
        JsonMapper typing = JsonMapper.builder()
                .activateDefaultTyping(BasicPolymorphicTypeValidator.builder().allowIfSubType(Object.class).build(),
                        DefaultTyping.NON_FINAL)
                .build();
        String named = "[\"java.util.concurrent.atomic.AtomicLong\", 5]";
        assertThat(typing.readValue(named, Object.class)).as("the mapper itself builds the named class")
                .isInstanceOf(java.util.concurrent.atomic.AtomicLong.class);

        JacksonPayloadCodec onTyping = new JacksonPayloadCodec(typing);
        assertThat(onTyping.decode(named, Object.class)).isEqualTo(List.of("java.util.concurrent.atomic.AtomicLong", 5));
        assertThat(onTyping.encode(new Order("o:3", 1, null))).doesNotContain("JacksonPayloadCodecTest");
    }

    @Test
    void roundTripsRecordsAndGenericTypesAndIgnoresUnknownProperties() {
        Order order = new Order("o:1", 1299, Instant.parse("2026-11-23T10:15:30Z"));
        assertThat(codec.decode(codec.encode(order), Order.class)).isEqualTo(order);
        assertThat(codec.decode("{\"id\":\"o:2\",\"cents\":5,\"placedAt\":null,\"extra\":[1]}", Order.class))
                .isEqualTo(new Order("o:2", 5, null));

        Type listOfOrders = new TypeReference<List<Order>>() {
        }.getType();
        assertThat(codec.decode(codec.encode(List.of(order, order)), listOfOrders)).isEqualTo(List.of(order, order));
        assertThat(codec.decode("{\"a\":1}", new TypeReference<Map<String, Integer>>() {
        }.getType())).isEqualTo(Map.of("a", 1));
        assertThat(codec.decode("\"grüße\"", String.class)).isEqualTo("grüße");
        assertThat(codec.decode("null", Order.class)).isNull();
    }

    @Test
    void badJsonAndWrongShapeThrowForEveryCallNotOnlyTheFirst() {
        for (int i = 0; i < 3; i++) { // the second and third calls use the cached reader
            assertThatThrownBy(() -> codec.decode("{\"id\":", Order.class)).isInstanceOf(JacksonException.class);
            assertThatThrownBy(() -> codec.decode("[1,2]", Order.class)).isInstanceOf(JacksonException.class);
        }
        assertThat(((Order) codec.decode("{\"id\":\"ok\",\"cents\":1}", Order.class)).id()).isEqualTo("ok");
    }

    @Test
    void manyDistinctTypeObjectsStillDecode() {
        // a caller that builds a new, unequal Type object per call: the reader cache stops growing at its
        // bound and decoding goes on working
        for (int i = 0; i < 1_500; i++) {
            ParameterizedType listOfIntegers = new ParameterizedType() { // identity equals: a new key each time
                @Override
                public Type[] getActualTypeArguments() {
                    return new Type[] {Integer.class};
                }

                @Override
                public Type getRawType() {
                    return List.class;
                }

                @Override
                public Type getOwnerType() {
                    return null;
                }
            };
            assertThat(codec.decode("[" + i + "]", listOfIntegers)).isEqualTo(List.of(i));
        }
        assertThat(codec.cachedReaders()).isEqualTo(1_000);
        codec.decode("1", Integer.class);
        assertThat(codec.cachedReaders()).as("full: a new type is decoded but not kept").isEqualTo(1_000);
    }

    @Test
    void encodingAnUnserializablePayloadNamesItsType() {
        Object self = new Object() {
            @SuppressWarnings("unused")
            public Object getSelf() {
                return this;
            }
        };
        assertThatThrownBy(() -> codec.encode(self)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot be serialized to JSON");
    }

    /** No creator Jackson can use: its only constructor is private. */
    static final class NoUsableConstructor {
        private final String orderId;

        private NoUsableConstructor(String orderId) {
            this.orderId = orderId;
        }

        public String getOrderId() {
            return orderId;
        }
    }

    interface NoSubtypes {
    }

    record Fine(String orderId, long cents) {
    }

    @org.junit.jupiter.api.Test
    void aTypeThatCannotBeBuiltIsReportedWhenTheConsumerIsCreated() {
        JacksonPayloadCodec codec = new JacksonPayloadCodec();
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> codec.checkDecodable(NoUsableConstructor.class))
                .withMessageContaining(NoUsableConstructor.class.getName()).withMessageContaining("cannot be built");
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> codec.checkDecodable(NoSubtypes.class)).withMessageContaining("cannot be built");
        // types whose messages decode, though {} is no value of them
        codec.checkDecodable(Fine.class);
        codec.checkDecodable(String.class);
        codec.checkDecodable(java.util.List.class);
        codec.checkDecodable(Long.class);
    }
}
