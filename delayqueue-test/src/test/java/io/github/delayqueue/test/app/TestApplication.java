package io.github.delayqueue.test.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A small application with delayed jobs, tested through {@code DelayQueueTester}. */
@SpringBootApplication
public class TestApplication {
}
