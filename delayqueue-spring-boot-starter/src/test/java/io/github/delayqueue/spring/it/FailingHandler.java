package io.github.delayqueue.spring.it;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayMessageHandler;

import org.springframework.stereotype.Component;

/** Always fails; three attempts (set on the annotation), then the message is dead-lettered. */
@Component
@DelayHandler(value = "FAILING", maxAttempts = "3")
class FailingHandler implements DelayMessageHandler<String> {

    final AtomicInteger calls = new AtomicInteger();

    @Override
    public void handle(String payload) {
        this.calls.incrementAndGet();
        throw new IllegalStateException("boom: " + payload);
    }
}
