package io.github.delayqueue.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.test.app.PaymentTimeout;
import io.github.delayqueue.test.app.Recorder;
import io.github.delayqueue.test.app.TestApplication;
import io.github.delayqueue.test.app.TestQueues;

/**
 * Spring Framework 7's context cache pauses a cached context while tests use another one, and restarts it when a
 * test needs it again. The context must come back whole: same Redis, same messages, consumers running.
 */
@SpringBootTest(classes = TestApplication.class, properties = "test.context=pause")
class ContextPauseTests {

    @Autowired
    ConfigurableApplicationContext context;

    @Autowired
    DelayQueueTester tester;

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    Recorder recorder;

    @Test
    void aPausedAndRestartedContextKeepsItsRedisItsMessagesAndItsConsumers() {
        String id = this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(3), Duration.ofHours(1));

        this.context.pause();      // what the context cache does when the next test class needs another context
        this.context.restart();    // and when a test needs this one again

        assertThat(this.tester.pending(TestQueues.PAYMENT_TIMEOUT)).extracting(ScheduledMessage::id).containsExactly(id);
        this.tester.run(TestQueues.PAYMENT_TIMEOUT, id);
        assertThat(this.recorder.handled()).containsExactly(new PaymentTimeout(3));
    }
}
