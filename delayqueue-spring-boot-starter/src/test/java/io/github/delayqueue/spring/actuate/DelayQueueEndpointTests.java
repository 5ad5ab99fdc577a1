package io.github.delayqueue.spring.actuate;

import java.lang.reflect.Method;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.GroupStats;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.QueueFlow;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.history.HistoryPage;
import io.github.delayqueue.core.sets.SetStatus;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueConsumerRegistry;
import io.github.delayqueue.core.schedule.ScheduleInfo;
import io.github.delayqueue.core.schedule.SchedulePage;
import io.github.delayqueue.core.schedule.ScheduleSpec;
import io.github.delayqueue.spring.schedule.DelayQueueSchedules;
import io.github.delayqueue.spring.actuate.DelayQueueEndpoint.QueueDetailsDescriptor;
import io.github.delayqueue.spring.actuate.EndpointApp.Queues;
import org.junit.jupiter.api.BeforeEach;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;

/** What the endpoint makes of the admin's and the registry's answers; no Redis (the HTTP test has one). */
class DelayQueueEndpointTests {

    private static final Instant NOW = Instant.parse("2026-11-24T20:00:00Z");

    private final DelayQueueAdmin admin = mock(DelayQueueAdmin.class);
    private final DelayQueueConsumerRegistry registry = mock(DelayQueueConsumerRegistry.class);
    private final DelayQueueConsumer consumer = mock(DelayQueueConsumer.class);

    @BeforeEach
    void queues() {
        given(this.admin.codes()).willReturn(List.of(Queues.WORK));
        given(this.admin.find("WORK")).willReturn(Optional.of(Queues.WORK));
        given(this.admin.stats(Queues.WORK)).willReturn(
                new QueueStats("WORK", 5, 2, 1, 1, NOW.minusMillis(1500), NOW));
        given(this.admin.deadLetters(Queues.WORK, 20)).willReturn(List.of(new DeadLetter("-------1:order-1",
                "order-1", "{\"card\":\"4111\"}", Map.of("customer", "alice"), 3, "java.lang.IllegalStateException: x",
                NOW.minusSeconds(60), NOW.minusSeconds(120))));
        given(this.consumer.queue()).willReturn("WORK");
        given(this.consumer.isRunning()).willReturn(true);
        given(this.consumer.activeHandlers()).willReturn(1);
        given(this.registry.consumers()).willReturn(List.of(this.consumer));
        given(this.registry.consumer(Queues.WORK)).willReturn(Optional.of(this.consumer));
    }

    private DelayQueueEndpoint endpoint(boolean showPayloads) {
        return new DelayQueueEndpoint(this.admin, this.registry, queue -> queue.equals("WORK") ? 4 : null, showPayloads);
    }

    @Test
    void theOldestDueMessagesLatenessIsTheRedisClockPastItsDueTime() {
        DelayQueueEndpoint.QueueDescriptor work = endpoint(false).queues().queues().get("WORK");
        assertThat(work.latenessMillis()).isEqualTo(1500);
        assertThat(work.ready()).isEqualTo(2);

        given(this.admin.stats(Queues.WORK)).willReturn(new QueueStats("WORK", 5, 0, 0, 0, NOW.plusSeconds(30), NOW));
        assertThat(endpoint(false).queues().queues().get("WORK").latenessMillis()).isZero(); // nothing due yet
    }

