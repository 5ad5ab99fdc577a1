package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.time.Instant;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

import io.github.delayqueue.core.protocol.Due;
import io.github.delayqueue.core.protocol.QueueOps;

/** A {@link SendRequest} is complete once built, and its due time has one encoding for the scripts. */
class SendRequestTest {

    private static final Duration D = Duration.ofSeconds(1);
    private static final Instant T = Instant.ofEpochMilli(1_700_000_000_000L);

    @Test
    void nullsAreRejectedWhenTheRequestIsBuilt() {
        rejected(() -> SendRequest.of(null, D), "payload must not be null");
        rejected(() -> SendRequest.of("p", null), "delay must not be null");
        rejected(() -> SendRequest.of("p", D, null), "options must not be null");
        rejected(() -> SendRequest.at(null, T), "payload must not be null");
        rejected(() -> SendRequest.at("p", null), "dueAt must not be null");
        rejected(() -> SendRequest.at("p", T, null), "options must not be null");
    }

    @Test
    void withOptionsKeepsPayloadAndDueTimeAndRejectsNull() {
        SendRequest request = SendRequest.at("p", T, SendOptions.id("x"));
        SendRequest traced = request.withOptions(request.options().header("traceparent", "00-abc-def-01"));
        assertThat(traced.payload()).isEqualTo("p");
        assertThat(traced.due()).isEqualTo(request.due());
        assertThat(traced.options().id()).isEqualTo("x");
        assertThat(traced.options().headers()).containsEntry("traceparent", "00-abc-def-01");
        assertThat(request.options().headers()).isEmpty();
        rejected(() -> request.withOptions(null), "options must not be null");
    }

    @Test
    void aRequestIsDueAfterADelayOrAtAnInstantNeverBoth() {
        SendOptions options = SendOptions.id("x");
        SendRequest after = SendRequest.of("p", D, options);
        SendRequest at = SendRequest.at("p", T);
        assertThat(after.due()).isEqualTo(new Due.After(D));
        assertThat(after.payload()).isEqualTo("p");
        assertThat(after.options()).isSameAs(options);
        assertThat(at.due()).isEqualTo(new Due.At(T));
        assertThat(at.options()).isSameAs(SendOptions.none());
        assertThat(SendRequest.of("p", D)).isEqualTo(SendRequest.of("p", D)).isNotEqualTo(at);
    }

    @Test
    void dueTimesEncodeAsScriptArgumentsInWholeMillisecondsRoundedUp() {
        assertThat(Due.after(Duration.ZERO).scriptArg()).isEqualTo("+0");
        assertThat(Due.after(Duration.ofMillis(1500)).scriptArg()).isEqualTo("+1500");
        assertThat(Due.after(Duration.ofNanos(1_000_001)).scriptArg()).isEqualTo("+2");
        assertThat(Due.at(T).scriptArg()).isEqualTo("@1700000000000");
        assertThat(Due.at(T.plusNanos(1)).scriptArg()).isEqualTo("@1700000000001");
        assertThat(Due.at(Instant.EPOCH).scriptArg()).isEqualTo("@0");
    }

    @Test
    void sendModesEncodeAsEnqueueFlags() {
        assertThat(QueueOps.modeArg(SendMode.REPLACE)).isEqualTo("1");
        assertThat(QueueOps.modeArg(SendMode.IF_ABSENT)).isEqualTo("0");
    }

    private static void rejected(ThrowingCallable build, String message) {
        assertThatIllegalArgumentException().isThrownBy(build).withMessage(message);
    }
}
