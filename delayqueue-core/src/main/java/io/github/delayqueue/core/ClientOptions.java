package io.github.delayqueue.core;

import java.time.Clock;

import org.jspecify.annotations.Nullable;

/**
 * Settings shared by every queue of one {@link DelayQueueClient}. Immutable; build with
 * {@link #builder()}.
 *
 * <ul>
 *   <li>{@code keyPrefix}: first part of every Redis key (default {@code dq}); keys look like
 *       {@code dq:{orders}:delayed}.</li>
 *   <li>{@code maxPayloadBytes}: largest payload accepted, in UTF-8 bytes of its JSON (default 1 MiB).</li>
 *   <li>{@code maxBatchSize}: most messages accepted by one {@code sendAll} call (default 10,000).</li>
 *   <li>{@code codec}: payload JSON codec (default {@link JacksonPayloadCodec} on Jackson's defaults).</li>
 *   <li>{@code clock}: the JVM clock, read only to reject a {@code sendAt} instant absurdly far in the
 *       future (default {@link Clock#systemUTC()}). Due times and leases never use it: they come from
 *       the Redis server's clock. Settable so tests can prove that a skewed JVM clock changes nothing.</li>
 *   <li>{@code listener}: hears sends, claims, handler runs and settles of this client and its consumers, for
 *       metrics and tracing (default {@link DelayQueueListener#NONE}).</li>
 * </ul>
 */
public final class ClientOptions {

    /** Longest message id accepted, in characters. */
    public static final int MAX_ID_LENGTH = 256;

    private final String keyPrefix;
    private final int maxPayloadBytes;
    private final int maxBatchSize;
    private final PayloadCodec codec;
    private final Clock clock;
    private final DelayQueueListener listener;

    private ClientOptions(Builder b) {
        Checks.require(b.keyPrefix != null && !b.keyPrefix.isBlank(), "keyPrefix must not be blank");
        Checks.require(b.keyPrefix.indexOf('{') < 0 && b.keyPrefix.indexOf('}') < 0,
                "keyPrefix must not contain '{' or '}' (they would change the Redis Cluster hash tag): " + b.keyPrefix);
        Checks.require(b.maxPayloadBytes >= 1 && b.maxPayloadBytes <= 512 * 1024 * 1024,
                "maxPayloadBytes must be between 1 and 512 MiB, was " + b.maxPayloadBytes);
        Checks.require(b.maxBatchSize >= 1 && b.maxBatchSize <= 1_000_000,
                "maxBatchSize must be between 1 and 1000000, was " + b.maxBatchSize);
        this.keyPrefix = b.keyPrefix;
        this.maxPayloadBytes = b.maxPayloadBytes;
        this.maxBatchSize = b.maxBatchSize;
        this.codec = Checks.notNull(b.codec, "codec");
        this.clock = Checks.notNull(b.clock, "clock");
        this.listener = Checks.notNull(b.listener, "listener");
    }

    public static Builder builder() {
        return new Builder();
    }

    public String keyPrefix() {
        return keyPrefix;
    }

    public int maxPayloadBytes() {
        return maxPayloadBytes;
    }

    public int maxBatchSize() {
        return maxBatchSize;
    }

    public PayloadCodec codec() {
        return codec;
    }

    public Clock clock() {
        return clock;
    }

    public DelayQueueListener listener() {
        return listener;
    }

    /** Builder for {@link ClientOptions}; {@link #build()} checks the values. */
    public static final class Builder {
        private String keyPrefix = "dq";
        private int maxPayloadBytes = 1024 * 1024;
        private int maxBatchSize = 10_000;
        private @Nullable PayloadCodec codec;
        private Clock clock = Clock.systemUTC();
        private DelayQueueListener listener = DelayQueueListener.NONE;

        private Builder() {
        }

        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            return this;
        }

        public Builder maxPayloadBytes(int maxPayloadBytes) {
            this.maxPayloadBytes = maxPayloadBytes;
            return this;
        }

        public Builder maxBatchSize(int maxBatchSize) {
            this.maxBatchSize = maxBatchSize;
            return this;
        }

        public Builder codec(PayloadCodec codec) {
            this.codec = codec;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** What hears this client's and its consumers' events; {@link DelayQueueListener#NONE} for none. */
        public Builder listener(DelayQueueListener listener) {
            this.listener = listener;
            return this;
        }

        public ClientOptions build() {
            if (codec == null) {
                codec = new JacksonPayloadCodec();
            }
            return new ClientOptions(this);
        }
    }
}
