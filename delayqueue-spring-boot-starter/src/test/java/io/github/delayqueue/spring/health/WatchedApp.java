package io.github.delayqueue.spring.health;

import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayQueueCode;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;

/** The application of {@link ConsumerFailureHealthIntegrationTests}: one queue whose poller the test kills. */
@SpringBootApplication
public class WatchedApp {

    /** Queue names unique to this application, so that the test finds its poller thread by name. */
    public enum Queues implements DelayQueueCode {
        HEALTH_WATCHED, HEALTH_BYSTANDER
    }

    @Component
    static class Handlers {

        @DelayHandler("HEALTH_WATCHED")
        void watched(String payload) {
        }

        @DelayHandler("HEALTH_BYSTANDER")
        void bystander(String payload) {
        }
    }
}
