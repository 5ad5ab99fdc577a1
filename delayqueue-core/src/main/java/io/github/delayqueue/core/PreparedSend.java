package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.internal.Checks;
import io.github.delayqueue.core.protocol.Due;

/**
 * Messages for one queue that {@link DelayQueueClient#prepare} checked and encoded, ready to be written
 * later by {@link DelayQueueClient#send(PreparedSend)} of the same client: each has its id (given or
 * generated) and its payload's JSON as of the prepare. Immutable; a delay still counts from the write.
 *
 * <p>{@link #messages()} gives the messages in a form that can be stored outside the JVM (a transactional
 * outbox keeps them in a database table) and turned back into a {@code PreparedSend} by
 * {@link DelayQueueClient#restore}.
 */
public final class PreparedSend {

    /**
     * One prepared message in a storable form: its id, its {@link SendMode}, when it is due (after
     * {@code delay}, counted from the write to Redis, or at {@code dueAt}: exactly one is set) and its
     * {@code body}, the engine's encoding of the headers and the payload's JSON. The body is opaque:
     * store it as it is and hand it back to {@link DelayQueueClient#restore}; nothing in it names a class.
     */
    public record Message(String id, SendMode mode, @Nullable Duration delay, @Nullable Instant dueAt, String body) {

        /**
         * @throws IllegalArgumentException if id, mode or body is {@code null}, or not exactly one of delay
         *         and dueAt is set
         */
        public Message {
            Checks.require(id != null, "id must not be null");
            Checks.require(mode != null, "mode must not be null");
            Checks.require(body != null, "body must not be null");
            Checks.require((delay == null) != (dueAt == null), "exactly one of delay and dueAt must be set");
        }

        /** A copy due {@code delay} after its write instead (for a message whose delay partly ran elsewhere). */
        public Message withDelay(Duration delay) {
            return new Message(id, mode, Checks.notNull(delay, "delay"), null, body);
        }

        Due due() {
            return delay != null ? Due.after(delay) : Due.at(dueAt);
        }
    }

    /** Consecutive messages of one send mode: id, due spec, body per message, and their bytes. */
    record Run(SendMode mode, List<String> triples, List<Integer> bytes) {
    }

    final DelayQueueClient client;
    private final String queue;
    private final List<String> ids;
    private final List<Message> messages;
    final List<Run> runs;

    /** {@code bytes}: per message, what it costs a script call (stored bytes and id; the due spec is added here). */
    PreparedSend(DelayQueueClient client, String queue, List<Message> messages, List<Integer> bytes) {
        this.client = client;
        this.queue = queue;
        this.messages = List.copyOf(messages);
        this.ids = messages.stream().map(Message::id).toList();
        List<Run> runs = new ArrayList<>(1);
        for (int i = 0; i < messages.size(); i++) {
            Message m = messages.get(i);
            Run run = runs.isEmpty() ? null : runs.get(runs.size() - 1);
            if (run == null || run.mode() != m.mode()) {
                run = new Run(m.mode(), new ArrayList<>(), new ArrayList<>());
                runs.add(run);
            }
            String spec = m.due().scriptArg();
            run.triples().add(m.id());
            run.triples().add(spec);
            run.triples().add(m.body());
            run.bytes().add(bytes.get(i) + spec.length());
        }
        this.runs = List.copyOf(runs);
    }

    public String queue() {
        return queue;
    }

    /** The ids of the messages, in order. */
    public List<String> ids() {
        return ids;
    }

    /** The messages, in order, in the form {@link DelayQueueClient#restore} takes back. */
    public List<Message> messages() {
        return messages;
    }

    @Override
    public String toString() {
        return "PreparedSend[queue=" + queue + ", ids=" + ids + "]";
    }
}
