package io.github.delayqueue.spring.core;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.core.DeadLetterCause;
import io.github.delayqueue.core.DelayQueueListener;
import io.github.delayqueue.core.DeliveryOutcome;
import io.github.delayqueue.core.FlowLimit;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.SendMode;
import io.github.delayqueue.core.history.HistoryTrim;
import org.jspecify.annotations.Nullable;

/**
 * Every {@link DelayQueueListener} bean as the one listener an engine client takes: none is
 * {@link DelayQueueListener#NONE} (the engine then does no work for listening), one is itself, more are called
 * in order. The engine logs what a listener throws; here one that throws does not keep the next from hearing.
 *
 * <p>Internal to the starter: public only so that the auto-configuration can hand the result to the clients.
 */
public final class Listeners implements DelayQueueListener {

    private final DelayQueueListener[] listeners;

    private Listeners(List<DelayQueueListener> listeners) {
        this.listeners = listeners.toArray(new DelayQueueListener[0]);
    }

    public static DelayQueueListener of(List<DelayQueueListener> listeners) {
        return switch (listeners.size()) {
            case 0 -> NONE;
            case 1 -> listeners.get(0);
            default -> new Listeners(listeners);
        };
    }

    private interface Call {
        void on(DelayQueueListener listener);
    }

    private void each(Call call) {
        RuntimeException first = null;
        for (DelayQueueListener listener : listeners) {
            try {
                call.on(listener);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first; // logged by the engine
        }
    }

    @Override
    public void claimThrottled(String queue, FlowLimit limit) {
        each(l -> l.claimThrottled(queue, limit));
    }

    @Override
    public void sent(String queue, SendMode mode, boolean batch, int messages, Duration duration) {
        each(l -> l.sent(queue, mode, batch, messages, duration));
    }

    @Override
    public void sendFailed(String queue, SendMode mode, boolean batch, int messages, Duration duration, Throwable error) {
        each(l -> l.sendFailed(queue, mode, batch, messages, duration, error));
    }

    @Override
    public void claimed(String queue, int messages) {
        each(l -> l.claimed(queue, messages));
    }

    @Override
    public void handlerStarted(MessageContext context, Duration lateness) {
        each(l -> l.handlerStarted(context, lateness));
    }

    @Override
    public void handlerFinished(MessageContext context, DeliveryOutcome outcome, Duration duration,
            @Nullable Throwable error) {
        each(l -> l.handlerFinished(context, outcome, duration, error));
    }

    @Override
    public void acknowledged(String queue, int messages) {
        each(l -> l.acknowledged(queue, messages));
    }

    @Override
    public void retried(String queue, int messages) {
        each(l -> l.retried(queue, messages));
    }

    @Override
    public void deadLettered(String queue, DeadLetterCause cause, int messages) {
        each(l -> l.deadLettered(queue, cause, messages));
    }

    @Override
    public void expiredDropped(String queue, int messages) {
        each(l -> l.expiredDropped(queue, messages));
    }

    @Override
    public void redelivered(String queue, int messages) {
        each(l -> l.redelivered(queue, messages));
    }

    @Override
    public void staleSettles(String queue, int messages) {
        each(l -> l.staleSettles(queue, messages));
    }

    @Override
    public void historyTrimmed(String queue, HistoryTrim reason, int records) {
        each(l -> l.historyTrimmed(queue, reason, records));
    }
}
