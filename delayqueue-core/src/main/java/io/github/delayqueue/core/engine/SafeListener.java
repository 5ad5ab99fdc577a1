package io.github.delayqueue.core.engine;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.github.delayqueue.core.DeadLetterCause;
import io.github.delayqueue.core.DelayQueueListener;
import io.github.delayqueue.core.DeliveryOutcome;
import io.github.delayqueue.core.FlowLimit;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.SendMode;
import io.github.delayqueue.core.history.HistoryTrim;

/**
 * The application's {@link DelayQueueListener} as the engine calls it: what it throws is logged (the first
 * failure and every 1,000th after, so a broken listener does not flood the log) and changes nothing.
 */
public final class SafeListener implements DelayQueueListener {

    private static final Logger log = LoggerFactory.getLogger(DelayQueueListener.class);

    private final DelayQueueListener delegate;
    private final AtomicLong failures = new AtomicLong();

    private SafeListener(DelayQueueListener delegate) {
        this.delegate = delegate;
    }

    /** {@link #NONE} stays {@code NONE}, so the engine can tell that nobody listens. */
    public static DelayQueueListener of(DelayQueueListener listener) {
        return listener == NONE || listener instanceof SafeListener ? listener : new SafeListener(listener);
    }

    private void failed(String event, RuntimeException e) {
        long n = failures.incrementAndGet();
        if (n == 1 || n % 1_000 == 0) {
            log.warn("DelayQueueListener {} failed on {} ({} failures so far); the engine goes on", delegate, event, n, e);
        }
    }

    @Override
    public void sent(String queue, SendMode mode, boolean batch, int messages, Duration duration) {
        try {
            delegate.sent(queue, mode, batch, messages, duration);
        } catch (RuntimeException e) {
            failed("sent", e);
        }
    }

    @Override
    public void sendFailed(String queue, SendMode mode, boolean batch, int messages, Duration duration, Throwable error) {
        try {
            delegate.sendFailed(queue, mode, batch, messages, duration, error);
        } catch (RuntimeException e) {
            failed("sendFailed", e);
        }
    }

    @Override
    public void claimed(String queue, int messages) {
        try {
            delegate.claimed(queue, messages);
        } catch (RuntimeException e) {
            failed("claimed", e);
        }
    }

    @Override
    public void claimThrottled(String queue, FlowLimit limit) {
        try {
            delegate.claimThrottled(queue, limit);
        } catch (RuntimeException e) {
            failed("claimThrottled", e);
        }
    }

    @Override
    public void handlerStarted(MessageContext context, Duration lateness) {
        try {
            delegate.handlerStarted(context, lateness);
        } catch (RuntimeException e) {
            failed("handlerStarted", e);
        }
    }

    @Override
    public void handlerFinished(MessageContext context, DeliveryOutcome outcome, Duration duration,
            @Nullable Throwable error) {
        try {
            delegate.handlerFinished(context, outcome, duration, error);
        } catch (RuntimeException e) {
            failed("handlerFinished", e);
        }
    }

    @Override
    public void acknowledged(String queue, int messages) {
        try {
            delegate.acknowledged(queue, messages);
        } catch (RuntimeException e) {
            failed("acknowledged", e);
        }
    }

    @Override
    public void retried(String queue, int messages) {
        try {
            delegate.retried(queue, messages);
        } catch (RuntimeException e) {
            failed("retried", e);
        }
    }

    @Override
    public void deadLettered(String queue, DeadLetterCause cause, int messages) {
        try {
            delegate.deadLettered(queue, cause, messages);
        } catch (RuntimeException e) {
            failed("deadLettered", e);
        }
    }

    @Override
    public void expiredDropped(String queue, int messages) {
        try {
            delegate.expiredDropped(queue, messages);
        } catch (RuntimeException e) {
            failed("expiredDropped", e);
        }
    }

    @Override
    public void redelivered(String queue, int messages) {
        try {
            delegate.redelivered(queue, messages);
        } catch (RuntimeException e) {
            failed("redelivered", e);
        }
    }

    @Override
    public void staleSettles(String queue, int messages) {
        try {
            delegate.staleSettles(queue, messages);
        } catch (RuntimeException e) {
            failed("staleSettles", e);
        }
    }

    @Override
    public void historyTrimmed(String queue, HistoryTrim reason, int records) {
        try {
            delegate.historyTrimmed(queue, reason, records);
        } catch (RuntimeException e) {
            failed("historyTrimmed", e);
        }
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