    @Test
    void aQueueShowsItsReadyMessagesPerPriorityHighestFirstAndNothingWhenNoneIsReady() {
        // as the engine reports them: only priorities with ready messages, highest first, grouped ones at 4
        given(this.admin.stats(Queues.WORK)).willReturn(new QueueStats("WORK", 9, 6, 0, 0, NOW.minusSeconds(1), NOW,
                QueueFlow.NONE, 0, Map.of(1, 2L, 9, 1L, 4, 3L)));
        DelayQueueEndpoint.QueueDescriptor work = endpoint(false).queues().queues().get("WORK");
        assertThat(work.ready()).isEqualTo(6);
        assertThat(work.readyByPriority()).containsExactly(Map.entry(9, 1L), Map.entry(4, 3L), Map.entry(1, 2L));
        assertThat(endpoint(false).queue("WORK", null).queue().readyByPriority()).isEqualTo(work.readyByPriority());

        // nothing due: left out of the JSON (null), as the queue's JSON was before priorities
        given(this.admin.stats(Queues.WORK)).willReturn(new QueueStats("WORK", 5, 0, 0, 0, NOW.plusSeconds(30), NOW));
        assertThat(endpoint(false).queues().queues().get("WORK").readyByPriority()).isNull();
        // a snapshot of the constructor of releases before priorities: every ready message at the default
        given(this.admin.stats(Queues.WORK)).willReturn(new QueueStats("WORK", 5, 2, 1, 1, NOW.minusMillis(1500), NOW));
        assertThat(endpoint(false).queues().queues().get("WORK").readyByPriority()).containsExactly(Map.entry(4, 2L));
    }

    @Test
    void aLiveMessageShowsItsPriorityAndASettledOneNone() {
        io.github.delayqueue.core.QueuedMessage pending = new io.github.delayqueue.core.QueuedMessage("mail-1",
                io.github.delayqueue.core.QueuedMessage.State.PENDING, NOW.plusSeconds(5), null, 0, null, NOW,
                Map.of(), "{}", null, 9);
        given(this.admin.status(Queues.WORK, "mail-1")).willReturn(new io.github.delayqueue.core.history.MessageStatus(
                "mail-1", io.github.delayqueue.core.history.MessageStatus.State.PENDING, pending, null, null));
        DelayQueueEndpoint.MessageStatusDescriptor status = endpoint(false).messageStatus("WORK", "messages", "mail-1");
        assertThat(status).isNotNull();
        assertThat(status.state()).isEqualTo("pending");
        assertThat(status.priority()).isEqualTo(9);

        given(this.admin.status(Queues.WORK, "gone")).willReturn(new io.github.delayqueue.core.history.MessageStatus(
                "gone", io.github.delayqueue.core.history.MessageStatus.State.UNKNOWN, null, null, null));
        assertThat(endpoint(false).messageStatus("WORK", "messages", "gone").priority()).isNull();
    }

    @Test
    void theQueueViewShowsTheGroupsFurthestBehind() {
        assertThat(endpoint(false).queue("WORK", null).groups()).isEmpty();
        given(this.admin.groups(Queues.WORK, 20)).willReturn(List.of(
                new GroupStats("tenant-a", 900, 2, NOW.minusSeconds(30), NOW.plusMillis(50)),
                new GroupStats("tenant-b", 3, 4, NOW.minusSeconds(1), null)));
        assertThat(endpoint(false).queue("WORK", null).groups()).containsExactly(
                new DelayQueueEndpoint.GroupDescriptor("tenant-a", 900, 2, NOW.minusSeconds(30), NOW.plusMillis(50)),
                new DelayQueueEndpoint.GroupDescriptor("tenant-b", 3, 4, NOW.minusSeconds(1), null));
    }

    @Test
    void payloadsAndHeadersAreShownOnlyWhenAskedFor() {
        QueueDetailsDescriptor hidden = endpoint(false).queue("WORK", null);
        assertThat(hidden.deadLetters()).singleElement().satisfies(d -> {
            assertThat(d.payload()).isNull();
            assertThat(d.headers()).isNull();
            assertThat(d.key()).isEqualTo("-------1:order-1");
            assertThat(d.attempts()).isEqualTo(3);
        });
        QueueDetailsDescriptor shown = endpoint(true).queue("WORK", null);
        assertThat(shown.deadLetters()).singleElement().satisfies(d -> {
            assertThat(d.payload()).isEqualTo("{\"card\":\"4111\"}");
            assertThat(d.headers()).containsEntry("customer", "alice");
        });
    }

