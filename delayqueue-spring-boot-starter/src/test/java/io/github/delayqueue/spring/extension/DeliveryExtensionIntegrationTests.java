package io.github.delayqueue.spring.extension;

import java.time.Duration;
import java.util.Optional;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.extension.ExtensionApp.Queues;
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
 * {@code DeliveryInterceptor} beans and {@code @DelayHandler(errorHandler)} against a real Redis
 * ({@link TestRedis}): every interceptor bean runs around every delivery in {@code @Order} order and hears its
 * outcome; the named error handler decides what a failure does.
 */
@SpringBootTest(classes = ExtensionApp.class)
class DeliveryExtensionIntegrationTests {

    private static final String PREFIX = TestRedis.uniquePrefix();
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", TestRedis::url);
        registry.add("delayqueue.key-prefix", () -> PREFIX);
        registry.add("spring.main.banner-mode", () -> "off");
        // two attempts, soon after each other: the first failure is RETRIED, the second DEAD_LETTERED
        registry.add("delayqueue.consumer.retry.max-attempts", () -> "2");
        registry.add("delayqueue.consumer.retry.initial-backoff", () -> "50ms");
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
    void interceptorBeansNestInOrderAroundTheHandlerAndHearItsAcknowledgement() {
        String id = this.template.send(Queues.PLAIN, "ok-1", Duration.ZERO);
        await().atMost(DEADLINE).until(() -> ExtensionApp.EVENTS.contains("second:ACKNOWLEDGED:" + id));
        assertThat(ExtensionApp.EVENTS).containsSubsequence("first:before:" + id, "second:before:" + id,
                "handler:ok-1", "second:after:" + id, "first:after:" + id);
        assertThat(ExtensionApp.EVENTS).contains("first:ACKNOWLEDGED:" + id);
    }

    @Test
    void interceptorBeansHearARetryThenTheDeadLetterOfAThrowingHandler() {
        String id = this.template.send(Queues.PLAIN, "fail-1", Duration.ZERO);
        DeadLetter dead = awaitDeadLetter(Queues.PLAIN, id);
        assertThat(dead.attempts()).isEqualTo(2);
        await().atMost(DEADLINE).until(() -> ExtensionApp.EVENTS.contains("second:DEAD_LETTERED:" + id));
        assertThat(ExtensionApp.EVENTS).containsSubsequence("first:RETRIED:" + id, "first:before:" + id,
                "first:DEAD_LETTERED:" + id);
        assertThat(ExtensionApp.EVENTS).contains("second:RETRIED:" + id);
    }

    @Test
    void theNamedErrorHandlerDeadLettersAfterOneAttempt() {
        String id = this.template.send(Queues.DEAD_ON_FIRST_FAILURE, "fail-2", Duration.ZERO);
        DeadLetter dead = awaitDeadLetter(Queues.DEAD_ON_FIRST_FAILURE, id);
        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(dead.reason()).contains("IllegalStateException");
        // without the error handler the first failure would be retried (max-attempts 2)
        assertThat(ExtensionApp.HANDLED_ERRORS).containsExactly(id + ":RETRY");
        assertThat(ExtensionApp.EVENTS.stream().filter(("handler:fail-2")::equals)).hasSize(1);
    }

    private DeadLetter awaitDeadLetter(Queues queue, String id) {
        return await().atMost(DEADLINE).until(() -> this.admin.deadLetters(queue, 100).stream()
                .filter(d -> d.id().equals(id)).findFirst(), Optional::isPresent).orElseThrow();
    }
}
