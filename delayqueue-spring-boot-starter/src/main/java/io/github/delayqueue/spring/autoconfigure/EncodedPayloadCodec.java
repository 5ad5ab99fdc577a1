package io.github.delayqueue.spring.autoconfigure;

import java.lang.reflect.Type;

import io.github.delayqueue.core.PayloadCodec;

/**
 * The codec of the starter's clients: the application's codec, except that a payload the template
 * already serialized (a send deferred to after commit) passes through as it is. Decoding is
 * untouched, so what a handler receives is always bound by the application's codec.
 */
final class EncodedPayloadCodec implements PayloadCodec {

    /** JSON produced by {@link #delegate()} at the time of the send. */
    record Encoded(String json) {
    }

    private final PayloadCodec delegate;

    EncodedPayloadCodec(PayloadCodec delegate) {
        this.delegate = delegate;
    }

    PayloadCodec delegate() {
        return this.delegate;
    }

    @Override
    public String encode(Object payload) {
        return payload instanceof Encoded encoded ? encoded.json() : this.delegate.encode(payload);
    }

    @Override
    public Object decode(String json, Type type) {
        return this.delegate.decode(json, type);
    }
}