    @Test
    void aConsumerIsRunningPausedOrFailed() {
        assertThat(endpoint(false).queues().consumers().get("WORK")).satisfies(c -> {
            assertThat(c.state()).isEqualTo("RUNNING");
            assertThat(c.concurrency()).isEqualTo(4);
            assertThat(c.activeHandlers()).isEqualTo(1);
        });
        given(this.admin.isPaused(Queues.WORK)).willReturn(true);
        assertThat(endpoint(false).queues().consumers().get("WORK").state()).isEqualTo("PAUSED");
        given(this.consumer.failure()).willReturn(new IllegalStateException("the poller ended"));
        assertThat(endpoint(false).queue("WORK", null).consumer()).satisfies(c -> {
            assertThat(c.state()).isEqualTo("FAILED");
            assertThat(c.failure()).isEqualTo("java.lang.IllegalStateException: the poller ended");
        });
    }

    @Test
    void aConsumerShowsTheQueuesFlowLimitsOrNullForNone() {
        assertThat(endpoint(false).queues().consumers().get("WORK")).satisfies(c -> {
            assertThat(c.rateLimit()).isNull();
            assertThat(c.maxInFlight()).isNull();
        });
        io.github.delayqueue.core.ConsumerOptions limited = io.github.delayqueue.core.ConsumerOptions.builder()
                .rateLimit(io.github.delayqueue.core.RateLimit.parse("200/1s").withBurst(20)).maxInFlight(5).build();
        DelayQueueEndpoint endpoint = new DelayQueueEndpoint(this.admin, this.registry, queue -> 4,
                queue -> queue.equals("WORK") ? limited : null, false);
        assertThat(endpoint.queue("WORK", null).consumer()).satisfies(c -> {
            assertThat(c.rateLimit()).isEqualTo("200/1s burst 20");
            assertThat(c.maxInFlight()).isEqualTo(5);
        });
    }

