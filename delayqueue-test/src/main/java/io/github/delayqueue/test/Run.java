package io.github.delayqueue.test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueuedMessage;

/**
 * Makes time pass for some live messages and waits until each is settled: a pending message due later is
 * rescheduled to now (by the Redis clock), again after each failed attempt, so its retries need not wait out
 * their back-off; the consumer of its queue then claims it and runs the real handler. A message is settled when no
 * live message has its id any more (or one sent again under its id); it is dead if a dead letter with its id
 * appeared since the run began, else handled.
 */
final class Run {

    /** At most this many dead letters of a queue can be read at once, and so looked through. */
    static final int DEAD_LIMIT = 1000;

    /** One message to run: its queue, id, and the send it was when the run began. */
    record Target(DelayQueueTester.Queue queue, String id, @Nullable Instant enqueuedAt) {

        String describe() {
            return this.queue.name() + " '" + this.id + "'";
        }
    }

    /** What became of the targets. */
    record Result(List<Target> handled, Map<Target, DeadLetter> dead, Map<Target, QueuedMessage> live,
            Duration timeout) {

        List<String> handledIds() {
            return this.handled.stream().map(Target::id).toList();
        }

        /** Fails unless every target was handled, listing what is dead and what is still live. */
        void requireAllHandled(String what) {
            if (this.dead.isEmpty() && this.live.isEmpty()) {
                return;
            }
            StringBuilder text = new StringBuilder(what).append(": ");
            if (this.live.isEmpty()) {
                text.append(this.dead.size()).append(" message(s) ended in the dead letters");
            } else {
                text.append("timed out after ").append(this.timeout).append(" with ").append(this.live.size())
                        .append(" message(s) not handled yet");
            }
            text.append(" (").append(this.handled.size()).append(" handled).");
            describe(text);
            throw new AssertionError(text.toString());
        }

        void describe(StringBuilder text) {
            if (!this.live.isEmpty()) {
                text.append("\nStill live:");
                this.live.forEach((target, message) -> text.append("\n  - ").append(target.describe()).append(": ")
                        .append(DelayQueueTester.describe(message)));
            }
            if (!this.dead.isEmpty()) {
                text.append("\nDead:");
                this.dead.forEach((target, letter) -> text.append("\n  - ").append(target.describe()).append(": ")
                        .append(letter.reason()).append(" (after ").append(letter.attempts()).append(" attempt(s))"));
            }
        }
    }

    private final Duration poll;
    private final Map<Target, QueuedMessage> live = new LinkedHashMap<>();
    private final Map<String, Set<String>> deadBefore = new HashMap<>();

    Run(List<Target> targets, Duration poll) {
        this.poll = poll;
        Set<DelayQueueTester.Queue> queues = new LinkedHashSet<>();
        for (Target target : targets) {
            queues.add(target.queue());
        }
        for (DelayQueueTester.Queue queue : queues) {
            this.deadBefore.put(queue.name(), deadKeys(queue));
        }
        for (Target target : targets) {
            this.live.put(target, placeholder(target));
        }
    }

    /** Runs the targets until each is settled or the timeout passes. */
    Result await(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Target> handled = new ArrayList<>();
        Map<Target, DeadLetter> dead = new LinkedHashMap<>();
        while (true) {
            Map<String, Instant> now = new HashMap<>();
            Map<String, List<DeadLetter>> deadLetters = new HashMap<>();
            for (Target target : List.copyOf(this.live.keySet())) {
                DelayQueueTester.Queue queue = target.queue();
                Optional<QueuedMessage> message = queue.client().message(queue.name(), target.id())
                        .filter(m -> Objects.equals(m.enqueuedAt(), target.enqueuedAt()));
                if (message.isEmpty()) {
                    this.live.remove(target);
                    List<DeadLetter> letters = deadLetters.computeIfAbsent(queue.name(), name -> readDead(queue));
                    Optional<DeadLetter> died = newDeadLetter(target, letters);
                    if (died.isPresent()) {
                        dead.put(target, died.get());
                    } else {
                        handled.add(target);
                    }
                    continue;
                }
                QueuedMessage current = message.get();
                this.live.put(target, current);
                Instant serverTime = now.computeIfAbsent(queue.name(), name -> queue.client().stats(name).serverTime());
                if (current.state() == QueuedMessage.State.PENDING && current.dueAt() != null
                        && current.dueAt().isAfter(serverTime)) {
                    queue.client().reschedule(queue.name(), target.id(), Duration.ZERO);
                }
            }
            if (this.live.isEmpty() || System.nanoTime() - deadline > 0) {
                return new Result(handled, dead, Map.copyOf(this.live), timeout);
            }
            DelayQueueTester.pause(this.poll);
        }
    }

    private Optional<DeadLetter> newDeadLetter(Target target, List<DeadLetter> letters) {
        Set<String> before = this.deadBefore.get(target.queue().name());
        Optional<DeadLetter> died = letters.stream().filter(letter -> letter.id().equals(target.id()))
                .filter(letter -> !before.contains(letter.key())).reduce((first, second) -> second);
        if (died.isEmpty() && letters.size() >= DEAD_LIMIT) {
            throw new IllegalStateException("Queue " + target.queue().name() + " holds " + DEAD_LIMIT
                    + " dead letters or more, so whether " + target.describe() + " died cannot be told: purge them "
                    + "(DelayQueueTester.reset() or DelayQueueAdmin.purgeAll) before running messages");
        }
        return died;
    }

    private static Set<String> deadKeys(DelayQueueTester.Queue queue) {
        QueueStats stats = queue.client().stats(queue.name());
        if (stats.dead() >= DEAD_LIMIT) {
            throw new IllegalStateException("Queue " + queue.name() + " holds " + stats.dead() + " dead letters; "
                    + "DelayQueueTester tells whether a message died only while a queue holds fewer than " + DEAD_LIMIT
                    + ": purge them (DelayQueueTester.reset() or DelayQueueAdmin.purgeAll) first");
        }
        Set<String> keys = new HashSet<>();
        readDead(queue).forEach(letter -> keys.add(letter.key()));
        return keys;
    }

    private static List<DeadLetter> readDead(DelayQueueTester.Queue queue) {
        return queue.client().deadLetters(queue.name(), DEAD_LIMIT);
    }

    /** What the failure message shows for a target that is never read (a timeout of zero). */
    private static QueuedMessage placeholder(Target target) {
        return new QueuedMessage(target.id(), QueuedMessage.State.PENDING, null, null, 0, null, target.enqueuedAt(),
                Map.of(), "");
    }
}
