package io.github.delayqueue.sample.meetings;

import java.time.Instant;
import java.util.List;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /meetings}, {@code GET /meetings/{id}}. */
@RestController
@RequestMapping("/meetings")
class MeetingController {

    private final MeetingService meetings;

    MeetingController(MeetingService meetings) {
        this.meetings = meetings;
    }

    record CreateMeeting(String title, Instant startsAt, List<String> attendees) {
    }

    @PostMapping
    @ResponseStatus(HttpStatus.CREATED)
    Meeting create(@RequestBody CreateMeeting request) {
        return this.meetings.create(request.title(), request.startsAt(), request.attendees());
    }

    @GetMapping("/{id}")
    Meeting get(@PathVariable long id) {
        return this.meetings.get(id);
    }
}
