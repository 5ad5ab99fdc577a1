package io.github.delayqueue.spring.core;

import java.util.List;
import java.util.function.Function;

import io.github.delayqueue.core.SendRequest;

/**
 * Wraps every send of the auto-configured {@code DelayQueueTemplate} (around the write, or around the check and
 * deferral of a send made inside a transaction): the place of the {@code delayqueue.send} observation, which
 * adds the trace context to each request's headers.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
@FunctionalInterface
public interface SendObserver {

    /** Sends as asked. */
    SendObserver NONE = (queue, requests, send) -> send.apply(requests);

    /** Calls {@code send} once, with {@code requests} or copies of them, and returns what it returns. */
    List<String> observe(String queue, List<SendRequest> requests, Function<List<SendRequest>, List<String>> send);
}
