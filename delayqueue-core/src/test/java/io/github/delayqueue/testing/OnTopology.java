package io.github.delayqueue.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a test class that uses {@link RedisExtension} on a Redis Cluster ({@link TestCluster#shared()}) or a Sentinel
 * set-up ({@link TestSentinel#shared()}) instead of the single server: subclass a single-server test and annotate the
 * subclass, and every test of it runs again on that topology.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Inherited
public @interface OnTopology {

    Topology value();

    /** Where a test class's Redis runs. */
    enum Topology {
        /** 3 masters, 3 replicas. */
        CLUSTER,
        /** A master, a replica, 3 sentinels. */
        SENTINEL
    }
}
