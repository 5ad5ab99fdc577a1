package io.github.delayqueue.core.protocol;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.exc.MismatchedInputException;

/**
 * What a dead letter's reason says about text that could not be read (a payload, an envelope's headers): the
 * exception's type, the path of the field, the type expected there and the line and column, never a value.
 * Jackson's messages quote what they stumbled on (the token of malformed JSON, a string that is not a number),
 * and a reason is shown where payloads are hidden (the endpoint, the dashboard, {@code DelayQueueAdmin}).
 */
public final class Unreadable {

    /** A longer path (deep nesting, long property names) is cut here. */
    private static final int MAX_PATH = 200;

    private Unreadable() {
    }

    /** The failure without its message: a codec other than Jackson is named by its exception's type alone. */
    public static String describe(Throwable e) {
        StringBuilder out = new StringBuilder(e.getClass().getName());
        if (e instanceof JacksonException jackson) {
            String path = path(jackson);
            if (!path.isEmpty()) {
                out.append(" at ").append(path);
            }
            if (e instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
                out.append(", expected ").append(mismatch.getTargetType().getTypeName());
            }
            TokenStreamLocation where = jackson.getLocation();
            if (where != null && where.getLineNr() > 0) {
                out.append(" (line ").append(where.getLineNr()).append(", column ").append(where.getColumnNr()).append(')');
            }
        }
        return out.toString();
    }

    /** {@code items[2].amount}: property names and indexes, as Jackson recorded them on the way in. */
    static String path(JacksonException e) {
        StringBuilder out = new StringBuilder();
        for (JacksonException.Reference step : e.getPath()) {
            @Nullable String name = step.getPropertyName();
            if (name != null) {
                out.append(out.isEmpty() ? "" : ".").append(name);
            } else if (step.getIndex() >= 0) {
                out.append('[').append(step.getIndex()).append(']');
            }
        }
        return out.length() <= MAX_PATH ? out.toString() : out.substring(0, MAX_PATH) + "…";
    }
}
