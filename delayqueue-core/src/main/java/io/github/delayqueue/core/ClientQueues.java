package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.internal.Checks;
import io.github.delayqueue.core.protocol.Due;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueRoute;
import io.github.delayqueue.core.protocol.Scripts;

/**
 * What every operation of a {@link DelayQueueClient} shares: the queues it has met (each name validated once,
 * with the route to its partitions), the checks of ids and due times, and the wrapping of a Redis failure into a
 * {@link DelayQueueException} that names the operation.
 */
final class ClientQueues {

    private final Scripts scripts;
    private final ClientOptions options;
    private final Map<String, QueueRoute> queues = new ConcurrentHashMap<>();

    ClientQueues(Scripts scripts, ClientOptions options) {
        this.scripts = scripts;
        this.options = options;
    }

    QueueRoute route(String queue) {
        QueueRoute known = queue == null ? null : queues.get(queue);
        if (known != null) {
            return known; // only validated names are ever added: no regex match per send
        }
        QueueKeys.validateName(queue);
        return queues.computeIfAbsent(queue, q -> new QueueRoute(scripts, options.keyPrefix(), q, options.partitions(q),
                options));
    }

    /** {@link #redis(String, Supplier)} after checking the queue's partition count (once per client and queue). */
    static <R> R redis(QueueRoute route, String what, Supplier<R> call) {
        return redis(what, () -> {
            route.check();
            return call.get();
        });
    }

    static <R> R redis(String what, Supplier<R> call) {
        try {
            return call.get();
        } catch (IllegalArgumentException | UnsupportedRedisException | NotReplicatedException | PartitionCountException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new DelayQueueException("could not " + what + ": " + e, e);
        }
    }

    static String validateId(@Nullable String id, String where) {
        Checks.require(id != null && !id.isBlank(), "id must not be null or blank" + where);
        Checks.require(id.length() <= ClientOptions.MAX_ID_LENGTH,
                "id must be at most " + ClientOptions.MAX_ID_LENGTH + " characters, was " + id.length() + where);
        for (int i = 0; i < id.length(); i++) {
            Checks.require(!Character.isISOControl(id.charAt(i)), "id must not contain control characters" + where);
        }
        // as UTF-8 every lone surrogate becomes the same '?': two such ids would be one message in Redis
        int surrogate = Checks.loneSurrogate(id);
        Checks.require(surrogate < 0, "id must be valid UTF-16 text: a lone surrogate at index " + surrogate + where);
        return id;
    }

    /** Checks {@code due} against {@link DelayQueueClient#MAX_DELAY} and the client's clock; returns it. */
    Due checked(Due due, String where) {
        // messages are built only on failure: formatting a Duration or Instant on every send showed in profiles
        if (due instanceof Due.After after) {
            Duration delay = after.delay();
            if (delay.isNegative()) {
                Checks.require(false, "delay must not be negative, was " + delay + where);
            }
            if (delay.compareTo(DelayQueueClient.MAX_DELAY) > 0) {
                Checks.require(false, "delay must be at most " + DelayQueueClient.MAX_DELAY + ", was " + delay + where);
            }
        } else {
            Instant dueAt = ((Due.At) due).instant();
            if (!dueAt.isBefore(options.clock().instant().plus(DelayQueueClient.MAX_DELAY))) {
                Checks.require(false, "dueAt must be within " + DelayQueueClient.MAX_DELAY + " from now, was " + dueAt + where);
            }
            if (dueAt.getEpochSecond() < 0) {
                Checks.require(false, "dueAt must not be before 1970, was " + dueAt + where);
            }
        }
        return due;
    }
}
