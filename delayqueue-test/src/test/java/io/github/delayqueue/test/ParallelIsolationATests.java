package io.github.delayqueue.test;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.test.app.Recorder;
import io.github.delayqueue.test.app.TestApplication;

/** Side a of {@link ParallelClasses}: its own context (the property makes it differ), run alongside the other side. */
@SpringBootTest(classes = TestApplication.class, properties = "test.side=a")
@Execution(ExecutionMode.CONCURRENT)
class ParallelIsolationATests {

    @Autowired
    DelayQueueTester tester;

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    Recorder recorder;

    @Value("${delayqueue.key-prefix}")
    String keyPrefix;

    @Test
    void seesOnlyItsOwnMessages() {
        ParallelClasses.play("a", 1, this.tester, this.template, this.recorder, this.keyPrefix);
    }
}
