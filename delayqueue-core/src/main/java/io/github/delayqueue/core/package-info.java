/**
 * The public API of the delay queue engine: {@link io.github.delayqueue.core.DelayQueueClient}, the one entry point,
 * and what it takes and gives (client, consumer and send options, send requests, message and dead-letter views,
 * statistics, the handler, listener, interceptor and error-handler contracts, the exceptions), and
 * {@link io.github.delayqueue.core.RDelayedQueueImporter}, the entry point of a migration from Redisson's
 * RDelayedQueue. These names are the contract applications and the starter rely on.
 *
 * <p>Capabilities with API types of their own have public packages of their own: {@code schedule} (recurring
 * schedules), {@code history} (where a message stands, and the records of settled messages) and {@code activity} (a
 * queue's last hour, minute by minute).
 *
 * <p>The machinery lives in internal sub-packages, public only so that these classes can reach them:
 * {@code engine} (the consumer: claims, handlers, settles, leases), {@code protocol} (the Redis key layout, the
 * stored formats and the Lua scripts), {@code migration} (reading RDelayedQueue's layout) and {@code internal}
 * (argument checks). Arrows run one way: the entry points use the internal packages; the internal packages use the
 * types here as values, contracts and exceptions, never the entry points; the other types here use only
 * {@code internal} and, for the send and option checks, {@code protocol} ({@code Due}, queue names, the partition
 * limit). {@code LayoutTest} keeps it so; docs/internals/architecture.md draws the map.
 *
 * <p>Nothing here is {@code null} unless marked {@link org.jspecify.annotations.Nullable @Nullable}.
 */
@NullMarked
package io.github.delayqueue.core;

import org.jspecify.annotations.NullMarked;
