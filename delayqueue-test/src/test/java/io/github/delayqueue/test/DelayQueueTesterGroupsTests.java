package io.github.delayqueue.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.test.app.PaymentTimeout;
import io.github.delayqueue.test.app.Recorder;
import io.github.delayqueue.test.app.TestApplication;
import io.github.delayqueue.test.app.TestQueues;

/**
 * {@link DelayQueueTester} on {@code SendOptions.group grouped} messages (not on the pending pages): runAll and
 * runDueWithin run them, and reset leaves none of the groups' flow state behind (a group limit of one an hour
 * would otherwise hold the next test's message of the same group).
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
}
