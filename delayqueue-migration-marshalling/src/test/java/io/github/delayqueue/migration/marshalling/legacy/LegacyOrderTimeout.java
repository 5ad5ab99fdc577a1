package io.github.delayqueue.migration.marshalling.legacy;

import java.io.Serializable;
import java.time.Instant;
import java.util.List;

/** A value of the kind the old application offered to its RDelayedQueue: serializable, with a nested list and time. */
public class LegacyOrderTimeout implements Serializable {

    private static final long serialVersionUID = 1L;

    private final long orderId;
    private final String reason;
    private final List<String> items;
    private final Instant placedAt;

    public LegacyOrderTimeout(long orderId, String reason, List<String> items, Instant placedAt) {
        this.orderId = orderId;
        this.reason = reason;
        this.items = items;
        this.placedAt = placedAt;
    }

    public long orderId() {
        return this.orderId;
    }

    public String reason() {
        return this.reason;
    }

    public List<String> items() {
        return this.items;
    }

    public Instant placedAt() {
        return this.placedAt;
    }
}
