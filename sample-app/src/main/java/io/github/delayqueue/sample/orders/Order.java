package io.github.delayqueue.sample.orders;

import java.time.Instant;
import java.util.UUID;

import org.springframework.data.annotation.Id;
import org.springframework.data.relational.core.mapping.Table;

/**
 * An order row. Immutable: state changes are conditional SQL updates in {@link OrderRepository}. The
 * random {@code reference} names the order in messages: unlike the numeric id it is never reused, not
 * even when the in-memory database starts afresh while an external Redis still holds older messages.
 */
@Table("ORDERS")
public record Order(@Id Long id, String reference, String customer, long amountCents, OrderStatus status, Instant createdAt,
        Instant paymentDueAt, Instant closedAt) {

    static Order create(String customer, long amountCents, Instant now, Instant paymentDueAt) {
        return new Order(null, UUID.randomUUID().toString(), customer, amountCents, OrderStatus.PENDING_PAYMENT, now, paymentDueAt, null);
    }
}
