package io.github.delayqueue.sample.orders;

import java.time.Instant;
import java.util.Optional;

import org.springframework.data.jdbc.repository.query.Modifying;
import org.springframework.data.jdbc.repository.query.Query;
import org.springframework.data.repository.ListCrudRepository;

/**
 * Orders in the database. Status changes are compare-and-set updates, so a payment and a payment
 * timeout racing each other cannot both win, and a redelivered timeout changes nothing.
 */
public interface OrderRepository extends ListCrudRepository<Order, Long> {

    /** PENDING_PAYMENT to {@code to}; returns 1 if this call made the change, 0 otherwise. */
    @Modifying
    @Query("UPDATE orders SET status = :to, closed_at = :at WHERE id = :id AND status = 'PENDING_PAYMENT'")
    int closePending(long id, OrderStatus to, Instant at);

    Optional<Order> findByReference(String reference);
}
