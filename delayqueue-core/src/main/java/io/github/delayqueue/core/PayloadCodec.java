package io.github.delayqueue.core;

import java.lang.reflect.Type;

/**
 * Turns payloads into JSON text and back. Decoding binds to the type the handler declares; an
 * implementation must never let the message choose the class to instantiate.
 */
public interface PayloadCodec {

    /**
     * @throws IllegalArgumentException if the payload cannot be serialized
     */
    String encode(Object payload);

    /**
     * @throws RuntimeException (any) if the JSON does not bind to {@code type}; the message is then
     *                          dead-lettered without retry
     */
    Object decode(String json, Type type);

    /**
     * Checks, once when a consumer is created, that payloads of {@code type} can be built at all (a class
     * without a usable constructor would send every message to the dead letters at once).
     *
     * @throws IllegalArgumentException naming the type and why it cannot be built
     */
    default void checkDecodable(Type type) {
    }

    /**
     * Prepares, ahead of the first message, what encoding and decoding payloads of {@code type} needs, so that the
     * first send and delivery of the type cost what later ones do. The Spring Boot starter calls it at startup for
     * the payload type of every handler. Must never throw; the default does nothing.
     */
    default void prepare(Type type) {
    }
}
