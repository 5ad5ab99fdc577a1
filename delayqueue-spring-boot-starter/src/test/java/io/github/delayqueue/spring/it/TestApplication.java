package io.github.delayqueue.spring.it;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An application as a user writes it: queues in an enum, handler beans, properties. Its package is
 * the auto-configuration package in which the starter finds {@link ItQueues}.
 */
@SpringBootApplication
public class TestApplication {

    /** Fast retries for the failing queue, a small payload limit for the transactional one. */
    static final String[] PROPERTIES = { "delayqueue.queues.FAILING.retry.initial-backoff=50ms",
            "delayqueue.queues.FAILING.retry.multiplier=1", "delayqueue.queues.FAILING.retry.jitter=0",
            "delayqueue.queues.TX.max-payload-size=1KB", "spring.main.banner-mode=off" };
}
