package io.github.delayqueue.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.test.app.PaymentTimeout;
import io.github.delayqueue.test.app.Recorder;
import io.github.delayqueue.test.app.TestApplication;
import io.github.delayqueue.test.app.TestQueues;

/**
 * {@link DelayQueueTester} on messages sent with a priority ({@code SendOptions.priority}), which pend in their
 * priority's set rather than in the queue's delayed set, marked there by a member scored -inf: pending lists them with
 * their priority, the runs handle them all (on a queue that runs one message at a time, the highest priority first),
 * and reset leaves neither a priority's set nor a marker behind.
 */
@SpringBootTest(classes = TestApplication.class)
class DelayQueueTesterPrioritiesTests {

    @Autowired
    DelayQueueTester tester;

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    DelayQueueAdmin admin;

    @Autowired
    Recorder recorder;

    @Autowired
    RedissonClient redisson;

    @Value("${delayqueue.key-prefix}")
    String keyPrefix;

    @BeforeEach
    @AfterEach
    void fresh() {
        this.recorder.release();
        this.tester.awaitIdle();
        this.tester.reset();
        this.recorder.clear();
    }

    @Test
    void pendingListsPrioritizedMessagesInDueOrderWithTheirPriority() {
        send(TestQueues.PAYMENT_TIMEOUT, "p9-30", 9, 30);
        send(TestQueues.PAYMENT_TIMEOUT, "p4-10", null, 10);
        send(TestQueues.PAYMENT_TIMEOUT, "p1-20", 1, 20);

        List<ScheduledMessage<PaymentTimeout>> pending = this.tester.pending(TestQueues.PAYMENT_TIMEOUT, PaymentTimeout.class);

        assertThat(pending).extracting(ScheduledMessage::id).containsExactly("p4-10", "p1-20", "p9-30");
        assertThat(pending).extracting(ScheduledMessage::priority).containsExactly(4, 1, 9);
        assertThat(pending).extracting(ScheduledMessage::payload).containsExactly(new PaymentTimeout(10),
                new PaymentTimeout(20), new PaymentTimeout(30));
        assertThat(pending.get(2).headers()).as("the priority is not a header").isEmpty();
        assertThat(pending.get(2).dueIn()).isCloseTo(Duration.ofMinutes(30), Duration.ofSeconds(10));
    }

    /**
     * SLOW runs one message at a time (concurrency 1). Its messages, due in due order lowest priority first, are all
     * made due by runAll and handled highest priority first, the default's (4) among them in its place; within one
     * priority, in due order.
     */
    @Test
    void runAllHandlesEveryPriorityHighestFirstOnAQueueThatRunsOneAtATime() {
        this.recorder.release(); // SLOW's handler passes at once
        send(TestQueues.SLOW, "p0", 0, 5);
        send(TestQueues.SLOW, "p1-early", 1, 10);
        send(TestQueues.SLOW, "p4", null, 15);
        send(TestQueues.SLOW, "p1-late", 1, 20);
        send(TestQueues.SLOW, "p9", 9, 25);
        send(TestQueues.SLOW, "p6", 6, 30);

        List<String> ran = this.tester.runAll(TestQueues.SLOW);

        List<String> highestFirst = List.of("p9", "p6", "p4", "p1-early", "p1-late", "p0");
        assertThat(this.recorder.handled()).containsExactlyElementsOf(highestFirst);
        assertThat(ran).containsExactlyInAnyOrderElementsOf(highestFirst);
        assertThat(this.tester.pending(TestQueues.SLOW)).isEmpty();
        assertThat(this.admin.stats(TestQueues.SLOW).pending()).isZero();
    }

    @Test
    void runDueWithinRunsThePrioritizedMessagesDueWithinAndLeavesTheLaterOnes() {
        send(TestQueues.PAYMENT_TIMEOUT, "p9-soon", 9, 1);
        send(TestQueues.PAYMENT_TIMEOUT, "p2-soon", 2, 2);
        send(TestQueues.PAYMENT_TIMEOUT, "p9-later", 9, 120);
        send(TestQueues.PAYMENT_TIMEOUT, "p4-later", null, 180);

        assertThat(this.tester.runDueWithin(TestQueues.PAYMENT_TIMEOUT, Duration.ofMinutes(5)))
                .containsExactlyInAnyOrder("p9-soon", "p2-soon");
        assertThat(this.recorder.handled()).containsExactlyInAnyOrder(new PaymentTimeout(1), new PaymentTimeout(2));
        assertThat(this.tester.pending(TestQueues.PAYMENT_TIMEOUT)).extracting(ScheduledMessage::id)
                .containsExactly("p9-later", "p4-later");

        this.tester.run(TestQueues.PAYMENT_TIMEOUT, "p9-later");
        assertThat(this.tester.runAll(TestQueues.PAYMENT_TIMEOUT)).containsExactly("p4-later");
        assertThat(this.recorder.handled()).hasSize(4);
    }

