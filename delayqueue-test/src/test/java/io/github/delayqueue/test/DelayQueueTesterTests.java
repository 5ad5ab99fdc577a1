package io.github.delayqueue.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.transaction.support.TransactionTemplate;

import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.core.sets.SetStatus;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.test.app.PaymentTimeout;
import io.github.delayqueue.test.app.Recorder;
import io.github.delayqueue.test.app.TestApplication;
import io.github.delayqueue.test.app.TestQueues;
import io.github.delayqueue.test.other.OtherQueues;

/** {@link DelayQueueTester} on the test application: real Redis, real consumers, real handlers. */
@SpringBootTest(classes = TestApplication.class)
class DelayQueueTesterTests {

    @Autowired
    DelayQueueTester tester;

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    DelayQueueAdmin admin;

    @Autowired
    Recorder recorder;

    @Autowired
    TransactionTemplate transactions;

    @Autowired
    Environment environment;

    @BeforeEach
    @AfterEach
    void fresh() {
        this.recorder.release();
        this.tester.awaitIdle();
        this.tester.reset();
        this.recorder.clear();
    }

    @Test
    void pendingShowsTypedPayloadsIdsHeadersAndDueTimesByTheRedisClock() {
        this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(42), Duration.ofMinutes(15),
                SendOptions.id("order-42").header("tenant", "acme"));
        this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(7), Duration.ofMinutes(5));

        List<ScheduledMessage<PaymentTimeout>> pending = this.tester.pending(TestQueues.PAYMENT_TIMEOUT, PaymentTimeout.class);

        assertThat(pending).extracting(ScheduledMessage::payload).containsExactly(new PaymentTimeout(7), new PaymentTimeout(42));
        ScheduledMessage<PaymentTimeout> timeout = pending.get(1);
        assertThat(timeout.id()).isEqualTo("order-42");
        assertThat(timeout.headers()).isEqualTo(Map.of("tenant", "acme"));
        assertThat(timeout.dueIn()).isCloseTo(Duration.ofMinutes(15), Duration.ofSeconds(10));
        assertThat(timeout.attempts()).isZero();
        assertThat(this.tester.pending(TestQueues.PAYMENT_TIMEOUT)).extracting(ScheduledMessage::payload)
                .containsExactly(new PaymentTimeout(7), new PaymentTimeout(42));
        assertThat(this.recorder.handled()).isEmpty();
    }

    @Test
    void genericPayloadsDecodeWithTheHandlersDeclaredType() {
        this.template.send(TestQueues.REMINDER, List.of("alice", "bob"), Duration.ofHours(1));

        assertThat(this.tester.pending(TestQueues.REMINDER)).singleElement().extracting(ScheduledMessage::payload)
                .isEqualTo(List.of("alice", "bob"));
    }

    @Test
    void aQueueWithoutHandlerNeedsThePayloadType() {
        this.template.send(TestQueues.SEND_ONLY, new PaymentTimeout(1), Duration.ofHours(1));

        assertThatIllegalArgumentException().isThrownBy(() -> this.tester.pending(TestQueues.SEND_ONLY))
                .withMessageContaining("SEND_ONLY has no @DelayHandler").withMessageContaining("PayloadType.class");
        assertThat(this.tester.pending(TestQueues.SEND_ONLY, PaymentTimeout.class)).extracting(ScheduledMessage::payload)
                .containsExactly(new PaymentTimeout(1));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> this.tester.pending(TestQueues.PAYMENT_TIMEOUT, String.class))
                .withMessageContaining(PaymentTimeout.class.getName()).withMessageContaining("not a java.lang.String");
        assertThatIllegalStateException().isThrownBy(() -> this.tester.runAll(TestQueues.SEND_ONLY))
                .withMessageContaining("No consumer of queue SEND_ONLY");
    }

    @Test
    void nothingIsPendingAfterARolledBackTransaction() {
        this.transactions.executeWithoutResult(status -> {
            this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(9), Duration.ofMinutes(15));
            status.setRollbackOnly();
        });
        assertThat(this.tester.pending(TestQueues.PAYMENT_TIMEOUT)).isEmpty();

        this.transactions.executeWithoutResult(status -> this.template.send(TestQueues.PAYMENT_TIMEOUT,
                new PaymentTimeout(10), Duration.ofMinutes(15)));
        assertThat(this.tester.pending(TestQueues.PAYMENT_TIMEOUT)).hasSize(1);
    }

    @Test
    void runHandlesAMessageDueInAnHourNowThroughItsHandler() {
        String id = this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(42), Duration.ofHours(1));
        String other = this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(43), Duration.ofHours(1));

        this.tester.run(TestQueues.PAYMENT_TIMEOUT, id);

        assertThat(this.recorder.handled()).containsExactly(new PaymentTimeout(42));
        assertThat(this.tester.pending(TestQueues.PAYMENT_TIMEOUT)).extracting(ScheduledMessage::id).containsExactly(other);
        assertThatThrownBy(() -> this.tester.run(TestQueues.PAYMENT_TIMEOUT, id)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("No pending or in-flight message '" + id + "'")
                .hasMessageContaining("handled, cancelled or never sent");
    }

    @Test
    void aBatchHandlerRunsThroughRunAndRunDueWithin() {
        this.template.send(TestQueues.BATCH, "a", Duration.ofMinutes(1), SendOptions.id("a"));
        this.template.send(TestQueues.BATCH, "b", Duration.ofMinutes(2), SendOptions.id("b"));
        this.template.send(TestQueues.BATCH, "c", Duration.ofHours(2), SendOptions.id("c"));

        this.tester.run(TestQueues.BATCH, "c");
        assertThat(this.recorder.handled()).containsExactly("c");

        assertThat(this.tester.runDueWithin(TestQueues.BATCH, Duration.ofMinutes(5))).containsExactlyInAnyOrder("a", "b");
        assertThat(this.recorder.handled()).containsExactlyInAnyOrder("c", "a", "b");
        assertThat(this.tester.pending(TestQueues.BATCH)).isEmpty();
    }

    @Test
    void runAllAndRunDueWithinMakeTimePass() {
        this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(1), Duration.ofMinutes(1), SendOptions.id("soon"));
        this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(2), Duration.ofHours(2), SendOptions.id("later"));
        this.template.send(TestQueues.REMINDER, List.of("carol"), Duration.ofMinutes(3), SendOptions.id("reminder"));
        this.template.send(TestQueues.SEND_ONLY, "not consumed here", Duration.ofMinutes(1));

        assertThat(this.tester.runDueWithin(TestQueues.PAYMENT_TIMEOUT, Duration.ofMinutes(5))).containsExactly("soon");
        assertThat(this.recorder.handled()).containsExactly(new PaymentTimeout(1));

        assertThat(this.tester.runDueWithin(Duration.ofMinutes(5))).containsExactly("reminder");
        assertThat(this.tester.pending(TestQueues.PAYMENT_TIMEOUT)).extracting(ScheduledMessage::id).containsExactly("later");
        assertThat(this.tester.pending(TestQueues.SEND_ONLY, String.class)).hasSize(1);

        assertThat(this.tester.runAll(TestQueues.PAYMENT_TIMEOUT)).containsExactly("later");
        assertThat(this.recorder.handled()).containsExactly(new PaymentTimeout(1), List.of("carol"), new PaymentTimeout(2));
        assertThat(this.tester.runAll(TestQueues.PAYMENT_TIMEOUT)).isEmpty();
    }

    @Test
    void aMessageThatDiesFailsTheRunWithItsReason() {
        String id = this.template.send(TestQueues.POISON, new PaymentTimeout(13), Duration.ofHours(1));

        assertThatThrownBy(() -> this.tester.run(TestQueues.POISON, id)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("1 message(s) ended in the dead letters")
                .hasMessageContaining("POISON '" + id + "': java.lang.IllegalStateException: cannot handle order 13")
                .hasMessageContaining("after 3 attempt(s)");

        DeadMessage dead = this.tester.deadLetter(TestQueues.POISON, id);
        assertThat(dead.reason()).isEqualTo("java.lang.IllegalStateException: cannot handle order 13");
        assertThat(dead.payload()).isEqualTo(new PaymentTimeout(13));
        assertThat(dead.attempts()).isEqualTo(3);
        assertThat(this.tester.deadLetters(TestQueues.POISON)).containsExactly(dead);
        assertThatThrownBy(() -> this.tester.run(TestQueues.POISON, id)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("already dead: java.lang.IllegalStateException: cannot handle order 13");
    }

    @Test
    void aMessagePastItsExpiryShowsAsADeadLetterWithItsCause() {
        java.time.Instant now = java.time.Instant.now();
        String id = this.template.sendAt(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(21), now.minusSeconds(10),
                SendOptions.none().expiresAt(now.minusSeconds(5)));

        // due already, the consumer may expire it before the run lists it (the run has nothing to do), between the
        // listing and the run's look at the dead letters (the run takes it for handled: a race of the tester's with
        // messages already due), or during the run (the run fails with the dead letter's reason): in every case it
        // ends as a dead letter with its cause, never handled
        try {
            this.tester.runDueWithin(TestQueues.PAYMENT_TIMEOUT, Duration.ofMinutes(1));
        } catch (AssertionError e) {
            assertThat(e).hasMessageContaining("expired: not delivered by its expiry");
        }
        DeadMessage dead = await().atMost(Duration.ofSeconds(20)).until(() -> this.tester.deadLetters(TestQueues.PAYMENT_TIMEOUT)
                .stream().filter(d -> d.id().equals(id)).findFirst().orElse(null), java.util.Objects::nonNull);
        assertThat(dead.reason()).startsWith("expired");
        assertThat(dead.attempts()).isZero();
        assertThat(this.recorder.handled()).doesNotContain(new PaymentTimeout(21));
    }

    @Test
    void runExpectingDeadLetterReturnsTheDeadLetterAndFailsWhenTheHandlerSucceeds() {
        String poison = this.template.send(TestQueues.POISON, new PaymentTimeout(5), Duration.ofHours(1));
        String fine = this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(6), Duration.ofHours(1));

        DeadMessage dead = this.tester.runExpectingDeadLetter(TestQueues.POISON, poison);
        assertThat(dead.id()).isEqualTo(poison);
        assertThat(dead.reason()).contains("cannot handle order 5");
        assertThat(this.tester.runExpectingDeadLetter(TestQueues.POISON, poison)).isEqualTo(dead);

        assertThatThrownBy(() -> this.tester.runExpectingDeadLetter(TestQueues.PAYMENT_TIMEOUT, fine))
                .isInstanceOf(AssertionError.class).hasMessageContaining("but its handler succeeded");
        assertThatThrownBy(() -> this.tester.deadLetter(TestQueues.PAYMENT_TIMEOUT, fine)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("has no dead letter '" + fine + "'");
    }

    @Test
    void aTimedOutRunListsWhatIsStillPendingAndInFlight() {
        this.template.send(TestQueues.SLOW, "first", Duration.ofHours(1), SendOptions.id("first"));
        this.template.send(TestQueues.SLOW, "second", Duration.ofHours(1), SendOptions.id("second"));

        DelayQueueTester impatient = this.tester.withTimeout(Duration.ofSeconds(2));
        assertThatThrownBy(() -> impatient.runAll(TestQueues.SLOW)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("timed out after PT2S with 2 message(s) not handled yet (0 handled)")
                .hasMessageContaining("SLOW 'first': in flight, attempt 1")
                .hasMessageContaining("SLOW 'second': pending, due at");
        assertThatThrownBy(impatient::awaitIdle).isInstanceOf(AssertionError.class)
                .hasMessageContaining("Queues still busy after PT2S").hasMessageContaining("SLOW: 1 due, 1 in flight");

        this.recorder.release();
        this.tester.awaitIdle();
        assertThat(this.recorder.handled()).containsExactly("first", "second");
    }

    @Test
    void awaitIdleWaitsForDueMessagesButNotForLaterOnes() {
        this.template.send(TestQueues.SLOW, "now", Duration.ZERO);
        this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(1), Duration.ofHours(1));
        await().atMost(Duration.ofSeconds(30)).until(() -> this.admin.stats(TestQueues.SLOW).inFlight() == 1);
        this.recorder.release();

        this.tester.awaitIdle();

        assertThat(this.recorder.handled()).containsExactly("now");
        assertThat(this.tester.pending(TestQueues.PAYMENT_TIMEOUT)).hasSize(1);
    }

    @Test
    void resetDeletesLiveMessagesAndDeadLetters() {
        this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(1), Duration.ofHours(1));
        this.template.send(TestQueues.SEND_ONLY, "x", Duration.ofHours(1));
        String poison = this.template.send(TestQueues.POISON, new PaymentTimeout(2), Duration.ofHours(1));
        this.tester.runExpectingDeadLetter(TestQueues.POISON, poison);

        this.tester.reset();

        assertThat(this.admin.stats()).allSatisfy(stats -> {
            assertThat(stats.pending()).isZero();
            assertThat(stats.inFlight()).isZero();
            assertThat(stats.dead()).isZero();
        });
    }

    /** Issue 36: a test starting afresh must not find ids remembered by an earlier test's dedup windows. */
    @Test
    void aRunRemembersAnIdWithADedupWindowAndResetForgetsIt() {
        SendOptions once = SendOptions.id("welcome-1").withDedupWindow(Duration.ofDays(1));
        this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(1), Duration.ofHours(1), once);
        this.tester.run(TestQueues.PAYMENT_TIMEOUT, "welcome-1");

        this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(2), Duration.ofHours(1), once);
        assertThat(this.tester.pending(TestQueues.PAYMENT_TIMEOUT)).as("remembered after the run").isEmpty();

        this.tester.reset();
        this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(3), Duration.ofHours(1), once);
        assertThat(this.tester.pending(TestQueues.PAYMENT_TIMEOUT)).as("forgotten by the reset").hasSize(1);
    }

    @Test
    void eachTestContextHasItsOwnKeyPrefix() {
        assertThat(this.environment.getProperty("delayqueue.key-prefix")).matches("dqtest-[a-z0-9]{10}");
    }

    @Test
    void badInputIsRejected() {
        assertThatIllegalArgumentException().isThrownBy(() -> this.tester.pending(null)).withMessageContaining("null");
        assertThatIllegalArgumentException().isThrownBy(() -> this.tester.pending(OtherQueues.UNDECLARED))
                .withMessageContaining("Unknown queue code 'UNDECLARED'");
        assertThatIllegalArgumentException().isThrownBy(() -> this.tester.pending(TestQueues.PAYMENT_TIMEOUT, null))
                .withMessageContaining("payloadType must not be null");
        assertThatIllegalArgumentException().isThrownBy(() -> this.tester.run(TestQueues.PAYMENT_TIMEOUT, null))
                .withMessageContaining("id must not be null or blank");
        assertThatIllegalArgumentException().isThrownBy(() -> this.tester.run(TestQueues.PAYMENT_TIMEOUT, " "))
                .withMessageContaining("id must not be null or blank");
        assertThatIllegalArgumentException().isThrownBy(() -> this.tester.run(OtherQueues.UNDECLARED, "x"))
                .withMessageContaining("Unknown queue code");
        assertThatIllegalArgumentException().isThrownBy(() -> this.tester.runAll(null)).withMessageContaining("null");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> this.tester.runDueWithin(TestQueues.PAYMENT_TIMEOUT, Duration.ofSeconds(-1)))
                .withMessageContaining("duration must not be null or negative");
        assertThatIllegalArgumentException().isThrownBy(() -> this.tester.runDueWithin(null))
                .withMessageContaining("duration must not be null or negative");
        assertThatIllegalArgumentException().isThrownBy(() -> this.tester.deadLetters(OtherQueues.UNDECLARED))
                .withMessageContaining("Unknown queue code");
        assertThatIllegalArgumentException().isThrownBy(() -> this.tester.deadLetter(TestQueues.POISON, ""))
                .withMessageContaining("id must not be null or blank");
        assertThatIllegalArgumentException().isThrownBy(() -> this.tester.runExpectingDeadLetter(null, "x"))
                .withMessageContaining("null");
        assertThatIllegalArgumentException().isThrownBy(() -> this.tester.withTimeout(Duration.ZERO))
                .withMessageContaining("timeout must be positive");
        assertThatIllegalArgumentException().isThrownBy(() -> this.tester.withTimeout(null))
                .withMessageContaining("timeout must be positive");
    }

    @Test
    void awaitSetWaitsUntilTheSetIsCompleteAndItsCallbacksSent() {
        DelayQueueClient client = this.admin.client(TestQueues.REMINDER);
        String set = client.sendSet(JobSet.builder()
                .add(TestQueues.REMINDER.code(), List.of(SendRequest.of(List.of("a"), Duration.ofHours(1)),
                        SendRequest.of(List.of("b"), Duration.ofHours(1))))
                .onSuccess(TestQueues.REMINDER.code(), SendRequest.of(List.of("all reminded"), Duration.ZERO))
                .build());
        this.tester.runAll(TestQueues.REMINDER);

        SetStatus status = this.tester.awaitSet(set);

        assertThat(status.acknowledged()).isEqualTo(2);
        assertThat(status.successSent()).isTrue();
        assertThat(status.callbacksDue()).isZero();
        this.tester.runAll(TestQueues.REMINDER);
        await().atMost(Duration.ofSeconds(30)).until(() -> this.recorder.handled().contains(List.of("all reminded")));
        assertThatThrownBy(() -> this.tester.awaitSet("no-such-set")).isInstanceOf(AssertionError.class)
                .hasMessageContaining("No job set 'no-such-set'");
    }
}
