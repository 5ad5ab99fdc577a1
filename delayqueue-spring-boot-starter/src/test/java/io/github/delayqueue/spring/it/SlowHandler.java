package io.github.delayqueue.spring.it;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayMessageHandler;

import org.springframework.stereotype.Component;

/** Runs until released (30 s at most), to show that shutdown waits for it. */
@Component
@DelayHandler("SLOW")
class SlowHandler implements DelayMessageHandler<String> {

    final CountDownLatch started = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    volatile boolean completed;
    volatile boolean interrupted;

    @Override
    public void handle(String payload) {
        this.started.countDown();
        try {
            this.release.await(30, TimeUnit.SECONDS);
            this.completed = true;
        } catch (InterruptedException e) {
            this.interrupted = true;
            Thread.currentThread().interrupt();
        }
    }
}