    /** A retry keeps its priority; the tester runs it at once, as it does the default priority's retries. */
    @Test
    void aPrioritizedMessageThatDiesEndsInTheDeadLetters() {
        this.template.send(TestQueues.POISON, new PaymentTimeout(7), Duration.ofHours(1), SendOptions.id("urgent").priority(8));

        DeadMessage dead = this.tester.runExpectingDeadLetter(TestQueues.POISON, "urgent");

        assertThat(dead.attempts()).isEqualTo(3);
        assertThat(dead.reason()).contains("cannot handle order 7");
    }

    /**
     * Cancelling every message leaves each priority's marker in delayed (a claim deletes a marker whose set it finds
     * empty, and nothing claims here): reset deletes them, with the sets, whether the queue has a consumer or not.
     */
    @Test
    void resetLeavesNoPrioritySetNorMarkerBehind() {
        send(TestQueues.PAYMENT_TIMEOUT, "p9", 9, 60);
        send(TestQueues.PAYMENT_TIMEOUT, "p0", 0, 60);
        send(TestQueues.PAYMENT_TIMEOUT, "p4", null, 60);
        this.template.send(TestQueues.SEND_ONLY, "urgent", Duration.ofHours(1), SendOptions.id("s7").priority(7));
        this.template.send(TestQueues.SEND_ONLY, "bulk", Duration.ofHours(1), SendOptions.id("s1").priority(1));
        for (TestQueues queue : List.of(TestQueues.PAYMENT_TIMEOUT, TestQueues.SEND_ONLY)) {
            assertThat(this.redisson.getKeys().getKeysStreamByPattern(base(queue) + "priority:*").toList())
                    .as("the priorities' sets of " + queue).isNotEmpty();
            assertThat(marks(queue)).as("the priorities' markers of " + queue).isNotEmpty();
        }
        this.template.cancel(TestQueues.SEND_ONLY, "s7");
        this.template.cancel(TestQueues.SEND_ONLY, "s1");
        assertThat(marks(TestQueues.SEND_ONLY)).as("a cancel leaves the markers").containsExactlyInAnyOrder("^7", "^1");

        this.tester.reset();

        for (TestQueues queue : List.of(TestQueues.PAYMENT_TIMEOUT, TestQueues.SEND_ONLY)) {
            assertThat(this.redisson.getKeys().getKeysStreamByPattern(base(queue) + "priority:*").toList())
                    .as("the priorities' sets of " + queue).isEmpty();
            assertThat(this.redisson.getKeys().countExists(base(queue) + "delayed")).as("delayed of " + queue).isZero();
        }
        assertThat(this.admin.stats()).allSatisfy(stats -> {
            assertThat(stats.pending()).isZero();
            assertThat(stats.readyByPriority()).isEmpty();
        });
        // and the queue works as before: a new prioritized message is listed and run
        send(TestQueues.PAYMENT_TIMEOUT, "again", 9, 60);
        assertThat(this.tester.runAll(TestQueues.PAYMENT_TIMEOUT)).containsExactly("again");
    }

    private void send(TestQueues queue, String id, Integer priority, int minutes) {
        SendOptions options = SendOptions.id(id);
        if (priority != null) {
            options = options.priority(priority);
        }
        Object payload = queue == TestQueues.SLOW ? id : new PaymentTimeout(minutes);
        this.template.send(queue, payload, Duration.ofMinutes(minutes), options);
    }

    private String base(TestQueues queue) {
        return this.keyPrefix + ":{" + queue.name() + "}:";
    }

    /** The priorities' markers in the queue's delayed set: members "^<digit>" scored -inf. */
    private List<String> marks(TestQueues queue) {
        return this.redisson.getScoredSortedSet(base(queue) + "delayed", StringCodec.INSTANCE)
                .valueRange(Double.NEGATIVE_INFINITY, true, Double.NEGATIVE_INFINITY, true).stream()
                .map(Object::toString).filter(m -> m.length() == 2 && m.charAt(0) == '^').toList();
    }
}
