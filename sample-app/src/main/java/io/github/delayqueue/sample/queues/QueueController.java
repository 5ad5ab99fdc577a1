package io.github.delayqueue.sample.queues;

import java.util.List;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueCode;

/**
 * What the delay queues hold: {@code GET /queues} (stats of every queue),
 * {@code GET /queues/{code}/dead-letters}, {@code POST /queues/{code}/dead-letters/requeue}. An
 * operations view such as this belongs behind authentication in a real service.
 */
@RestController
@RequestMapping("/queues")
class QueueController {

    private final DelayQueueAdmin admin;

    QueueController(DelayQueueAdmin admin) {
        this.admin = admin;
    }

    @GetMapping
    List<QueueStats> stats() {
        return this.admin.stats();
    }

    @GetMapping("/{code}/dead-letters")
    List<DeadLetter> deadLetters(@PathVariable String code, @RequestParam(defaultValue = "100") int limit) {
        if (limit < 1 || limit > 1000) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "limit must be 1 to 1000");
        }
        return this.admin.deadLetters(queue(code), limit);
    }

    @PostMapping("/{code}/dead-letters/requeue")
    long requeueDeadLetters(@PathVariable String code) {
        return this.admin.requeueAll(queue(code));
    }

    private DelayQueueCode queue(String code) {
        return this.admin.find(code)
                .orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "No queue " + code));
    }
}
