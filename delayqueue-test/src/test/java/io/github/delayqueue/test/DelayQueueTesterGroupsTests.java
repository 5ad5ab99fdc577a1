package io.github.delayqueue.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.time.Duration;
import java.util.ArrayList;
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
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.test.app.PaymentTimeout;
import io.github.delayqueue.test.app.Recorder;
import io.github.delayqueue.test.app.TestApplication;
import io.github.delayqueue.test.app.TestQueues;

/**
 * {@link DelayQueueTester} on {@code SendOptions.group grouped} messages (not on the pending pages): pending lists
 * them with the others in due order, runAll and runDueWithin run them, and reset leaves none of the groups' flow
 * state behind (a group limit of one an hour would otherwise hold the next test's message of the same group).
 */
@SpringBootTest(classes = TestApplication.class, properties = "delayqueue.queues[PAYMENT_TIMEOUT].group-rate-limit=1/1h")
class DelayQueueTesterGroupsTests {

    @Autowired
    DelayQueueTester tester;

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    Recorder recorder;

    @Value("${delayqueue.key-prefix}")
    String keyPrefix;

    @Autowired
    RedissonClient redisson;

    @BeforeEach
    @AfterEach
    void fresh() {
        this.tester.reset();
        this.recorder.clear();
    }

    @Test
    void runAllAndRunDueWithinRunGroupedMessagesAndResetForgetsTheGroupsFlowState() {
        this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(1), Duration.ofMinutes(1),
                SendOptions.id("soon").group("A"));
        this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(2), Duration.ofHours(2),
                SendOptions.id("later").group("B"));

        assertThat(this.tester.runDueWithin(TestQueues.PAYMENT_TIMEOUT, Duration.ofMinutes(5))).containsExactly("soon");
        assertThat(this.tester.runAll(TestQueues.PAYMENT_TIMEOUT)).containsExactly("later");
        assertThat(this.recorder.handled()).containsExactly(new PaymentTimeout(1), new PaymentTimeout(2));

        String base = this.keyPrefix + ":{" + TestQueues.PAYMENT_TIMEOUT.name() + "}:";
        assertThat(this.redisson.getKeys().countExists(base + "group-flow", base + "group-idle"))
                .as("the groups' limits, an hour ahead").isEqualTo(2);
        this.tester.reset();
        assertThat(this.redisson.getKeys().countExists(base + "group-flow", base + "group-idle", base + "flow")).isZero();
        assertThat(this.redisson.getScoredSortedSet(base + "delayed", StringCodec.INSTANCE).size())
                .as("no groups marker left").isZero();
    }

    @Test
    void pendingListsGroupedMessagesWithTheOthersInDueOrder() {
        send("plain-30", null, 30);
        send("a-10", "A", 10);
        send("b-20", "B", 20);
        send("a-40", "A", 40);
        send("plain-5", null, 5);

        List<ScheduledMessage<PaymentTimeout>> pending = this.tester.pending(TestQueues.PAYMENT_TIMEOUT, PaymentTimeout.class);

        assertThat(pending).extracting(ScheduledMessage::id).containsExactly("plain-5", "a-10", "b-20", "plain-30", "a-40");
        assertThat(pending).extracting(ScheduledMessage::group).containsExactly(null, "A", "B", null, "A");
        assertThat(pending).extracting(ScheduledMessage::payload).containsExactly(new PaymentTimeout(5),
                new PaymentTimeout(10), new PaymentTimeout(20), new PaymentTimeout(30), new PaymentTimeout(40));
        assertThat(pending.get(1).dueIn()).isCloseTo(Duration.ofMinutes(10), Duration.ofSeconds(10));
        assertThat(pending.get(1).headers()).as("the group is not a header").isEmpty();
        assertThat(this.tester.pending(TestQueues.PAYMENT_TIMEOUT)).extracting(ScheduledMessage::id)
                .containsExactly("plain-5", "a-10", "b-20", "plain-30", "a-40");
    }

    /**
     * The groups index is listed 1000 groups at most (per partition): with that many, some may be left out, so
     * pending and runAll refuse rather than list or run a part; reset still deletes them all.
     */
    @Test
    void pendingRefusesRatherThanLeaveGroupsOut() {
        List<SendRequest> requests = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            requests.add(SendRequest.of(new PaymentTimeout(i), Duration.ofHours(1), SendOptions.id("m-" + i).group("g-" + i)));
        }
        this.template.sendAll(TestQueues.PAYMENT_TIMEOUT, requests);

        assertThatIllegalStateException().isThrownBy(() -> this.tester.pending(TestQueues.PAYMENT_TIMEOUT))
                .withMessageContaining("1000 groups or more");
        assertThatIllegalStateException().isThrownBy(() -> this.tester.runAll(TestQueues.PAYMENT_TIMEOUT))
                .withMessageContaining("1000 groups or more");
        assertThat(this.recorder.handled()).isEmpty();

        this.template.cancel(TestQueues.PAYMENT_TIMEOUT, "m-0");
        assertThat(this.tester.pending(TestQueues.PAYMENT_TIMEOUT)).hasSize(999);
    }

    private void send(String id, String group, int minutes) {
        this.template.send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(minutes), Duration.ofMinutes(minutes),
                SendOptions.id(id).group(group));
    }
}
