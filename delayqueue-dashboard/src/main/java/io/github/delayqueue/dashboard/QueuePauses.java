package io.github.delayqueue.dashboard;

import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueCode;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;

/**
 * Pausing and resuming a queue, for the dashboard's pause column and buttons. The only place that knows how:
 * this version of {@link DelayQueueAdmin} has no pause yet, so {@link #supported()} is false, the page shows no
 * pause buttons and "—" for paused, and the pause and resume routes answer 501. Once {@code DelayQueueAdmin}
 * has {@code pause}, {@code resume} and {@code isPaused}, these four methods call them and the page shows both.
 */
final class QueuePauses {

    private final DelayQueueAdmin admin;

    QueuePauses(DelayQueueAdmin admin) {
        this.admin = admin;
    }

    boolean supported() {
        return false;
    }

    /** Whether the queue is paused; {@code null} when not known. */
    @Nullable Boolean isPaused(DelayQueueCode code) {
        return null;
    }

    void pause(DelayQueueCode code) {
        throw unsupported();
    }

    void resume(DelayQueueCode code) {
        throw unsupported();
    }

    private DashboardException unsupported() {
        return new DashboardException(HttpStatus.NOT_IMPLEMENTED,
                "pause and resume are not available in this version of delayqueue (" + this.admin.getClass().getSimpleName()
                        + " has no pause)");
    }
}
