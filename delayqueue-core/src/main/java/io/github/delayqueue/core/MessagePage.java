package io.github.delayqueue.core;

import java.time.Instant;
import java.util.List;

/**
 * One page of a queue's pending messages (in due order) or in-flight messages (in lease-deadline order),
 * read in one atomic call.
 *
 * @param queue      the queue name
 * @param total      how many messages the set held when the page was read (pending includes those already due)
 * @param offset     the rank of the first message of the page (0 is the earliest)
 * @param serverTime the Redis server's clock when the page was read, to show "due in" without trusting
 *                   the local clock
 * @param messages   at most the requested limit; empty past the end
 */
public record MessagePage(String queue, long total, long offset, Instant serverTime, List<QueuedMessage> messages) {

    public MessagePage {
        messages = List.copyOf(messages);
    }
}
