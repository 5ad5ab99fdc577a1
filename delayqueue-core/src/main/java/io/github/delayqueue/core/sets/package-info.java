/**
 * Job sets: messages sent as one set, across any queues and partitions, with callbacks that are themselves messages
 * ({@link io.github.delayqueue.core.sets.JobSet}): on success (every member acknowledged), on complete (every member
 * acknowledged, dead or cancelled) and on a member's death, each sent exactly once and never before its condition
 * holds; a member may add messages to its own set before it returns ({@code DelayQueueClient.addToSet}); chains
 * ({@link io.github.delayqueue.core.sets.Chain}) run step B once step A is acknowledged; a set's counts and dead
 * members are read as a {@link io.github.delayqueue.core.sets.SetStatus}. This package owns the values of the API;
 * the client sends sets, and its consumers forward their members' outcomes (docs/guides/job-sets.md,
 * docs/internals/redis-layout.md).
 */
@NullMarked
package io.github.delayqueue.core.sets;

import org.jspecify.annotations.NullMarked;
