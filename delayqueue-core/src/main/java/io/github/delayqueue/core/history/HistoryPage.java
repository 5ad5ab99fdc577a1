package io.github.delayqueue.core.history;

import java.time.Instant;
import java.util.List;

import io.github.delayqueue.core.DelayQueueClient;

/**
 * One page of a queue's history, the latest settled message first, as {@link DelayQueueClient#history} read it.
 *
 * @param queue      the queue name
 * @param total      how many records the history held when the page was read (over every partition)
 * @param offset     the rank of the first record of the page (0 is the latest settled)
 * @param serverTime the Redis server's clock when the page was read, to show "settled 3 s ago" without trusting the
 *                   local clock
 * @param records    at most the requested limit, newest first; empty past the end, and empty for a queue that keeps no
 *                   history
 */
public record HistoryPage(String queue, long total, long offset, Instant serverTime, List<SettledMessage> records) {

    public HistoryPage {
        records = List.copyOf(records);
    }
}
