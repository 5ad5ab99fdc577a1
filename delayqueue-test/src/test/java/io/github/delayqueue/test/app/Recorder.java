package io.github.delayqueue.test.app;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.springframework.stereotype.Component;

/** What the test application's handlers were called with. */
@Component
public class Recorder {

    private final List<Object> handled = new CopyOnWriteArrayList<>();
    private volatile CountDownLatch gate = new CountDownLatch(1);

    void record(Object payload) {
        this.handled.add(payload);
    }

    public List<Object> handled() {
        return List.copyOf(this.handled);
    }

    public void clear() {
        this.handled.clear();
        this.gate = new CountDownLatch(1);
    }

    /** Lets every waiting and future {@code SLOW} handler finish. */
    public void release() {
        this.gate.countDown();
    }

    void await() throws InterruptedException {
        if (!this.gate.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("SLOW handler was never released");
        }
    }
}
