package io.github.delayqueue.core;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.exc.InvalidDefinitionException;
import tools.jackson.databind.json.JsonMapper;

import io.github.delayqueue.core.internal.Checks;

/**
 * {@link PayloadCodec} on a Jackson 3 {@link JsonMapper}. Binds only to the declared type, with default
 * typing off even when the application's mapper has it on, so a message cannot name a class to build.
 * ({@code @JsonTypeInfo} on your own payload types still applies: that is a choice per type, bounded
 * by the subtypes you declare.)
 */
public final class JacksonPayloadCodec implements PayloadCodec {

    private static final int MAX_READERS = 1_000;

    private final JsonMapper mapper;
    /** One reader per handler payload type: it keeps the type resolved and its root deserializer found. */
    private final Map<Type, ObjectReader> readers = new ConcurrentHashMap<>();

    /** A codec on Jackson's defaults (records, {@code java.time} types, unknown properties ignored). */
    public JacksonPayloadCodec() {
        this.mapper = JsonMapper.builder() // default typing is off unless enabled: no copy needed here
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .build();
    }

    /**
     * A codec on a copy of the application's mapper (for example Spring Boot's): its modules and
     * features, without default typing.
     */
    public JacksonPayloadCodec(JsonMapper mapper) {
        this.mapper = Checks.notNull(mapper, "mapper").rebuild().deactivateDefaultTyping().build();
    }

    @Override
    public String encode(Object payload) {
        try {
            return mapper.writeValueAsString(payload);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("payload of type " + payload.getClass().getName()
                    + " cannot be serialized to JSON: " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public Object decode(String json, Type type) {
        return reader(type).readValue(json);
    }

    private ObjectReader reader(Type type) {
        ObjectReader reader = readers.get(type);
        if (reader == null) {
            reader = mapper.readerFor(mapper.getTypeFactory().constructType(type));
            if (readers.size() < MAX_READERS) { // a caller making a new Type object per call must not grow it forever
                readers.putIfAbsent(type, reader);
            }
        }
        return reader;
    }

    /**
     * Has Jackson build and cache the type's serializer and deserializer (on a cold JVM a record's first
     * {@code writeValueAsString} took 270 to 440 ms, 30 to 80 ms after this), then writes a value of the type bound
     * from {@code {}} (absent primitives as 0), which takes the write path once; the same for the types of a
     * record's components and of type arguments ({@code List<Line>}: {@code Line}), whose values that sample
     * leaves out. Ignores any failure.
     */
    @Override
    public void prepare(Type type) {
        prepare(type, new HashSet<>(), 0);
    }

    /** Prepares {@code type}, then the types of its record components and type arguments, 4 levels deep. */
    private void prepare(Type type, Set<Type> seen, int depth) {
        if (depth > 4 || !seen.add(type)) {
            return;
        }
        prepareOne(type);
        if (type instanceof ParameterizedType parameterized) {
            for (Type argument : parameterized.getActualTypeArguments()) {
                prepare(argument, seen, depth + 1);
            }
        } else if (type instanceof Class<?> c && c.isRecord()) {
            for (RecordComponent component : c.getRecordComponents()) {
                prepare(component.getGenericType(), seen, depth + 1);
            }
        }
    }

    private void prepareOne(Type type) {
        try {
            mapper.writerFor(mapper.getTypeFactory().constructType(type));
            Object sample = reader(type).without(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES).readValue("{}");
            if (sample != null) {
                mapper.writeValueAsString(sample);
            }
        } catch (RuntimeException e) {
            // {} is not a value of this type, or its constructor refuses one: the serializers are found all the same
        }
    }

    /**
     * Binds an empty object to the type: a missing or unusable constructor (no default constructor and no
     * {@code @JsonCreator}, or parameter names unknown because the class was compiled without
     * {@code -parameters}) or an abstract type without subtypes fails as a definition error, while a mere
     * mismatch of {@code {}} with the type (a string, a list, a missing type id) says nothing and passes.
     */
    @Override
    public void checkDecodable(Type type) {
        try {
            decode("{}", type);
        } catch (InvalidDefinitionException e) {
            throw new IllegalArgumentException("payloads of type " + type.getTypeName() + " cannot be built from JSON: "
                    + e.getOriginalMessage(), e);
        } catch (JacksonException e) {
            // {} is simply not a value of this type: its messages still decode
        }
    }

    /** For tests: how many per-type readers are cached. */
    int cachedReaders() {
        return readers.size();
    }
}
