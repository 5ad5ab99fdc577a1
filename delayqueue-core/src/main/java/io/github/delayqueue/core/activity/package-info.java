/**
 * A queue's recent activity, minute by minute: {@link io.github.delayqueue.core.activity.ActivityMinute}, read with
 * {@code DelayQueueClient.activity(queue)} for the last hour, so that an operator sees when a queue started to fall
 * behind. Values only, like {@code history}: each client counts what its consumers handled, retried and dead-lettered
 * and how late their handlers started, in memory ({@code engine.ActivityTally}, fed by the engine's listener events),
 * and adds it to Redis once a minute and when its last consumer stops, one script call per queue; the per-minute
 * hashes and that script are {@code protocol.ActivityScript}'s. Off with {@code ClientOptions.Builder.activity(false)}.
 */
@NullMarked
package io.github.delayqueue.core.activity;

import org.jspecify.annotations.NullMarked;
