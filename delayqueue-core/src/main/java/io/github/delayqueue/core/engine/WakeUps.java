package io.github.delayqueue.core.engine;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.api.listener.BaseStatusListener;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.protocol.QueueKeys;

/**
 * The wake-up subscription of one consumer: a message published on the queue's channel (by a send or
 * retry due before the current head) wakes the poller. Redisson multiplexes every topic of a client over
 * its pub/sub connections, so this costs no thread. Without it the poller still polls at least every
 * {@code maxPollInterval}.
 */
public final class WakeUps {

    private static final Logger log = LoggerFactory.getLogger(DelayQueueConsumer.class);
    /** What cancel.lua publishes before the id of a message it cancelled in flight. */
    private static final String CANCEL = "cancel:";

    private final String queue;
    private final String channel;
    private final RTopic topic;
    /** Receives the due time a wake-up names, or {@link Long#MIN_VALUE} when it names none. */
    private final LongConsumer wake;
    /** Receives the member of a message cancelled in flight ({@code cancel:<member>}, cancel.lua). */
    private final Consumer<String> cancelled;
    private final Duration pollInterval;
    private volatile boolean subscribed;
    private volatile boolean closed;
    /** Failed subscriptions in a row; the next attempt waits 1 s doubling up to a minute after the last. */
    private volatile int failures;
    private volatile long nextAttemptNanos;
    private volatile @Nullable Integer listenerId;
    private volatile @Nullable Integer statusListenerId;
    private volatile boolean watching;

    WakeUps(RedissonClient redisson, QueueKeys keys, Duration pollInterval, LongConsumer wake, Consumer<String> cancelled) {
        this.cancelled = cancelled;
        this.queue = keys.queue();
        this.channel = keys.wakeChannel();
        this.topic = redisson.getTopic(channel, StringCodec.INSTANCE);
        this.pollInterval = pollInterval;
        this.wake = wake;
    }

    /**
     * Subscribes without waiting. Called on the poller thread, not in start(): with a lazily connecting
     * client, Redisson connects inside addListenerAsync and blocks for its whole retry budget while Redis
     * is down. A wake-up published before the SUBSCRIBE completes is missed, so its completion wakes the
     * poller, which claims once more and finds any message sent meanwhile (LateSubscriptionTest).
     */
    void subscribe() {
        // set before the call: a subscription that fails (even synchronously, inside addListenerAsync) resets it,
        // so the next successful poll subscribes again instead of relying on the safety poll for good
        subscribed = true;
        try {
            topic.addListenerAsync(String.class, (ch, due) -> {
                if (due.startsWith(CANCEL)) {
                    cancelled.accept(due.substring(CANCEL.length()));
                    return;
                }
                try {
                    wake.accept(Long.parseLong(due));
                } catch (NumberFormatException e) {
                    wake.accept(Long.MIN_VALUE);
                }
            }).whenComplete((id, error) -> {
                if (error == null) {
                    listenerId = id;
                    subscribed = true;
                    // a send between the poller's last claim and now published its wake-up to nobody: claim again,
                    // or it waits for the safety poll (the status listener below is not told of this subscription)
                    wake.accept(Long.MIN_VALUE);
                    watchResubscriptions();
                    if (failures > 0) {
                        failures = 0;
                        log.info("Queue '{}': subscribed to wake-ups again", queue);
                    }
                    if (closed) {
                        unsubscribe();
                    }
                } else {
                    failed(error);
                }
            });
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    /**
     * After a failover Redisson subscribes the channel again on the new master (when it has found it): wake-ups
     * published meanwhile were missed, and the new master answers, so the poller claims at once rather than after the
     * rest of its sleep or error back-off (FailoverTest's drain). Added once the first subscription completed, it is not
     * told of that one: {@link #subscribe} wakes the poller itself.
     */
    private void watchResubscriptions() {
        if (watching) {
            return;
        }
        watching = true; // on Redisson's thread, after this consumer's one subscription under way
        try {
            topic.addListenerAsync(new BaseStatusListener() {
                @Override
                public void onSubscribe(String subscribed) {
                    wake.accept(Long.MIN_VALUE);
                }
            }).whenComplete((id, error) -> {
                if (error == null) {
                    statusListenerId = id;
                    if (closed) {
                        unsubscribe();
                    }
                }
            });
        } catch (RuntimeException e) {
            log.debug("Queue '{}': could not watch the wake-up subscription: {}", queue, e.toString());
        }
    }

    /** Whether wake-ups reach this consumer: its subscription completed and has not failed since. */
    boolean listening() {
        return subscribed && listenerId != null && !closed;
    }

    /** After a successful claim: subscribes again if the last attempt failed and its back-off is over. */
    void retryIfDue() {
        if (!subscribed && !closed && System.nanoTime() - nextAttemptNanos >= 0) {
            subscribe();
        }
    }

    /**
     * Polls without wake-ups until a later subscription works: tried again after a successful claim, 1 s
     * after the first failure, doubling up to a minute. Said once at WARN (an ACL without channel
     * permission denies it on every try), then at DEBUG.
     */
    private void failed(Throwable error) {
        subscribed = false;
        // a poller sleeping past maxPollInterval (the watch covered it while subscribed) polls on its own from now on
        wake.accept(Long.MIN_VALUE);
        int failed = ++failures; // only one subscription is under way at a time
        long backoffMs = Math.min(60_000L, 1_000L << Math.min(failed - 1, 6));
        nextAttemptNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoffMs);
        if (failed == 1 && !closed) {
            log.warn("Queue '{}': could not subscribe to wake-ups on channel '{}' ({}); polling every {} instead, "
                    + "so messages sent meanwhile may be up to that late. Allow the channel in the Redis ACL "
                    + "(see docs/internals/redis-layout.md)", queue, channel, error.toString(), pollInterval);
        } else {
            log.debug("Queue '{}': wake-up subscription failed again ({} in a row): {}", queue, failed, error.toString());
        }
    }

    /** Stops listening; a subscription still under way is removed when it completes. */
    void close() {
        closed = true;
        unsubscribe();
    }

    private void unsubscribe() {
        Integer status = statusListenerId;
        if (status != null) {
            statusListenerId = null;
            try {
                topic.removeListenerAsync(status);
            } catch (RuntimeException e) {
                log.debug("Queue '{}': could not remove the subscription watcher: {}", queue, e.toString());
            }
        }
        Integer id = listenerId;
        if (id != null) {
            listenerId = null;
            try {
                topic.removeListenerAsync(id);
            } catch (RuntimeException e) {
                log.debug("Queue '{}': could not remove the wake-up listener: {}", queue, e.toString());
            }
        }
    }
}
