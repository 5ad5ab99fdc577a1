/**
 * Internal: the Redis protocol, and may change without notice (the layout it writes may not: see
 * docs/internals/redis-layout.md). Where a message's bytes are written: {@code QueueKeys} (the key layout of a queue or
 * partition), {@code Partitions} and {@code QueueRoute} (which partition an id lives in), {@code Envelope} and
 * {@code DeadLetterKeys} (the stored formats), {@code Due} (a due time as a script argument), {@code QueueOps} (one
 * method per script call, with its batching), {@code WatchRegistry} (the registry of instances taking turns at checking idle queues, and a turn's
 * pipelined reads), {@code Scripts} (loading the Lua scripts of {@code lua/}, each with
 * the includes it declares from {@code lua/includes/}, and running them with EVALSHA).
 *
 * <p>May use: the API types of {@code io.github.delayqueue.core} as values and exceptions (not the entry points) and
 * {@code internal}; never {@code engine} or {@code migration}. Used by the client, {@code engine} and
 * {@code migration}. Never by code outside delayqueue-core (the benchmarks' {@code ObservedPathCost}, which times
 * the engine's own use of {@code Envelope}, and tests that read a script's loaded text are the exceptions).
 */
@NullMarked
package io.github.delayqueue.core.protocol;

import org.jspecify.annotations.NullMarked;
