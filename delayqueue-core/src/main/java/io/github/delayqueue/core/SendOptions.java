package io.github.delayqueue.core;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Optional settings of one send: a caller-chosen message id (such as {@code order:42}), what to do
 * when a message with that id already exists, and string headers delivered with the message.
 * Immutable; every {@code with…} method returns a copy.
 *
 * <pre>{@code
 * SendOptions.id("order:42").replaceExisting().header("tenant", "acme")
 * }</pre>
 */
public final class SendOptions {

    private static final SendOptions NONE = new SendOptions(null, SendMode.IF_ABSENT, Map.of());

    private final @Nullable String id;
    private final SendMode mode;
    private final Map<String, String> headers;

    private SendOptions(@Nullable String id, SendMode mode, Map<String, String> headers) {
        this.id = id;
        this.mode = mode;
        this.headers = headers;
    }

    /** No id (one is generated), no headers. */
    public static SendOptions none() {
        return NONE;
    }

    /**
     * Sends under the given id. By default ({@link SendMode#IF_ABSENT}) a second send with an id
     * that is still live is a no-op; use {@link #replaceExisting()} to replace it instead.
     */
    public static SendOptions id(String id) {
        return NONE.withId(id);
    }

    /** A copy with the given id ({@code null} means: generate one). */
    public SendOptions withId(@Nullable String id) {
        return new SendOptions(id, mode, headers);
    }

    /** A copy with the given mode. */
    public SendOptions withMode(SendMode mode) {
        return new SendOptions(id, Objects.requireNonNull(mode, "mode must not be null"), headers);
    }

    /** A copy that replaces a live message with the same id. */
    public SendOptions replaceExisting() {
        return withMode(SendMode.REPLACE);
    }

    /** A copy that keeps a live message with the same id (the default). */
    public SendOptions ifAbsent() {
        return withMode(SendMode.IF_ABSENT);
    }

    /** A copy with one more header. Names and values must not be {@code null}. */
    public SendOptions header(String name, String value) {
        if (name == null || value == null) {
            throw new IllegalArgumentException("header name and value must not be null");
        }
        Map<String, String> copy = new LinkedHashMap<>(headers);
        copy.put(name, value);
        return new SendOptions(id, mode, Map.copyOf(copy));
    }

    /** A copy with these headers replacing any set before. */
    public SendOptions withHeaders(Map<String, String> headers) {
        if (headers == null) {
            throw new IllegalArgumentException("headers must not be null");
        }
        headers.forEach((k, v) -> {
            if (k == null || v == null) {
                throw new IllegalArgumentException("header names and values must not be null");
            }
        });
        return new SendOptions(id, mode, Map.copyOf(headers));
    }

    /** The caller-chosen id, or {@code null} when one is generated. */
    public @Nullable String id() {
        return id;
    }

    public SendMode mode() {
        return mode;
    }

    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public String toString() {
        return "SendOptions[id=" + id + ", mode=" + mode + ", headers=" + headers + "]";
    }
}
