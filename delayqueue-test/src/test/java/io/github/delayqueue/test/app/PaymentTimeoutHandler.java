package io.github.delayqueue.test.app;

import org.springframework.stereotype.Component;

import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayMessageHandler;

@Component
@DelayHandler("PAYMENT_TIMEOUT")
class PaymentTimeoutHandler implements DelayMessageHandler<PaymentTimeout> {

    private final Recorder recorder;

    PaymentTimeoutHandler(Recorder recorder) {
        this.recorder = recorder;
    }

    @Override
    public void handle(PaymentTimeout timeout) {
        this.recorder.record(timeout);
    }
}
