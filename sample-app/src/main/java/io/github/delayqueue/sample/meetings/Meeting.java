package io.github.delayqueue.sample.meetings;

import java.time.Instant;
import java.util.UUID;

import org.springframework.data.annotation.Id;
import org.springframework.data.relational.core.mapping.Table;

/**
 * A meeting row. {@code attendees} is a comma-separated list; {@code remindedAt} is set when the
 * reminder went out. Like orders, meetings are named in messages by a never-reused random reference.
 */
@Table("MEETINGS")
public record Meeting(@Id Long id, String reference, String title, Instant startsAt, String attendees,
        Instant remindAt, Instant remindedAt) {

    static Meeting create(String title, Instant startsAt, String attendees, Instant remindAt) {
        return new Meeting(null, UUID.randomUUID().toString(), title, startsAt, attendees, remindAt, null);
    }
}
