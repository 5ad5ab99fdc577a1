package io.github.delayqueue.spring.noretry;

import java.time.Duration;
import java.util.Optional;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.noretry.NoRetryApp.Queues;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code retry.no-retry-for} (global and per queue) and {@code @DelayHandler(noRetryFor)} against a real Redis
 * ({@link TestRedis}): a listed exception (or a subclass, anywhere in the cause chain) dead-letters its message
 * after one attempt, where the default retry policy (5 attempts, 1 s back-off doubling) would take 15 s.
 */
@SpringBootTest(classes = NoRetryApp.class)
class NoRetryForIntegrationTests {

    private static final String PREFIX = TestRedis.uniquePrefix();
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", TestRedis::url);
        registry.add("delayqueue.key-prefix", () -> PREFIX);
        registry.add("spring.main.banner-mode", () -> "off");
        registry.add("delayqueue.consumer.retry.no-retry-for", () -> "java.lang.UnsupportedOperationException");
        // the queue's list replaces the global one: UnsupportedOperationException is retried on this queue
        registry.add("delayqueue.queues.BY_PROPERTY.retry.no-retry-for[0]", () -> "java.lang.IllegalArgumentException");
        registry.add("delayqueue.queues.BY_PROPERTY.retry.max-attempts", () -> "2");
        registry.add("delayqueue.queues.BY_PROPERTY.retry.initial-backoff", () -> "50ms");
    }

    @AfterAll
    static void deleteKeys() {
        TestRedis.deleteKeys(PREFIX);
    }

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    DelayQueueAdmin admin;

    @Test
    void anExceptionListedForTheQueueDeadLettersAfterOneAttemptEvenAsTheCauseOfASubclass() {
        DeadLetter dead = sendAndAwaitDeadLetter(Queues.BY_PROPERTY, "iae-1");
        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(dead.reason()).contains("IllegalStateException");
        assertThat(NoRetryApp.CALLS.get("iae-1")).hasValue(1);
    }

    @Test
    void theQueuesListReplacesTheGlobalOne() {
        DeadLetter dead = sendAndAwaitDeadLetter(Queues.BY_PROPERTY, "unsupported-1");
        assertThat(dead.attempts()).isEqualTo(2);
        assertThat(NoRetryApp.CALLS.get("unsupported-1")).hasValue(2);
    }

    @Test
    void anExceptionListedOnTheAnnotationDeadLettersAfterOneAttempt() {
        DeadLetter dead = sendAndAwaitDeadLetter(Queues.BY_ANNOTATION, "closed-1");
        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(dead.reason()).contains("AlreadyClosedException");
        assertThat(NoRetryApp.CALLS.get("closed-1")).hasValue(1);
    }

    @Test
    void theAnnotationAddsToTheGlobalList() {
        DeadLetter dead = sendAndAwaitDeadLetter(Queues.BY_ANNOTATION, "unsupported-2");
        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(NoRetryApp.CALLS.get("unsupported-2")).hasValue(1);
    }

    @Test
    void anExceptionListedGloballyDeadLettersAfterOneAttempt() {
        DeadLetter dead = sendAndAwaitDeadLetter(Queues.BY_GLOBAL_PROPERTY, "unsupported-3");
        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(dead.reason()).contains("UnsupportedOperationException");
        assertThat(NoRetryApp.CALLS.get("unsupported-3")).hasValue(1);
    }

    private DeadLetter sendAndAwaitDeadLetter(Queues queue, String payload) {
        String id = this.template.send(queue, payload, Duration.ZERO);
        return await().atMost(DEADLINE).until(() -> this.admin.deadLetters(queue, 100).stream()
                .filter(d -> d.id().equals(id)).findFirst(), Optional::isPresent).orElseThrow();
    }
}
