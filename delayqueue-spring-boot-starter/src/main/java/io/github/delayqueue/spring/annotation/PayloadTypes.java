package io.github.delayqueue.spring.annotation;

import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.util.Arrays;
import java.util.Objects;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.springframework.core.ResolvableType;

/**
 * Turns a handler's declared payload type, resolved in the context of the handler class, into a
 * plain {@link Type} for the codec, with every type variable substituted (so a handler inheriting
 * {@code DelayMessageHandler<T>} or {@code ContextAwareDelayMessageHandler<T>} from a generic base class
 * binds to the concrete {@code T}).
 */
final class PayloadTypes {

    private PayloadTypes() {
    }

    /**
     * @throws IllegalArgumentException if a part of the type cannot be resolved (a raw
     *                                  handler interface, or a type variable the class
     *                                  does not bind)
     */
    static Type toType(ResolvableType type) {
        Class<?> raw = type.resolve();
        if (type.getType() instanceof TypeVariable<?> variable && (raw == null || !boundByContext(type, variable))) {
            throw new IllegalArgumentException("the type variable " + variable.getName() + " of "
                    + variable.getGenericDeclaration() + " is not bound to a concrete type");
        }
        if (type == ResolvableType.NONE || raw == null) {
            throw new IllegalArgumentException("the payload type " + type + " cannot be resolved");
        }
        if (type.isArray()) {
            Type component = toType(type.getComponentType());
            return component instanceof Class<?> ? raw : new GenericArray(component);
        }
        if (!type.hasGenerics()) {
            return raw;
        }
        Type[] arguments = Arrays.stream(type.getGenerics()).map(PayloadTypes::toType).toArray(Type[]::new);
        return new Parameterized(raw, arguments, raw.getDeclaringClass());
    }

    /** Whether the variable resolves to something else than its own bound (the fallback when nothing binds it). */
    private static boolean boundByContext(ResolvableType type, TypeVariable<?> variable) {
        return type.resolve() != ResolvableType.forType(variable).resolve() || type.hasGenerics();
    }

    private record Parameterized(Class<?> rawType, Type[] actualTypeArguments, @Nullable Type ownerType)
            implements ParameterizedType {

        @Override
        public Type[] getActualTypeArguments() {
            return this.actualTypeArguments.clone();
        }

        @Override
        public Type getRawType() {
            return this.rawType;
        }

        @Override
        public @Nullable Type getOwnerType() {
            return this.ownerType;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof ParameterizedType that && this.rawType.equals(that.getRawType())
                    && Objects.equals(this.ownerType, that.getOwnerType())
                    && Arrays.equals(this.actualTypeArguments, that.getActualTypeArguments());
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(this.actualTypeArguments) ^ Objects.hashCode(this.ownerType) ^ this.rawType.hashCode();
        }

        @Override
        public String toString() {
            return getTypeName();
        }

        @Override
        public String getTypeName() {
            return this.rawType.getTypeName() + Arrays.stream(this.actualTypeArguments).map(Type::getTypeName)
                    .collect(Collectors.joining(", ", "<", ">"));
        }
    }

    private record GenericArray(Type genericComponentType) implements GenericArrayType {

        @Override
        public Type getGenericComponentType() {
            return this.genericComponentType;
        }

        @Override
        public String getTypeName() {
            return this.genericComponentType.getTypeName() + "[]";
        }
    }
}
