/**
 * Flow control across instances: what a queue's consumers may claim, enforced by the claim script on the Redis
 * clock for every instance together. {@link io.github.delayqueue.core.flow.RateLimit} is the smooth rate limit
 * (GCRA: one theoretical arrival time per queue in Redis, an optional burst); a cluster-wide cap on messages in
 * flight and the hold a handler asks for with {@link io.github.delayqueue.core.SlowDownException} are set on
 * {@link io.github.delayqueue.core.ConsumerOptions}. {@link io.github.delayqueue.core.flow.FlowLimit} names the
 * limit that held a claim back (for metrics). {@link io.github.delayqueue.core.flow.ClaimLimits} is internal to
 * delayqueue-core: the script arguments of one partition's share of the limits.
 */
@NullMarked
package io.github.delayqueue.core.flow;

import org.jspecify.annotations.NullMarked;
