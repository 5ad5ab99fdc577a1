package io.github.delayqueue.sample.meetings;

import java.time.Clock;
import java.time.Instant;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.server.ResponseStatusException;

import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.sample.SampleProperties;
import io.github.delayqueue.sample.SampleQueues;
import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayQueueTemplate;

/**
 * Schedules meeting reminders and sends them: the reminder handler is an annotated method, taking
 * the payload and, optionally, the message context.
 */
@Service
public class MeetingService {

    private static final Logger log = LoggerFactory.getLogger(MeetingService.class);

    /** The priority of the reminder of a meeting starting sooner than the lead time (the others have the default, 4). */
    public static final int SHORT_NOTICE_PRIORITY = 9;

    private final MeetingRepository meetings;
    private final DelayQueueTemplate delayQueue;
    private final SampleProperties properties;
    private final Clock clock = Clock.systemUTC();

    MeetingService(MeetingRepository meetings, DelayQueueTemplate delayQueue, SampleProperties properties) {
        this.meetings = meetings;
        this.delayQueue = delayQueue;
        this.properties = properties;
    }

    /**
     * Saves the meeting and schedules its reminder at {@code startsAt} minus the lead time, after the
     * transaction commits. A meeting starting sooner than the lead time is reminded at once (a due
     * instant in the past is delivered immediately), ahead of the other reminders due then: its reminder has
     * {@link #SHORT_NOTICE_PRIORITY}. The reminder expires at the meeting's start.
     */
    @Transactional
    public Meeting create(String title, Instant startsAt, List<String> attendees) {
        if (title == null || title.isBlank() || startsAt == null || attendees == null || attendees.isEmpty()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "title, startsAt and attendees are required");
        }
        if (startsAt.isBefore(this.clock.instant())) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "startsAt is in the past");
        }
        Instant remindAt = startsAt.minus(this.properties.reminderLead());
        Meeting meeting = this.meetings.save(Meeting.create(title, startsAt, String.join(",", attendees), remindAt));
        // a reminder is worthless once the meeting has started: not delivered by then (consumers down, retries), it
        // goes to the dead letters with the cause EXPIRED instead of reaching attendees late
        SendOptions options = SendOptions.none().expiresAt(startsAt);
        if (remindAt.isBefore(this.clock.instant())) {
            // short notice: its attendees have less than the lead time, so its reminder goes before the others due
            // now (say, the hundred reminders of the meetings starting on the hour); docs/guides/priorities.md
            options = options.priority(SHORT_NOTICE_PRIORITY);
        }
        this.delayQueue.sendAt(SampleQueues.MEETING_REMINDER,
                new MeetingReminder(meeting.reference(), title, startsAt), remindAt, options);
        return meeting;
    }

    public Meeting get(long id) {
        return this.meetings.findById(id)
                .orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "No meeting " + id));
    }

    /** Sends the reminder once, even if the message is delivered twice. */
    @DelayHandler("MEETING_REMINDER")
    @Transactional
    public void remind(MeetingReminder reminder, MessageContext context) {
        Meeting meeting = this.meetings.findByReference(reminder.meetingReference()).orElse(null);
        if (meeting == null) {
            log.warn("Reminder for unknown meeting {} dropped", reminder.meetingReference());
            return;
        }
        if (this.meetings.markReminded(meeting.id(), this.clock.instant()) == 1) {
            // A real service would send e-mails here; the sample logs the notification.
            log.info("Reminder (attempt {}, due {}): '{}' starts at {}; notifying {}", context.attempt(),
                    context.dueAt(), reminder.title(), reminder.startsAt(), meeting.attendees());
        }
    }
}
