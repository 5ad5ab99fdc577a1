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
}
