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

/** Side b of {@link ParallelClasses}: its own context (the property makes it differ), run alongside the other side. */
@SpringBootTest(classes = TestApplication.class, properties = "test.side=b")
@Execution(ExecutionMode.CONCURRENT)
class ParallelIsolationBTests {

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
        ParallelClasses.play("b", 2, this.tester, this.template, this.recorder, this.keyPrefix);
    }
}
