package io.github.delayqueue.sample.meetings;

import java.time.Instant;
import java.util.Optional;

import org.springframework.data.jdbc.repository.query.Modifying;
import org.springframework.data.jdbc.repository.query.Query;
import org.springframework.data.repository.ListCrudRepository;

/** Meetings in the database. */
public interface MeetingRepository extends ListCrudRepository<Meeting, Long> {

    Optional<Meeting> findByReference(String reference);

    /** Records the reminder once; returns 1 if this call recorded it, 0 if it was already sent. */
    @Modifying
    @Query("UPDATE meetings SET reminded_at = :at WHERE id = :id AND reminded_at IS NULL")
    int markReminded(long id, Instant at);
}
