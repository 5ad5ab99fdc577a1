package io.github.delayqueue.test.app;

import java.util.List;

import org.springframework.stereotype.Component;

import io.github.delayqueue.core.BatchItem;
import io.github.delayqueue.spring.DelayHandler;

@Component
class Handlers {

    private final Recorder recorder;

    Handlers(Recorder recorder) {
        this.recorder = recorder;
    }

    @DelayHandler("REMINDER")
    void remind(List<String> attendees) {
        this.recorder.record(attendees);
    }

    @DelayHandler(value = "POISON", maxAttempts = "3")
    void poison(PaymentTimeout timeout) {
        throw new IllegalStateException("cannot handle order " + timeout.orderId());
    }

    @DelayHandler(value = "BATCH", batch = "true")
    void batch(List<BatchItem<String>> items) {
        for (BatchItem<String> item : items) {
            this.recorder.record(item.payload());
        }
    }

    @DelayHandler(value = "SLOW", concurrency = "1")
    void slow(String name) throws InterruptedException {
        this.recorder.await();
        this.recorder.record(name);
    }
}
