package io.github.delayqueue.core;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Whether a payload class holds state a codec should have written: a send whose JSON is {@code {}} for such
 * an object lost its data (a class with fields and no getters, which Jackson serializes as an empty object).
 */
final class PayloadShape {

    /** Per class, without holding the class (a ClassValue does not pin a redeployed application's loader). */
    private static final ClassValue<String> FIELDS = new ClassValue<>() {
        @Override
        protected String computeValue(Class<?> type) {
            return find(type);
        }
    };

    private PayloadShape() {
    }

    /**
     * The instance fields (not static, transient or synthetic) of {@code type} and its superclasses, joined
     * with ", "; empty for maps, collections and JDK classes, whose {@code {}} is a real value.
     */
    static String stateFields(Class<?> type) {
        return FIELDS.get(type);
    }

    private static String find(Class<?> type) {
        if (Map.class.isAssignableFrom(type) || Collection.class.isAssignableFrom(type) || jdk(type)) {
            return "";
        }
        List<String> names = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class && !jdk(c); c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                int modifiers = field.getModifiers();
                if (!Modifier.isStatic(modifiers) && !Modifier.isTransient(modifiers) && !field.isSynthetic()) {
                    names.add(field.getName());
                }
            }
        }
        return String.join(", ", names);
    }

    private static boolean jdk(Class<?> type) {
        String name = type.getName();
        return name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.");
    }
}