    @Test
    void anUnknownQueueReadsAsNullAndIsRejectedByEveryWrite() {
        DelayQueueEndpoint endpoint = endpoint(false);
        assertThat(endpoint.queue("NOPE", null)).isNull();
        assertThatExceptionOfType(InvalidEndpointRequestException.class).isThrownBy(() -> endpoint.queueAction("NOPE", "pause", null))
                .withMessageContaining("unknown queue 'NOPE'").withMessageContaining("[WORK]");
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> endpoint.targetAction("NOPE", "messages", "id", "run-now", null));
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> endpoint.delete("NOPE", "messages", "id"));
        verify(this.admin, never()).pause(any());
        verify(this.admin, never()).runNow(any(), anyString());
        verify(this.admin, never()).cancel(any(), anyString());
    }

    /**
     * The engine checks ids and keys before it writes; the endpoint turns exactly that rejection (an
     * IllegalArgumentException) into a 400 that carries the engine's explanation, on every operation that takes an
     * id or a key, and lets any other failure (Redis down) through as the server error it is.
     */
    @Test
    void anEngineRejectionOfAnIdOrKeyIsABadRequestAndNothingElseIs() {
        IllegalArgumentException rejected = new IllegalArgumentException("the engine's explanation");
        given(this.admin.cancel(Queues.WORK, "bad")).willThrow(rejected);
        given(this.admin.runNow(Queues.WORK, "bad")).willThrow(rejected);
        given(this.admin.requeue(Queues.WORK, List.of("bad"))).willThrow(rejected);
        given(this.admin.purge(Queues.WORK, List.of("bad"))).willThrow(rejected);
        DelayQueueEndpoint endpoint = endpoint(false);
        List<ThrowingCallable> calls = List.of(() -> endpoint.delete("WORK", "messages", "bad"),
                () -> endpoint.delete("WORK", "dead-letters", "bad"),
                () -> endpoint.targetAction("WORK", "messages", "bad", "run-now", null),
                () -> endpoint.targetAction("WORK", "dead-letters", "bad", "requeue", null));
        for (ThrowingCallable call : calls) {
            assertThatExceptionOfType(InvalidEndpointRequestException.class).isThrownBy(call)
                    .satisfies(e -> assertThat(e.getReason()).isEqualTo("the engine's explanation"))
                    .havingCause().isSameAs(rejected);
        }

        DelayQueueException redisDown = new DelayQueueException("Redis did not answer", null);
        given(this.admin.cancel(Queues.WORK, "order-1")).willThrow(redisDown);
        assertThatThrownBy(() -> endpoint.delete("WORK", "messages", "order-1")).isSameAs(redisDown);
    }

    /**
     * Every POST operation has a parameter that is not a selector, so the actuator reads a body and maps the
     * operation for JSON only: a request a page can send to another origin without a CORS preflight (a form, a
     * {@code no-cors} fetch: text/plain, form-encoded, multipart) is refused with 415 before the endpoint runs.
     * A write added without one would be forgeable; {@code DashboardForgeryBrowserTests} shows it in Chromium.
     */
    @Test
    void everyWriteOperationTakesABodySoThatItAcceptsJsonOnly() {
        List<Method> writes = Stream.of(DelayQueueEndpoint.class.getMethods())
                .filter(m -> m.isAnnotationPresent(WriteOperation.class)).toList();
        assertThat(writes).extracting(Method::getName).containsExactlyInAnyOrder("queueAction", "targetAction");
        assertThat(writes).allSatisfy(m -> assertThat(m.getParameters())
                .anyMatch(p -> !p.isAnnotationPresent(Selector.class)));
        assertThat(DelayQueueEndpoint.class.getAnnotation(Endpoint.class).defaultAccess()).isEqualTo(Access.READ_ONLY);
    }

    @Test
    void aNoteIsOptionalAndDoesNotChangeWhatIsDone() {
        DelayQueueEndpoint endpoint = endpoint(false);
        assertThat(endpoint.queueAction("WORK", "pause", null).changed()).isEqualTo(1);
        assertThat(endpoint.queueAction("WORK", "resume", "incident 7:\nall clear".repeat(50)).action()).isEqualTo("resume");
        verify(this.admin).pause(Queues.WORK);
        verify(this.admin).resume(Queues.WORK);
    }

    @Test
    void aLimitOutOfRangeIsABadRequest() {
        assertThatExceptionOfType(InvalidEndpointRequestException.class).isThrownBy(() -> endpoint(false).queue("WORK", 0));
        assertThatExceptionOfType(InvalidEndpointRequestException.class).isThrownBy(() -> endpoint(false).queue("WORK", 101));
        given(this.admin.deadLetters(Queues.WORK, 100)).willReturn(List.of());
        assertThat(endpoint(false).queue("WORK", 100).deadLetters()).isEmpty();
    }

    @Test
    void aJobSetReadsWithItsDeadMembersAnUnknownOneAsNullAndABadIdAsA400() {
        given(this.admin.setStatus("campaign-1")).willReturn(Optional.of(new SetStatus("campaign-1", 5, 1, 2, 2, 0, true,
                NOW.minusSeconds(60), NOW.plusSeconds(3600), "parent-1", false, false, 0,
                List.of(new SetStatus.Member("WORK", "m-3"), new SetStatus.Member(null, "child-1")))));
        given(this.admin.setStatus("bad{id}")).willThrow(new IllegalArgumentException("set id must be printable ASCII"));
        given(this.admin.setStatus("gone")).willReturn(Optional.empty());
        DelayQueueEndpoint endpoint = endpoint(false);

        DelayQueueEndpoint.SetDescriptor set = (DelayQueueEndpoint.SetDescriptor) endpoint.queueSection("sets",
                "campaign-1", null, null);
        assertThat(set.total()).isEqualTo(5);
        assertThat(set.pending()).isEqualTo(1);
        assertThat(set.acknowledged()).isEqualTo(2);
        assertThat(set.dead()).isEqualTo(2);
        assertThat(set.sealed()).isTrue();
        assertThat(set.complete()).isFalse();
        assertThat(set.parent()).isEqualTo("parent-1");
        assertThat(set.expiresAt()).isEqualTo(NOW.plusSeconds(3600));
        assertThat(set.deadMembers()).containsExactly(new DelayQueueEndpoint.SetMemberDescriptor("WORK", "m-3"),
                new DelayQueueEndpoint.SetMemberDescriptor(null, "child-1"));
        assertThat(((DelayQueueEndpoint.SetDescriptor) endpoint.queueSection("sets", "campaign-1", null, 1))
                .deadMembers()).hasSize(1);
        assertThat(endpoint.queueSection("sets", "gone", null, null)).isNull();
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> endpoint.queueSection("sets", "bad{id}", null, null))
                .withMessageContaining("printable ASCII");
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> endpoint.queueSection("sets", "campaign-1", null, 101));
    }

    /** A queue declared as "sets" keeps its history and activity; its other second selectors name sets. */
    @Test
    void aQueueNamedSetsKeepsItsSections() {
        DelayQueueCode sets = () -> "sets";
        given(this.admin.find("sets")).willReturn(Optional.of(sets));
        given(this.admin.history(sets, 0, 20)).willReturn(new HistoryPage("sets", 0, 0, NOW, List.of()));
        given(this.admin.setStatus("campaign-1")).willReturn(Optional.empty());
        DelayQueueEndpoint endpoint = endpoint(false);
        assertThat(endpoint.queueSection("sets", "history", null, null))
                .isInstanceOf(DelayQueueEndpoint.HistoryDescriptor.class);
        assertThat(endpoint.queueSection("sets", "campaign-1", null, null)).isNull();
        verify(this.admin).setStatus("campaign-1");
    }

    @Test
    void schedulesAreListedAndOperatedAndBadInputIsA400() {
        DelayQueueSchedules schedules = mock(DelayQueueSchedules.class);
        ScheduleSpec spec = ScheduleSpec.cron("WORK", "nightly", "0 0 2 * * *").zone(java.time.ZoneId.of("Europe/Berlin"))
                .build();
        given(schedules.list("WORK", 0, 20)).willReturn(new SchedulePage("WORK", 1, 0, NOW,
                List.of(new ScheduleInfo(spec, true, NOW.plusSeconds(3600), false, null))));
        given(schedules.pause("WORK", "nightly")).willReturn(true);
        given(schedules.pause("WORK", "a b")).willThrow(new IllegalArgumentException("schedule id must be ..."));
        DelayQueueEndpoint endpoint = new DelayQueueEndpoint(this.admin, this.registry, queue -> 4, false, schedules);
        DelayQueueEndpoint.SchedulesDescriptor page = (DelayQueueEndpoint.SchedulesDescriptor) endpoint.queueSection("WORK",
                "schedules", null, null);
        assertThat(page.total()).isEqualTo(1);
        assertThat(page.schedules()).singleElement().satisfies(s -> {
            assertThat(s.id()).isEqualTo("nightly");
            assertThat(s.expression()).isEqualTo("0 0 2 * * *");
            assertThat(s.zone()).isEqualTo("Europe/Berlin");
            assertThat(s.misfire()).isEqualTo("fire-once");
            assertThat(s.nextTickAt()).isEqualTo(NOW.plusSeconds(3600));
        });
        assertThat(endpoint.queueSection("NOPE", "schedules", null, null)).isNull();
        assertThat(endpoint.targetAction("WORK", "schedules", "nightly", "pause", "maintenance").changed()).isEqualTo(1);
        endpoint.targetAction("WORK", "schedules", "nightly", "trigger", null);
        verify(schedules).trigger("WORK", "nightly");
        endpoint.delete("WORK", "schedules", "nightly");
        verify(schedules).remove("WORK", "nightly");
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> endpoint.targetAction("WORK", "schedules", "a b", "pause", null));
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> endpoint.targetAction("WORK", "schedules", "nightly", "explode", null));
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> endpoint.queueSection("WORK", "schedules", null, 0));
    }

    @Test
    void aQueueWithGroupLimitsOnlyShowsItsFlowWhileAGroupHoldsDueMessagesBack() {
        // no queue-wide limit, hold or counted claims: the flow is there for what the groups throttle
        DelayQueueEndpoint.FlowDescriptor flow = DelayQueueEndpoint.flow(new QueueFlow(null, 0, null, 8, 8, null, false));
        assertThat(flow).isNotNull();
        assertThat(flow.throttled()).isEqualTo(8);
        assertThat(flow.throttledByGroups()).isEqualTo(8);
        assertThat(flow.rateLimit()).isNull();
        // once they go, nothing is left to show: the JSON of a queue without flow control
        assertThat(DelayQueueEndpoint.flow(new QueueFlow(null, 0, null, 0, 0, null, false))).isNull();
        assertThat(DelayQueueEndpoint.flow(QueueFlow.NONE)).isNull();
    }
}
