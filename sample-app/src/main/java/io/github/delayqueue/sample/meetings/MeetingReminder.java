package io.github.delayqueue.sample.meetings;

import java.time.Instant;

/** Payload of {@code MEETING_REMINDER}. */
public record MeetingReminder(String meetingReference, String title, Instant startsAt) {
}
