package io.github.delayqueue.core.engine;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;

/**
 * The handler slots of one consumer ({@code concurrency} of them), shared by the pollers of its partitions. A poller
 * takes the slots it is about to claim for before its claim, and gives back what the claim did not fill, so pollers of
 * several partitions never claim more messages than there are free slots; a finished handler gives its slot back and
 * wakes every poller waiting for slots.
 */
public final class Slots {

    private final Semaphore permits;
    private final List<Poller> pollers = new CopyOnWriteArrayList<>();

    public Slots(int count) {
        this.permits = new Semaphore(count);
    }

    void register(Poller poller) {
        pollers.add(poller);
    }

    int available() {
        return permits.availablePermits();
    }

    /** Takes {@code n} slots if that many are free. */
    boolean take(int n) {
        return permits.tryAcquire(n);
    }

    /** Gives back {@code n} slots (0 does nothing) and wakes the pollers that wait for them. */
    void giveBack(int n) {
        if (n <= 0) {
            return;
        }
        permits.release(n);
        for (Poller poller : pollers) {
            poller.slotFreed();
        }
    }
}
