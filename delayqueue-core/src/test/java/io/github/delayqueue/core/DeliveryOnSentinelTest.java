package io.github.delayqueue.core;

import io.github.delayqueue.testing.OnTopology;
import io.github.delayqueue.testing.RedisContext;

/** Every test of {@link DeliveryTest} again, through Redis Sentinel (a master, a replica, 3 sentinels). */
@OnTopology(OnTopology.Topology.SENTINEL)
class DeliveryOnSentinelTest extends DeliveryTest {

    DeliveryOnSentinelTest(RedisContext redis) {
        super(redis);
    }
}
