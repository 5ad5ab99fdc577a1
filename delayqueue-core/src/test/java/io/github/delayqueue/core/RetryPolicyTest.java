package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    @Test
    void growsExponentiallyUpToTheCap() {
        RetryPolicy policy = new RetryPolicy(10, Duration.ofMillis(100), 2.0, Duration.ofMillis(1_000), 0.0);
        assertThat(policy.backoffAfter(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(policy.backoffAfter(2)).isEqualTo(Duration.ofMillis(200));
        assertThat(policy.backoffAfter(4)).isEqualTo(Duration.ofMillis(800));
        assertThat(policy.backoffAfter(5)).isEqualTo(Duration.ofMillis(1_000));
        assertThat(policy.backoffAfter(60)).isEqualTo(Duration.ofMillis(1_000));
    }

    @RepeatedTest(20)
    void jitterStaysWithinItsFraction() {
        RetryPolicy policy = new RetryPolicy(10, Duration.ofMillis(1_000), 2.0, Duration.ofMinutes(1), 0.2);
        assertThat(policy.backoffAfter(1).toMillis()).isBetween(800L, 1_200L);
        assertThat(policy.backoffAfter(3).toMillis()).isBetween(3_200L, 4_800L);
    }

    @Test
    void defaultsAreDocumented() {
        assertThat(RetryPolicy.DEFAULT).isEqualTo(
                new RetryPolicy(5, Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5), 0.2));
    }
}
